// The instruments: each renders its notes into a stereo stem. Every note has an attack and a
// release of a few milliseconds at least, so nothing starts or stops with a click.
import type { PluckTone } from "./music-params";
import type { NoteEvent } from "./music-score";

export interface Stem {
  left: Float32Array;
  right: Float32Array;
  sampleRate: number;
}

export function emptyStem(frames: number, sampleRate: number): Stem {
  return { left: new Float32Array(frames), right: new Float32Array(frames), sampleRate };
}

export const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** Equal-power gains for a pan from -1 (left) to 1 (right). */
export function panGains(pan: number): [number, number] {
  const angle = ((pan + 1) * Math.PI) / 4;
  return [Math.cos(angle), Math.sin(angle)];
}

/** Linear attack, then held, then an exponential-ish release after `hold` seconds. */
function envelope(t: number, attack: number, hold: number, release: number): number {
  if (t < attack) return t / attack;
  if (t < hold) return 1;
  const r = (t - hold) / release;
  return r >= 1 ? 0 : (1 - r) * (1 - r);
}

/**
 * A sine oscillator by rotating a unit vector: two multiply-adds a sample instead of Math.sin,
 * renormalized now and then so rounding never lets it grow or fade.
 */
export class Rotor {
  sin = 0;
  cos = 1;
  private cs = 1;
  private sn = 0;
  private count = 0;
  constructor(cyclesPerSample: number) {
    this.setRate(cyclesPerSample);
  }
  setRate(cyclesPerSample: number): void {
    this.cs = Math.cos(2 * Math.PI * cyclesPerSample);
    this.sn = Math.sin(2 * Math.PI * cyclesPerSample);
  }
  step(): void {
    const s = this.sin * this.cs + this.cos * this.sn;
    const c = this.cos * this.cs - this.sin * this.sn;
    this.sin = s;
    this.cos = c;
    if (++this.count === 256) {
      this.count = 0;
      const norm = 1 / Math.sqrt(s * s + c * c);
      this.sin *= norm;
      this.cos *= norm;
    }
  }
}

/** Band-limited sawtooth step (PolyBLEP), phase in [0, 1). */
function saw(phase: number, dt: number): number {
  let v = 2 * phase - 1;
  if (phase < dt) {
    const t = phase / dt;
    v -= t + t - t * t - 1;
  } else if (phase > 1 - dt) {
    const t = (phase - 1) / dt;
    v -= t * t + t + t + 1;
  }
  return v;
}

/** Warm pad: two detuned saws per note, one to each side; the mixer's filter softens them. */
export function renderPad(stem: Stem, notes: NoteEvent[], attack: number, release: number): void {
  const sr = stem.sampleRate;
  for (const note of notes) {
    const start = Math.round(note.time * sr);
    const end = Math.min(stem.left.length, start + Math.round((note.dur + release) * sr));
    const dl = (hz(note.midi) * 2 ** (-7 / 1200)) / sr;
    const dr = (hz(note.midi) * 2 ** (7 / 1200)) / sr;
    // Start the phases apart so stacked notes do not all begin with the same edge.
    let pl = (note.midi * 0.137) % 1;
    let pr = (note.midi * 0.291) % 1;
    const gain = note.vel * 0.16;
    for (let i = start; i < end; i++) {
      const e = gain * envelope((i - start) / sr, attack, note.dur, release);
      stem.left[i]! += saw(pl, dl) * e;
      stem.right[i]! += saw(pr, dr) * e;
      pl += dl;
      if (pl >= 1) pl -= 1;
      pr += dr;
      if (pr >= 1) pr -= 1;
    }
  }
}

