// From a prompt to musical choices: key, mode, tempo, energy, which instruments play and which
// ambience sounds under them. Words vote; the prompt's hash settles what no word speaks to, and the
// seed only nudges (tempo jitter, instrument colour), so a prompt keeps its character across seeds.
import { hashWord, seededRandom } from "../common/random";

export type Mode = "ionian" | "dorian" | "phrygian" | "lydian" | "mixolydian" | "aeolian";
export type Texture = "rain" | "thunder" | "wind" | "ocean" | "forest" | "fire";
export type PluckTone = "harp" | "keys" | "bell" | "synth";

export interface MusicParams {
  /** Pitch class of the tonic, 0 = C. */
  tonic: number;
  mode: Mode;
  /** e.g. "D dorian", for descriptions and tests. */
  key: string;
  bpm: number;
  /** 0 = still and sparse, 1 = driving. */
  energy: number;
  /** 0 = dark and muffled, 1 = bright. */
  brightness: number;
  /** Reverb amount, 0–1. */
  space: number;
  /** How late the off-beat eighths fall, as a share of a sixteenth (lo-fi and jazz lilt). */
  swing: number;
  layers: { pad: boolean; bass: boolean; arp: boolean; melody: boolean; drums: boolean };
  pluck: PluckTone;
  textures: Texture[];
}

export const MODES: Record<Mode, number[]> = {
  ionian: [0, 2, 4, 5, 7, 9, 11],
  dorian: [0, 2, 3, 5, 7, 9, 10],
  phrygian: [0, 1, 3, 5, 7, 8, 10],
  lydian: [0, 2, 4, 6, 7, 9, 11],
  mixolydian: [0, 2, 4, 5, 7, 9, 10],
  aeolian: [0, 2, 3, 5, 7, 8, 10],
};

const NOTE_NAMES = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"];

interface Cue {
  mode?: Mode;
  /** 0 = slowest, 1 = fastest; a prompt's cues are averaged. */
  energy?: number;
  bright?: number;
  space?: number;
  swing?: number;
  drums?: boolean;
  arp?: boolean;
  melody?: boolean;
  pluck?: PluckTone;
  textures?: Texture[];
}

function cues(words: string, cue: Cue): Array<[string, Cue]> {
  return words.split(" ").map((w) => [w, cue]);
}

const LEXICON = new Map<string, Cue>([
  ...cues("calm peaceful serene tranquil gentle quiet soft soothing", { mode: "dorian", energy: 0.08, drums: false }),
  ...cues("slow relax relaxing relaxed sleep sleepy lullaby meditation meditative drone ambient", {
    energy: 0.05,
    drums: false,
    space: 0.8,
  }),
  ...cues("chill chilled mellow", { mode: "dorian", energy: 0.15 }),
  ...cues("lofi jazz jazzy smooth cozy coffee cafe study hiphop", {
    mode: "dorian",
    energy: 0.3,
    drums: true,
    swing: 0.3,
    bright: 0.35,
    pluck: "keys",
  }),
  ...cues("sad melancholy melancholic lonely sorrow grief tears nostalgic nostalgia gloomy blue longing", {
    mode: "aeolian",
    energy: 0.12,
  }),
  ...cues("dark ominous night midnight shadow shadows noir deep cold", { mode: "aeolian", bright: 0.15 }),
  ...cues("mysterious mystery eerie suspense tense haunted ancient desert exotic spooky strange", {
    mode: "phrygian",
    bright: 0.3,
    space: 0.7,
  }),
  ...cues("dreamy dream magical magic fantasy ethereal floating space cosmic stars wonder heavenly fairy", {
    mode: "lydian",
    space: 0.9,
    energy: 0.2,
  }),
  ...cues("happy sunny bright joyful joy cheerful summer morning hopeful uplifting playful fun spring sunrise love", {
    mode: "ionian",
    energy: 0.6,
    bright: 0.8,
  }),
  ...cues("adventure epic heroic folk groovy funky road journey", { mode: "mixolydian", energy: 0.6 }),
  ...cues("upbeat lively bouncy", { energy: 0.8, drums: true }),
  ...cues("energetic energy dance party fast workout running techno edm house club exciting action chase", {
    energy: 0.95,
    drums: true,
    bright: 0.7,
  }),
  ...cues("beat beats drums groove", { drums: true }),
  ...cues("arp arpeggio arpeggios sequence", { arp: true }),
  ...cues("melody tune song", { melody: true }),
  ...cues("harp guitar pluck plucked strings koto", { pluck: "harp", arp: true }),
  ...cues("piano keys rhodes", { pluck: "keys", arp: true }),
  ...cues("bell bells chime chimes crystal glass twinkle musicbox", { pluck: "bell", arp: true }),
  ...cues("synth synthwave retro electronic", { pluck: "synth", arp: true }),
  ...cues("rain rainy raining drizzle raindrops", { textures: ["rain"], mode: "aeolian", energy: 0.15 }),
  ...cues("storm stormy thunder thunderstorm", {
    textures: ["rain", "thunder", "wind"],
    mode: "aeolian",
    bright: 0.3,
    energy: 0.3,
  }),
  ...cues("wind windy breeze mountain mountains winter snow blizzard arctic", { textures: ["wind"], energy: 0.2 }),
  ...cues("ocean sea waves wave beach shore coast tide seaside underwater", {
    textures: ["ocean"],
    space: 0.8,
    energy: 0.15,
  }),
  ...cues("forest birds bird nature jungle woods garden meadow", { textures: ["forest"], energy: 0.25 }),
  ...cues("fire fireplace campfire crackling hearth cabin", { textures: ["fire"], bright: 0.35, energy: 0.2 }),
  ...cues("silent", { drums: false }),
]);

