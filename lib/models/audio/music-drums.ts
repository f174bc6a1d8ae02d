// Soft synthesized drums: a pitch-swept sine kick, noise snare and clap, filtered-noise hats
// and shaker. Kept round and quiet on calm pieces: energy scales the whole kit.
import type { DrumHit, DrumKind } from "./music-score";
import { panGains, Rotor, type Stem } from "./music-voices";

const LENGTH: Record<DrumKind, number> = { kick: 0.5, snare: 0.3, clap: 0.3, hat: 0.08, openhat: 0.35, shaker: 0.12 };
const PAN: Record<DrumKind, number> = { kick: 0, snare: 0.05, clap: -0.05, hat: 0.3, openhat: 0.3, shaker: -0.3 };

/** A two-pole band-pass (state-variable filter) step, state kept by the caller. */
function bandpass(state: { low: number; band: number }, x: number, f: number, q: number): number {
  const high = x - state.low - q * state.band;
  state.band += f * high;
  state.low += f * state.band;
  return state.band;
}

export function renderDrums(stem: Stem, hits: DrumHit[], energy: number, random: () => number): void {
  const sr = stem.sampleRate;
  const level = 0.45 + 0.4 * energy;
  const coef = (freq: number) => 2 * Math.sin((Math.PI * Math.min(freq, sr / 6)) / sr);
  // Exponential decays as per-sample multipliers: exp() per sample is what makes drums slow.
  const decay = (seconds: number) => Math.exp(-1 / (seconds * sr));
  const k = {
    sweep: decay(0.03),
    kick: decay(0.16),
    tone: decay(0.045),
    snare: decay(0.09),
    burst: decay(0.003),
    clap: decay(0.1),
    hat: decay(0.025),
    open: decay(0.12),
    shaker: decay(0.05),
  };
  const [bp1900, bp1300, bp6000] = [coef(1900), coef(1300), coef(6000)];
  const burstFrames = Math.round(0.01 * sr);
  for (const hit of hits) {
    const start = Math.round(hit.time * sr);
    const length = Math.min(stem.left.length - start, Math.round(LENGTH[hit.kind] * sr));
    const [gl, gr] = panGains(PAN[hit.kind]);
    const state = { low: 0, band: 0 };
    const tone = new Rotor(185 / sr);
    let phase = 0;
    let lp = 0;
    let e1 = 1;
    let e2 = 1;
    for (let n = 0; n < length; n++) {
      const noise = random() * 2 - 1;
      let v: number;
      switch (hit.kind) {
        case "kick":
          phase += (2 * Math.PI * (46 + 110 * e2)) / sr;
          v = Math.sin(phase) * e1 * 0.9;
          e1 *= k.kick;
          e2 *= k.sweep;
          break;
        case "snare":
          tone.step();
          v = tone.sin * e1 * 0.35 + bandpass(state, noise, bp1900, 0.9) * e2 * 0.8;
          e1 *= k.tone;
          e2 *= k.snare;
          break;
        case "clap":
          // Three quick bursts before the tail, as hands never quite meet together.
          if (n < 3 * burstFrames && n % burstFrames === 0) e1 = 1;
          v = bandpass(state, noise, bp1300, 0.7) * (n < 3 * burstFrames ? e1 : e2) * 0.9;
          e1 *= k.burst;
          if (n >= 3 * burstFrames) e2 *= k.clap;
          break;
        case "hat":
        case "openhat":
          lp += 0.6 * (noise - lp);
          v = (noise - lp) * e1 * 0.35;
          e1 *= hit.kind === "hat" ? k.hat : k.open;
          break;
        case "shaker":
          v = bandpass(state, noise, bp6000, 1.2) * Math.min(1, n / (0.015 * sr)) * e1 * 0.4;
          e1 *= k.shaker;
          break;
      }
      // A 1 ms onset ramp and a 5 ms tail keep the hits click-free.
      const edge = Math.min(1, n / (0.001 * sr), (length - n) / (0.005 * sr));
      const out = v * edge * hit.vel * level;
      stem.left[start + n]! += out * gl;
      stem.right[start + n]! += out * gr;
    }
  }
}
