// Ambience under the music: rain (hiss and droplets), thunder, wind, ocean waves, forest birds
// and fire crackle, all from filtered seeded noise, slowly moving so they never sound looped.
import type { Texture } from "./music-params";
import { panGains, type Stem } from "./music-voices";

/** A slowly wandering value in [0, 1]: random points every `step` seconds, eased between. */
function drift(random: () => number, duration: number, step: number): (t: number) => number {
  const points = Array.from({ length: Math.ceil(duration / step) + 2 }, () => random());
  return (t) => {
    const i = Math.floor(t / step);
    const f = (1 - Math.cos((t / step - i) * Math.PI)) / 2;
    return points[i]! * (1 - f) + points[i + 1]! * f;
  };
}

const onePole = (freq: number, sr: number) => 1 - Math.exp((-2 * Math.PI * freq) / sr);

function renderRain(stem: Stem, random: () => number, level: number): void {
  const sr = stem.sampleRate;
  const frames = stem.left.length;
  const swell = drift(random, frames / sr, 3);
  const lowA = onePole(4500, sr);
  const highA = onePole(500, sr);
  // Two low-pass stages and one high-pass per channel: a soft hiss, neither rumble nor sizzle.
  const s = new Float64Array(6);
  let g = 0;
  for (let i = 0; i < frames; i++) {
    if (i % 32 === 0) g = level * 0.28 * (0.75 + 0.5 * swell(i / sr));
    for (let c = 0; c < 2; c++) {
      s[c]! += lowA * (random() * 2 - 1 - s[c]!);
      s[c + 2]! += lowA * (s[c]! - s[c + 2]!);
      s[c + 4]! += highA * (s[c + 2]! - s[c + 4]!);
      (c ? stem.right : stem.left)[i]! += (s[c + 2]! - s[c + 4]!) * g;
    }
  }
  // Droplets: tiny high pings scattered across the stereo field.
  for (let t = random() * 0.05; t < frames / sr; t += random() * 0.09) {
    const start = Math.round(t * sr);
    const f = 1800 + random() * 3500;
    const [gl, gr] = panGains(random() * 2 - 1);
    const amp = level * (0.04 + random() * 0.09);
    const length = Math.min(frames - start, Math.round(0.03 * sr));
    for (let k = 0; k < length; k++) {
      const v =
        Math.sin((2 * Math.PI * f * (1 + k / length) * k) / sr) *
        Math.exp(-k / (0.004 * sr)) *
        Math.min(1, k / 8) *
        amp;
      stem.left[start + k]! += v * gl;
      stem.right[start + k]! += v * gr;
    }
  }
}

/** Brown noise through a band-pass whose centre wanders: wind, or (low and slow) ocean and thunder. */
function renderFilteredNoise(
  stem: Stem,
  random: () => number,
  kind: "wind" | "ocean" | "thunder",
  level: number,
): void {
  const sr = stem.sampleRate;
  const frames = stem.left.length;
  const duration = frames / sr;
  const centre = drift(random, duration, kind === "wind" ? 2.5 : 4);
  const gust = drift(random, duration, kind === "wind" ? 1.7 : 4);
  const period = 7 + random() * 4;
  const offset = random() * period;
  const strikes = Array.from({ length: Math.max(1, Math.floor(duration / 12)) }, () => random() * duration);
  const states = new Float64Array(6);
  const gain = level * (kind === "thunder" ? 1.2 : kind === "wind" ? 0.45 : 0.8);
  let amp = 0;
  let f = 0;
  for (let i = 0; i < frames; i++) {
    // Loudness and filter move slowly: recomputing them every 32 samples is plenty.
    if (i % 32 === 0) [amp, f] = noiseShape(kind, i / sr, { centre, gust, period, offset, strikes }, sr);
    for (let c = 0; c < 2; c++) {
      // Leaky integration turns white noise brown: the deep rumble of air and water.
      states[c] = states[c]! * 0.995 + (random() * 2 - 1) * 0.1;
      const high = states[c]! - states[c + 2]! - 0.7 * states[c + 4]!;
      states[c + 4]! += f * high;
      states[c + 2]! += f * states[c + 4]!;
      (c ? stem.right : stem.left)[i]! += (states[c + 4]! + 0.3 * states[c + 2]!) * amp * gain;
    }
  }
}