/** Lower-case words, with the usual two-word spellings joined ("lo fi" → "lofi"). */
function wordsOf(prompt: string): string[] {
  return (
    prompt
      .toLowerCase()
      .replace(/\blo[\s-]?fi\b/g, "lofi")
      .replace(/\bhip[\s-]?hop\b/g, "hiphop")
      .replace(/\bmusic[\s-]?box\b/g, "musicbox")
      .replace(/\bno (drums|beats?|percussion)\b/g, "silent")
      .match(/[a-z]+/g) ?? []
  );
}

/** "in F# minor", "A major", "Eb minor": an explicit key wins over the words' votes. */
function explicitKey(prompt: string): { tonic: number; mode: Mode } | null {
  const match = /\b([a-g])(#|b|-sharp|-flat| sharp| flat)?[\s-]+(major|minor)\b/i.exec(prompt);
  if (!match) return null;
  const base = { c: 0, d: 2, e: 4, f: 5, g: 7, a: 9, b: 11 }[match[1]!.toLowerCase() as "c"];
  const accidental = match[2]?.trim().replace("-", "") ?? "";
  const shift = accidental === "#" || accidental === "sharp" ? 1 : accidental === "b" || accidental === "flat" ? -1 : 0;
  return { tonic: (base + shift + 12) % 12, mode: match[3]!.toLowerCase() === "major" ? "ionian" : "aeolian" };
}

function average(values: number[], fallback: number): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : fallback;
}

/** The musical choices for a prompt and seed; `tempo` (bpm), when given, overrides the words. */
export function chooseMusicParams(prompt: string, seed: number, tempo?: number): MusicParams {
  const words = wordsOf(prompt);
  const found = words.map((w) => LEXICON.get(w)).filter((c): c is Cue => c !== undefined);
  const promptHash = hashWord(words.join(" ") || "music");
  const random = seededRandom(seed ^ promptHash);
  const last = <K extends keyof Cue>(key: K): Cue[K] | undefined =>
    [...found].reverse().find((c) => c[key] !== undefined)?.[key];

  const votes = new Map<Mode, number>();
  for (const cue of found) if (cue.mode) votes.set(cue.mode, (votes.get(cue.mode) ?? 0) + 1);
  const voted = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const key = explicitKey(prompt);
  const energy = average(
    found.flatMap((c) => (c.energy === undefined ? [] : [c.energy])),
    0.45,
  );
  // No mood word: the prompt's hash picks among the modes that suit its energy.
  const fallback: Mode[] =
    energy >= 0.6 ? ["aeolian", "ionian", "dorian", "mixolydian"] : ["aeolian", "dorian", "ionian", "lydian"];
  const mode = key?.mode ?? voted ?? fallback[(promptHash >>> 8) % fallback.length]!;
  const tonic = key?.tonic ?? promptHash % 12;
  const bpm = tempo ?? Math.round(60 + energy * 80 + (random() - 0.5) * 8);
  const brightness = average(
    found.flatMap((c) => (c.bright === undefined ? [] : [c.bright])),
    0.5,
  );
  const space = Math.max(
    average(
      found.flatMap((c) => (c.space === undefined ? [] : [c.space])),
      0.5,
    ),
    energy > 0.7 ? 0.3 : 0.45,
  );
  const swing = average(
    found.flatMap((c) => (c.swing === undefined ? [] : [c.swing])),
    0,
  );
  const textures = [...new Set(found.flatMap((c) => c.textures ?? []))];

  const drums = last("drums") ?? energy >= 0.4;
  const arp = last("arp") ?? (energy >= 0.3 || random() < 0.5);
  const melody = last("melody") ?? (energy >= 0.25 || random() < 0.6);
  const pluck = last("pluck") ?? (energy >= 0.85 ? "synth" : random() < 0.5 ? "harp" : "keys");

  return {
    tonic,
    mode,
    key: `${NOTE_NAMES[tonic]} ${key && mode === "aeolian" ? "minor" : key ? "major" : mode}`,
    bpm: Math.max(40, Math.min(200, bpm)),
    energy,
    brightness,
    space,
    swing,
    layers: { pad: true, bass: true, arp, melody, drums },
    pluck,
    textures,
  };
}
