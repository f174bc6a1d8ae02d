// The score: a chord progression in the chosen mode, and the notes and drum hits each layer plays
// over it, with layers entering one by one on longer pieces so the music builds.
import { seededRandom } from "../common/random";
import { MODES, type Mode, type MusicParams } from "./music-params";

export interface NoteEvent {
  /** Seconds from the start. */
  time: number;
  /** Seconds the note is held (its release rings on past it). */
  dur: number;
  midi: number;
  /** 0–1. */
  vel: number;
}

export type DrumKind = "kick" | "snare" | "clap" | "hat" | "openhat" | "shaker";
export interface DrumHit {
  time: number;
  kind: DrumKind;
  vel: number;
}

export interface Score {
  pad: NoteEvent[];
  bass: NoteEvent[];
  arp: NoteEvent[];
  melody: NoteEvent[];
  drums: DrumHit[];
  /** Seconds per beat, for tempo-synced delay. */
  beat: number;
}

/** Progressions as scale degrees (0 = tonic); each avoids the mode's diminished chord. */
const PROGRESSIONS: Record<Mode, number[][]> = {
  ionian: [
    [0, 4, 5, 3],
    [0, 5, 3, 4],
    [0, 3, 5, 4],
    [5, 3, 0, 4],
    [0, 3, 0, 4],
  ],
  aeolian: [
    [0, 5, 2, 6],
    [0, 3, 5, 4],
    [0, 6, 5, 6],
    [0, 5, 3, 4],
    [0, 2, 6, 5],
  ],
  dorian: [
    [0, 3, 0, 3],
    [0, 6, 3, 0],
    [0, 2, 3, 6],
    [0, 3, 6, 4],
  ],
  phrygian: [
    [0, 1, 0, 1],
    [0, 1, 6, 0],
    [0, 6, 5, 1],
    [0, 3, 1, 0],
  ],
  lydian: [
    [0, 1, 0, 1],
    [0, 1, 4, 0],
    [0, 4, 1, 0],
    [0, 1, 5, 4],
  ],
  mixolydian: [
    [0, 6, 3, 0],
    [0, 6, 0, 3],
    [0, 3, 6, 0],
    [0, 4, 6, 3],
  ],
};

const BASS_PATTERNS = [
  // [eighth, length in eighths, scale step above the root: 0 root, 4 fifth, 7 octave]
  [
    [0, 3, 0],
    [3, 1, 0],
    [4, 3, 0],
    [7, 1, 4],
  ],
  [
    [0, 2, 0],
    [2, 2, 0],
    [4, 2, 4],
    [6, 2, 7],
  ],
  [
    [0, 5, 0],
    [5, 1, 0],
    [6, 2, 4],
  ],
];

/**
 * Start time of sixteenth `step` of a bar starting at t0. Swing pushes the off-beat eighths late
 * and the sixteenths between them half as much; every part uses it, so they lilt together.
 */
function stepTime(t0: number, step: number, beat: number, swing: number): number {
  const lateness = step % 4 === 2 ? 1 : step % 2 === 1 ? 0.5 : 0;
  return t0 + ((step + lateness * swing) * beat) / 4;
}

/** The MIDI note of pitch class `pc` nearest to `center`. */
function near(pc: number, center: number): number {
  return center + ((((pc - center) % 12) + 18) % 12) - 6;
}