/** Round bass: a sine with a little second harmonic, gently saturated. */
export function renderBass(stem: Stem, notes: NoteEvent[], attack: number, release: number): void {
  const sr = stem.sampleRate;
  for (const note of notes) {
    const start = Math.round(note.time * sr);
    const end = Math.min(stem.left.length, start + Math.round((note.dur + release) * sr));
    const rotor = new Rotor(hz(note.midi) / sr);
    for (let i = start; i < end; i++) {
      rotor.step();
      const x = 1.6 * rotor.sin + 0.6 * rotor.sin * rotor.cos;
      // tanh's Padé approximant: the same gentle saturation at a fraction of the cost.
      const shaped = (x * (27 + x * x)) / (27 + 9 * x * x);
      const v = shaped * 0.18 * note.vel * envelope((i - start) / sr, attack, note.dur, release);
      stem.left[i]! += v;
      stem.right[i]! += v;
    }
  }
}

/** Karplus–Strong string: a noise burst circulating in a tuned, slightly lossy delay line. */
function pluckString(
  out: Float32Array,
  length: number,
  freq: number,
  sr: number,
  random: () => number,
  brightness: number,
  t60: number,
): void {
  // The loop delays by n - 0.5 samples (averaging the two oldest) plus the all-pass's d.
  const period = sr / freq + 0.5;
  let n = Math.floor(period);
  let d = period - n;
  if (d < 0.1) {
    n -= 1;
    d += 1;
  }
  const c = (1 - d) / (1 + d);
  const loss = 10 ** (-3 / (t60 * freq));
  const line = new Float32Array(n);
  let lp = 0;
  const soft = 0.25 + 0.6 * brightness;
  for (let i = 0; i < n; i++) {
    lp += soft * (random() * 2 - 1 - lp);
    line[i] = lp;
  }
  let idx = 0;
  let x1 = 0;
  let y1 = 0;
  const fade = Math.round(0.02 * sr);
  for (let k = 0; k < length; k++) {
    const current = line[idx]!;
    const avg = 0.5 * (current + line[(idx + 1) % n]!) * loss;
    const y = c * avg + x1 - c * y1;
    x1 = avg;
    y1 = y;
    line[idx] = y;
    idx = (idx + 1) % n;
    out[k]! += current * (k < 32 ? k / 32 : 1) * (k > length - fade ? (length - k) / fade : 1);
  }
}

/** Bell partials: ratio to the fundamental, level, and decay as a share of the fundamental's. */
const CHIME = [
  [1, 1, 1],
  [2, 0.35, 0.6],
  [2.76, 0.3, 0.45],
  [4.07, 0.15, 0.3],
  [5.4, 0.1, 0.2],
] as const;

/** Bell or chime: inharmonic sine partials struck together, the higher ones fading first. */
function chime(buf: Float32Array, length: number, f: number, sr: number, longest: number): void {
  const partials = CHIME.filter(([ratio]) => f * ratio < sr / 3).map(([ratio, level, share]) => ({
    rotor: new Rotor((f * ratio) / sr),
    level,
    k: Math.exp(-1 / (Math.min(0.9, longest) * share * sr)),
  }));
  const attackFrames = 0.003 * sr;
  const tailFrames = 0.02 * sr;
  for (let k = 0; k < length; k++) {
    let v = 0;
    for (const partial of partials) {
      partial.rotor.step();
      v += partial.rotor.sin * partial.level;
      partial.level *= partial.k;
    }
    buf[k] = v * 0.7 * Math.min(1, k / attackFrames, (length - k) / tailFrames);
  }
}

/**
 * Keys (sine partials, the upper ones dying first) or synth (saw through a closing low-pass).
 * Decays are per-sample multipliers: exp() per sample would be the slowest part of the render.
 */