interface NoiseMotion {
  centre: (t: number) => number;
  gust: (t: number) => number;
  period: number;
  offset: number;
  strikes: number[];
}

/** Loudness and band-pass coefficient of a noise texture at time t. */
function noiseShape(kind: "wind" | "ocean" | "thunder", t: number, motion: NoiseMotion, sr: number): [number, number] {
  const { centre, gust, period, offset, strikes } = motion;
  let amp: number;
  let freq: number;
  if (kind === "wind") {
    amp = 0.25 + 0.75 * gust(t) ** 2;
    freq = 250 + 900 * centre(t);
  } else if (kind === "ocean") {
    // Each wave swells, breaks and draws back; the break is brighter than the backwash.
    const phase = ((t + offset) % period) / period;
    const wave = phase < 0.35 ? (phase / 0.35) ** 2 : Math.exp(-(phase - 0.35) * 4.5);
    amp = 0.15 + 0.85 * wave * (0.7 + 0.3 * gust(t));
    freq = 300 + 2200 * wave;
  } else {
    amp = strikes.reduce(
      (sum, at) => sum + (t >= at ? Math.min(1, (t - at) / 0.08) * Math.exp(-(t - at) / 2.2) : 0),
      0,
    );
    freq = 90 + 120 * centre(t);
  }
  return [amp, 2 * Math.sin((Math.PI * freq) / sr)];
}

/** Birdsong: short chirps rising and falling in pitch, in little phrases at random moments. */
function renderBirds(stem: Stem, random: () => number, level: number): void {
  const sr = stem.sampleRate;
  const frames = stem.left.length;
  for (let t = random() * 1.5; t < frames / sr; t += 1.2 + random() * 3.5) {
    const base = 2500 + random() * 2500;
    const sweep = (random() - 0.4) * 2000;
    const chirps = 2 + Math.floor(random() * 5);
    const [gl, gr] = panGains(random() * 1.6 - 0.8);
    const chirpLength = 0.04 + random() * 0.06;
    for (let n = 0; n < chirps; n++) {
      const start = Math.round((t + n * (chirpLength + 0.03)) * sr);
      const length = Math.min(frames - start, Math.round(chirpLength * sr));
      let phase = 0;
      for (let k = 0; k < length; k++) {
        const x = k / length;
        phase += (2 * Math.PI * (base + sweep * Math.sin(Math.PI * x))) / sr;
        const v = Math.sin(phase) * Math.sin(Math.PI * x) ** 2 * level * 0.12;
        stem.left[start + k]! += v * gl;
        stem.right[start + k]! += v * gr;
      }
    }
  }
}

/** Fire: a low, soft roar with crackles, some in quick clusters. */
function renderFire(stem: Stem, random: () => number, level: number): void {
  const sr = stem.sampleRate;
  const frames = stem.left.length;
  let lowL = 0;
  let lowR = 0;
  const a = onePole(250, sr);
  for (let i = 0; i < frames; i++) {
    lowL += a * (random() * 2 - 1 - lowL);
    lowR += a * (random() * 2 - 1 - lowR);
    stem.left[i]! += lowL * level * 0.5;
    stem.right[i]! += lowR * level * 0.5;
  }
  for (let t = random() * 0.3; t < frames / sr; t += random() < 0.3 ? 0.015 + random() * 0.03 : random() * 0.4) {
    const start = Math.round(t * sr);
    const length = Math.min(frames - start, Math.round((0.002 + random() * 0.008) * sr));
    const [gl, gr] = panGains(random() * 1.4 - 0.7);
    const amp = level * (0.06 + random() * 0.25);
    for (let k = 0; k < length; k++) {
      const v = (random() * 2 - 1) * amp * Math.sin((Math.PI * k) / length);
      stem.left[start + k]! += v * gl;
      stem.right[start + k]! += v * gr;
    }
  }
}

export function renderTextures(stem: Stem, textures: Texture[], random: () => number, level: number): void {
  for (const texture of textures) {
    if (texture === "rain") renderRain(stem, random, level);
    else if (texture === "forest") {
      renderBirds(stem, random, level);
      renderFilteredNoise(stem, random, "wind", level * 0.35);
    } else if (texture === "fire") renderFire(stem, random, level);
    else renderFilteredNoise(stem, random, texture, level);
  }
}