export function composeScore(params: MusicParams, duration: number, seed: number): Score {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const scale = MODES[params.mode].map((step) => (params.tonic + step) % 12);
  const degreePc = (degree: number) => scale[((degree % 7) + 7) % 7]!;
  const beat = 60 / params.bpm;
  const bar = beat * 4;
  const barsPerChord = params.bpm >= 118 ? 2 : 1;
  const chordSpan = bar * barsPerChord;
  const bars = Math.ceil(duration / bar);
  const progressions = [pick(PROGRESSIONS[params.mode]), pick(PROGRESSIONS[params.mode])];
  // Sevenths colour the slow and jazzy moods; bright major pieces keep plain triads.
  const sevenths = params.swing > 0 || params.energy < 0.3 ? 0.8 : 0.25;
  // On long pieces the layers enter one after another; short ones start together.
  const enters = (barIndex: number) => (bars >= 10 ? barIndex : 0);
  const score: Score = { pad: [], bass: [], arp: [], melody: [], drums: [], beat };
  const rhythm = Array.from({ length: 8 }, (_, i) => i % 4 === 0 || random() < (params.energy > 0.5 ? 0.55 : 0.35));
  const contour = Array.from({ length: 8 }, () => pick([-2, -1, -1, 1, 1, 2, 0]));
  const arpShape = pick(["up", "down", "updown", "spread"] as const);
  const bassPattern = pick(BASS_PATTERNS);
  let melodyNote = near(scale[0]!, 74);

  for (let c = 0; c * chordSpan < duration; c++) {
    const start = c * chordSpan;
    const section = Math.floor(c / 4) % 2;
    const degree = progressions[section]![c % 4]!;
    const tones = [0, 2, 4].map((step) => degreePc(degree + step));
    if (random() < sevenths) tones.push(degreePc(degree + 6));
    const voicing = tones.map((pc) => near(pc, 62)).sort((a, b) => a - b);
    for (const midi of voicing) score.pad.push({ time: start, dur: chordSpan, midi, vel: 0.7 });
    const root = near(tones[0]!, 41);

    for (let b = 0; b < barsPerChord; b++) {
      const barIndex = c * barsPerChord + b;
      const t0 = start + b * bar;
      if (t0 >= duration) break;
      if (params.layers.bass && barIndex >= enters(1)) {
        if (params.energy < 0.3) score.bass.push({ time: t0, dur: bar, midi: root, vel: 0.8 });
        else if (params.energy >= 0.85) {
          for (let e = 0; e < 8; e++)
            score.bass.push({
              time: stepTime(t0, e * 2, beat, params.swing),
              dur: beat / 2.5,
              midi: root + (e === 7 ? 12 : 0),
              vel: e % 2 ? 0.9 : 0.6,
            });
        } else {
          for (const [at, length, step] of bassPattern) {
            const midi = step === 7 ? root + 12 : step === 4 ? near(degreePc(degree + 4), root + 6) : root;
            score.bass.push({
              time: stepTime(t0, at! * 2, beat, params.swing),
              dur: (length! * beat) / 2 - 0.02,
              midi,
              vel: at === 0 ? 0.9 : 0.7,
            });
          }
        }
      }
      if (params.layers.arp && barIndex >= enters(2)) {
        const perBeat = params.energy >= 0.75 ? 4 : params.energy >= 0.3 ? 2 : 1;
        const pool = [...voicing.map((m) => m + 12), voicing[0]! + 24];
        const order =
          arpShape === "down"
            ? [...pool].reverse()
            : arpShape === "updown"
              ? [...pool, ...pool.slice(1, -1).reverse()]
              : pool;
        for (let s = 0; s < 4 * perBeat; s++) {
          const midi = arpShape === "spread" ? pool[(s * 3) % pool.length]! : order[s % order.length]!;
          const accent = s % perBeat === 0 ? 1 : 0.7;
          score.arp.push({
            time: stepTime(t0, (s * 4) / perBeat, beat, params.swing),
            dur: beat / perBeat,
            midi,
            vel: accent * (0.75 + random() * 0.25),
          });
        }
      }
      // The melody sings in four-bar phrases and rests for four, so it never drones on.
      if (
        params.layers.melody &&
        barIndex >= enters(4) &&
        (bars < 10 || Math.floor((barIndex - 4) / 4) % 2 === 0 || barIndex >= bars - 4)
      ) {
        const unit = params.energy < 0.3 ? beat : beat / 2;
        for (let s = 0; s < 8; s++) {
          if (!rhythm[s] || s * unit >= bar) continue;
          melodyNote += contour[(s + barIndex) % 8]!;
          melodyNote = Math.max(67, Math.min(86, melodyNote));
          // Strong beats land on a chord tone, weak ones on the nearest scale note.
          const pcs = s % 4 === 0 ? tones : scale;
          const snapped = pcs
            .map((pc) => near(pc, melodyNote))
            .sort((a, b) => Math.abs(a - melodyNote) - Math.abs(b - melodyNote))[0]!;
          melodyNote = snapped;
          let length = 1;
          while (s + length < 8 && !rhythm[s + length]) length++;
          score.melody.push({
            time: stepTime(t0, (s * unit * 4) / beat, beat, params.swing),
            dur: Math.min(length, 3) * unit * 0.9,
            midi: snapped,
            vel: 0.6 + random() * 0.3,
          });
        }
      }
      if (params.layers.drums && barIndex >= enters(4) && !(bars >= 10 && barIndex === bars - 1))
        addDrums(score, params, t0, beat, random);
    }
  }
  return score;
}

function addDrums(score: Score, params: MusicParams, t0: number, beat: number, random: () => number): void {
  const hit = (step: number, kind: DrumKind, vel: number) =>
    score.drums.push({ time: stepTime(t0, step, beat, params.swing), kind, vel });
  if (params.energy >= 0.75) {
    for (const s of [0, 4, 8, 12]) hit(s, "kick", 1);
    for (const s of [4, 12]) hit(s, "clap", 0.8);
    for (let s = 2; s < 16; s += 4) hit(s, random() < 0.25 ? "openhat" : "hat", 0.7);
    for (let s = 1; s < 16; s += 2) hit(s, "hat", 0.25 + random() * 0.15);
  } else if (params.energy >= 0.25 || params.swing > 0) {
    hit(0, "kick", 1);
    hit(random() < 0.5 ? 7 : 10, "kick", 0.8);
    for (const s of [4, 12]) hit(s, "snare", 0.7);
    for (let s = 0; s < 16; s += 2) hit(s, "hat", s % 4 === 0 ? 0.5 : 0.35 + random() * 0.15);
    if (random() < 0.3) hit(15, "snare", 0.25);
  } else {
    hit(0, "kick", 0.7);
    for (const s of [4, 12]) hit(s, "shaker", 0.5);
    hit(8, "kick", 0.45);
  }
}