function synthesize(
  buf: Float32Array,
  length: number,
  tone: "keys" | "synth",
  f: number,
  sr: number,
  brightness: number,
  longest: number,
): void {
  const decay = (seconds: number) => Math.exp(-1 / (Math.min(seconds, longest) * sr));
  const [k1, k2, k3] = tone === "keys" ? [decay(1.1), decay(0.4), decay(0.15)] : [decay(0.35), decay(0.12), 1];
  let e1 = 1;
  let e2 = 1;
  let e3 = 1;
  let phase = 0;
  let low = 0;
  const rotor = new Rotor(f / sr);
  const attackFrames = 0.004 * sr;
  const tailFrames = 0.02 * sr;
  const sweep = (2 * Math.PI * (1500 + 3500 * brightness)) / sr;
  const floor = (2 * Math.PI * 400) / sr;
  for (let k = 0; k < length; k++) {
    let v: number;
    if (tone === "keys") {
      rotor.step();
      const s = rotor.sin;
      v = s * e1 + 0.7 * s * rotor.cos * e2 + 0.15 * s * (3 - 4 * s * s) * e3;
      e3 *= k3;
    } else {
      phase += f / sr;
      if (phase >= 1) phase -= 1;
      const x = floor + sweep * e2;
      low += (x / (1 + x)) * (saw(phase, f / sr) - low);
      v = low * e1;
    }
    e1 *= k1;
    e2 *= k2;
    buf[k] = v * Math.min(1, k / attackFrames, (length - k) / tailFrames);
  }
}

/** Levels that put the four tones at about the same loudness. */
const PLUCK_LEVEL: Record<PluckTone, number> = { harp: 1.2, keys: 0.2, bell: 0.38, synth: 0.3 };

/** Plucked notes (arpeggios): harp string, electric-piano keys, bell or filtered synth. */
export function renderPluck(
  stem: Stem,
  notes: NoteEvent[],
  tone: PluckTone,
  brightness: number,
  random: () => number,
): void {
  const sr = stem.sampleRate;
  const scratch = new Float32Array(Math.round(2.5 * sr));
  notes.forEach((note, index) => {
    const start = Math.round(note.time * sr);
    // Quick notes ring shorter and die away faster, so runs of sixteenths neither pile up voices
    // (the cost) nor get cut off while still loud.
    const ring = Math.min(tone === "bell" ? 2.5 : 2.2, note.dur * 4 + 0.5);
    const length = Math.min(stem.left.length - start, Math.round(ring * sr));
    if (length <= 0) return;
    const buf = scratch.subarray(0, length).fill(0);
    const f = hz(note.midi);
    if (tone === "harp") pluckString(buf, length, f, sr, random, brightness, ring);
    else if (tone === "bell") chime(buf, length, f, sr, ring / 3.5);
    else synthesize(buf, length, tone, f, sr, brightness, ring / 3.5);
    const [gl, gr] = panGains(index % 2 ? 0.35 : -0.35);
    const gain = note.vel * PLUCK_LEVEL[tone];
    for (let k = 0; k < length; k++) {
      stem.left[start + k]! += buf[k]! * gain * gl;
      stem.right[start + k]! += buf[k]! * gain * gr;
    }
  });
}

/** A soft, breathy lead: sine with a touch of harmonics and a vibrato that blooms after the attack. */
export function renderLead(stem: Stem, notes: NoteEvent[]): void {
  const sr = stem.sampleRate;
  const release = 0.25;
  for (const note of notes) {
    const start = Math.round(note.time * sr);
    const end = Math.min(stem.left.length, start + Math.round((note.dur + release) * sr));
    const f = hz(note.midi) / sr;
    const rotor = new Rotor(f);
    const [gl, gr] = panGains(0.1);
    for (let i = start; i < end; i++) {
      const t = (i - start) / sr;
      if ((i - start) % 64 === 0)
        rotor.setRate(f * (1 + 0.004 * Math.min(1, t / 0.4) * Math.sin(2 * Math.PI * 5.2 * t)));
      rotor.step();
      const { sin: s, cos: c } = rotor;
      const s2 = 2 * s * c;
      const s3 = s * (3 - 4 * s * s);
      const v = (s + 0.22 * s2 + 0.08 * s3) * 0.22 * note.vel * envelope(t, 0.04, note.dur, release);
      stem.left[i]! += v * gl;
      stem.right[i]! += v * gr;
    }
  }
}
