// Mixing and effects: a swept low-pass for the pad, tempo-synced ping-pong delay, a Freeverb-style
// reverb, and the master chain (DC block, loudness, soft limiter, fades).
import type { Stem } from "./music-voices";

/** Low-pass in place; `cutoff(t)` in Hz is read every 32 samples (enough for slow sweeps). */
export function lowpass(stem: Stem, cutoff: (t: number) => number): void {
  const sr = stem.sampleRate;
  for (const channel of [stem.left, stem.right]) {
    let low = 0;
    let band = 0;
    let f = 0;
    for (let i = 0; i < channel.length; i++) {
      if (i % 32 === 0) f = 2 * Math.sin((Math.PI * Math.min(cutoff(i / sr), sr / 6)) / sr);
      const high = channel[i]! - low - 1.1 * band;
      band += f * high;
      low += f * band;
      channel[i] = low;
    }
  }
}

/** The mix and its two effect sends (mono: both effects spread a mono input across the stereo field). */
export interface Bus {
  mix: Stem;
  reverbSend: Float32Array;
  delaySend: Float32Array;
}

/** Adds a stem to the mix at `gain`, and to the sends at `gain` × their amounts; then clears the stem for reuse. */
export function mixStem(bus: Bus, stem: Stem, gain: number, reverbAmount: number, delayAmount: number): void {
  const { mix, reverbSend, delaySend } = bus;
  const toReverb = gain * reverbAmount * 0.5;
  const toDelay = gain * delayAmount * 0.5;
  for (let i = 0; i < mix.left.length; i++) {
    const l = stem.left[i]!;
    const r = stem.right[i]!;
    mix.left[i]! += l * gain;
    mix.right[i]! += r * gain;
    reverbSend[i]! += (l + r) * toReverb;
    delaySend[i]! += (l + r) * toDelay;
  }
  stem.left.fill(0);
  stem.right.fill(0);
}

/** Ping-pong echo of `send` into `out`: left repeats on the right and back, each one darker. */
export function pingPongDelay(out: Stem, send: Float32Array, seconds: number, feedback: number, wet: number): void {
  const n = Math.max(1, Math.round(seconds * out.sampleRate));
  const lineL = new Float32Array(n);
  const lineR = new Float32Array(n);
  let dampL = 0;
  let dampR = 0;
  for (let i = 0; i < out.left.length; i++) {
    const j = i % n;
    const echoL = lineL[j]!;
    const echoR = lineR[j]!;
    dampL += 0.35 * (echoR - dampL);
    dampR += 0.35 * (echoL - dampR);
    lineL[j] = send[i]! + dampL * feedback;
    lineR[j] = dampR * feedback;
    out.left[i]! += echoL * wet;
    out.right[i]! += echoR * wet;
  }
}

const COMBS = [1116, 1188, 1277, 1356, 1422, 1491];
const ALLPASSES = [556, 441];

/** Freeverb-style reverb of `send`, added to `out`; `room` 0–1 sets the tail. */
export function reverb(out: Stem, send: Float32Array, room: number, wet: number): void {
  const sr = out.sampleRate;
  const scale = sr / 44100;
  const feedback = 0.72 + 0.2 * room;
  const damp = 0.3;
  for (const [channel, spread] of [
    [out.left, 0],
    [out.right, 23],
  ] as const) {
    const combs = COMBS.map((len) => ({ line: new Float32Array(Math.round((len + spread) * scale)), at: 0, store: 0 }));
    const passes = ALLPASSES.map((len) => ({ line: new Float32Array(Math.round((len + spread) * scale)), at: 0 }));
    for (let i = 0; i < channel.length; i++) {
      const input = send[i]! * 0.1;
      let sum = 0;
      for (const comb of combs) {
        const y = comb.line[comb.at]!;
        comb.store = y * (1 - damp) + comb.store * damp;
        comb.line[comb.at] = input + comb.store * feedback;
        comb.at = comb.at + 1 === comb.line.length ? 0 : comb.at + 1;
        sum += y;
      }
      for (const pass of passes) {
        const buffered = pass.line[pass.at]!;
        pass.line[pass.at] = sum + buffered * 0.5;
        sum = buffered - sum;
        pass.at = pass.at + 1 === pass.line.length ? 0 : pass.at + 1;
      }
      channel[i]! += sum * wet;
    }
  }
}

/**
 * The master chain, in place: DC block, loudness to a target RMS, a soft knee that keeps peaks
 * below full scale, and raised-cosine fades at both ends.
 */
export function master(mix: Stem, fadeIn: number, fadeOut: number): void {
  const sr = mix.sampleRate;
  const frames = mix.left.length;
  let energy = 0;
  for (const channel of [mix.left, mix.right]) {
    let x1 = 0;
    let y1 = 0;
    for (let i = 0; i < frames; i++) {
      const y = channel[i]! - x1 + 0.9995 * y1;
      x1 = channel[i]!;
      y1 = y;
      channel[i] = y;
      energy += y * y;
    }
  }
  const rms = Math.sqrt(energy / Math.max(1, 2 * frames));
  const gain = rms > 1e-6 ? Math.min(8, 0.16 / rms) : 1;
  const fadeInFrames = Math.max(1, Math.round(fadeIn * sr));
  const fadeOutFrames = Math.max(1, Math.round(fadeOut * sr));
  for (const channel of [mix.left, mix.right]) {
    for (let i = 0; i < frames; i++) {
      let v = channel[i]! * gain;
      const magnitude = Math.abs(v);
      if (magnitude > 0.6) v = Math.sign(v) * (0.6 + 0.38 * Math.tanh((magnitude - 0.6) / 0.38));
      if (i < fadeInFrames) v *= (1 - Math.cos((Math.PI * i) / fadeInFrames)) / 2;
      const left = frames - 1 - i;
      if (left < fadeOutFrames) v *= (1 - Math.cos((Math.PI * left) / fadeOutFrames)) / 2;
      channel[i] = v;
    }
  }
}
