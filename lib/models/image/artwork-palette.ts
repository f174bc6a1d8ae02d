// Prompt words → colours for atelier/artwork. A small lexicon of colour and mood words gives
// hand-tuned hues so "ocean" reads as blue and "fire" as red; any other word still steers the
// palette through its hash, so every prompt has colours of its own.
import { hashWord } from "../common/random";

export interface Palette {
  /** Background gradient, top to bottom. */
  ground: [string, string];
  /** Shape colours, in the order the prompt asked for them. */
  inks: string[];
  /** A colour that stands out on the ground: specks, stars, crests, reflections. */
  light: string;
  /** Always luminous: the bloom around a sun or a mandala's centre. */
  glow: string;
  /** The sun or moon of the landscape compositions. */
  sun: string;
  /** True when the ground is dark: overlays lighten rather than darken. */
  dark: boolean;
}

type Ground = "light" | "dark" | "mid";

interface Mood {
  hues?: number[];
  sat?: number;
  light?: number;
  ground?: Ground;
}

const MOODS: Record<string, Mood> = {
  ocean: { hues: [200, 188, 222, 170], sat: 65, light: 48, ground: "mid" },
  sea: { hues: [195, 210, 175], sat: 60, light: 50, ground: "mid" },
  rain: { hues: [210, 200, 230], sat: 30, light: 55, ground: "mid" },
  sunset: { hues: [18, 38, 340, 285], sat: 82, light: 58, ground: "mid" },
  sunrise: { hues: [30, 48, 350, 200], sat: 78, light: 64, ground: "light" },
  dawn: { hues: [28, 340, 210], sat: 60, light: 70, ground: "light" },
  dusk: { hues: [265, 320, 25], sat: 55, light: 52, ground: "mid" },
  forest: { hues: [135, 95, 160, 38], sat: 45, light: 38, ground: "mid" },
  jungle: { hues: [120, 150, 60, 20], sat: 60, light: 38, ground: "mid" },
  neon: { hues: [312, 180, 268, 60], sat: 100, light: 58, ground: "dark" },
  cyber: { hues: [185, 300, 260], sat: 95, light: 55, ground: "dark" },
  night: { hues: [228, 258, 48], sat: 50, light: 45, ground: "dark" },
  midnight: { hues: [235, 265], sat: 55, light: 40, ground: "dark" },
  space: { hues: [262, 292, 205, 45], sat: 65, light: 55, ground: "dark" },
  cosmic: { hues: [275, 310, 195], sat: 70, light: 58, ground: "dark" },
  galaxy: { hues: [270, 320, 200], sat: 70, light: 58, ground: "dark" },
  fire: { hues: [6, 24, 44, 350], sat: 92, light: 52, ground: "dark" },
  lava: { hues: [8, 20, 0], sat: 95, light: 48, ground: "dark" },
  ice: { hues: [192, 205, 215, 180], sat: 55, light: 72, ground: "light" },
  winter: { hues: [205, 215, 190], sat: 35, light: 70, ground: "light" },
  snow: { hues: [210, 200], sat: 25, light: 80, ground: "light" },
  gold: { hues: [44, 36, 28], sat: 78, light: 55, ground: "dark" },
  desert: { hues: [32, 22, 14, 200], sat: 55, light: 62, ground: "light" },
  sand: { hues: [38, 28], sat: 45, light: 68, ground: "light" },
  autumn: { hues: [22, 36, 4, 48], sat: 72, light: 48, ground: "light" },
  spring: { hues: [100, 335, 52, 190], sat: 62, light: 66, ground: "light" },
  summer: { hues: [48, 190, 12], sat: 85, light: 58, ground: "light" },
  garden: { hues: [110, 340, 50], sat: 55, light: 55, ground: "light" },
  flower: { hues: [335, 290, 50, 110], sat: 65, light: 62, ground: "light" },
  rose: { hues: [345, 352, 330], sat: 65, light: 60, ground: "light" },
  love: { hues: [350, 335, 10], sat: 75, light: 56, ground: "light" },
  candy: { hues: [320, 190, 52, 280], sat: 80, light: 72, ground: "light" },
  tropical: { hues: [172, 48, 335, 95], sat: 80, light: 55, ground: "light" },
  storm: { hues: [215, 225, 50], sat: 22, light: 42, ground: "dark" },
  earth: { hues: [24, 36, 85, 12], sat: 38, light: 45, ground: "light" },
  coffee: { hues: [25, 30, 35], sat: 40, light: 38, ground: "light" },
  mint: { hues: [155, 165, 140], sat: 50, light: 68, ground: "light" },
  lavender: { hues: [268, 280, 250], sat: 45, light: 70, ground: "light" },
  retro: { hues: [28, 48, 175, 8], sat: 65, light: 55, ground: "light" },
  red: { hues: [0, 355] },
  orange: { hues: [26, 32] },
  yellow: { hues: [50, 46] },
  green: { hues: [128, 145] },
  teal: { hues: [176, 185] },
  cyan: { hues: [188] },
  blue: { hues: [218, 205] },
  purple: { hues: [275, 285] },
  violet: { hues: [265] },
  pink: { hues: [335, 345] },
  magenta: { hues: [305] },
  // Modifiers: they change the feel of whatever hues the other words bring.
  pastel: { sat: 55, light: 74, ground: "light" },
  soft: { sat: 40, light: 72, ground: "light" },
  muted: { sat: 28 },
  vivid: { sat: 95 },
  bright: { sat: 88, light: 60 },
  dark: { light: 38, ground: "dark" },
  deep: { light: 36, ground: "dark" },
  light: { light: 72, ground: "light" },
  mono: { sat: 0 },
  monochrome: { sat: 0 },
  grey: { sat: 0 },
  gray: { sat: 0 },
};

/** Words that steer something else (composition, motifs) or mean nothing, so they bring no colour. */
const COLOURLESS = new Set(
  "a an the and or of in on at to with for from by over under into my our your its this that is are be very some".split(
    " ",
  ),
);

export function promptWords(prompt: string): string[] {
  return (prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((word) =>
    word.length > 3 ? word.replace(/s$/, "") : word,
  );
}

function hsl(h: number, s: number, l: number): string {
  const hue = ((h % 360) + 360) % 360;
  return `hsl(${hue.toFixed(1)},${Math.max(0, Math.min(100, s)).toFixed(1)}%,${Math.max(0, Math.min(100, l)).toFixed(1)}%)`;
}

/**
 * The palette for a prompt. `ignore` holds words that already steer the layout; `random` only
 * nudges hues a little, so two seeds of one prompt stay recognisably the same colours.
 */
export function paletteFor(prompt: string, ignore: ReadonlySet<string>, random: () => number): Palette {
  const hues: number[] = [];
  let sat: number | undefined;
  let light: number | undefined;
  let ground: Ground | undefined;
  const unknown: string[] = [];
  for (const word of promptWords(prompt)) {
    const mood = Object.hasOwn(MOODS, word) ? MOODS[word] : undefined;
    if (!mood) {
      if (!COLOURLESS.has(word) && !ignore.has(word) && word.length > 2) unknown.push(word);
      continue;
    }
    hues.push(...(mood.hues ?? []));
    sat ??= mood.sat;
    light ??= mood.light;
    ground ??= mood.ground;
  }
  // Other words add their own hue, so "a fox" and "a kite" differ, but lexicon colours lead.
  for (const word of unknown.slice(0, hues.length >= 3 ? 1 : 3)) hues.push(hashWord(word) % 360);
  if (hues.length === 0) hues.push(Math.floor(random() * 360), Math.floor(random() * 360));
  if (hues.length === 1) hues.push(hues[0]! + 150 + random() * 60);

  const s = sat ?? 62 + random() * 20;
  const g: Ground = ground ?? (["light", "dark", "mid"] as const)[Math.floor(random() * 3)]!;
  // Inks keep their distance from the ground, or "snow" on a light ground would vanish.
  const l = Math.max(g === "dark" ? 48 : 0, Math.min(g === "light" ? 66 : 100, light ?? 50 + random() * 10));
  const jitter = () => (random() - 0.5) * 12;
  const base = hues[0]! + jitter();
  const inks = hues.slice(0, 6).map((h, i) => hsl(h + jitter(), s - (i % 2) * 8, l + ((i % 3) - 1) * 7));
  // A neutral-dark and a near-white ink give every palette contrast to draw with.
  const groundSat = s === 0 ? 0 : Math.min(s, 45);
  const groundColours: Record<Ground, [string, string]> = {
    light: [hsl(base + 20, groundSat * 0.6, 95), hsl(base, groundSat * 0.8, 86)],
    mid: [hsl(base + 25, groundSat + 10, Math.min(l + 18, 70)), hsl(base - 10, groundSat + 15, Math.max(l - 22, 18))],
    dark: [hsl(base + 15, groundSat + 10, 16), hsl(base - 15, groundSat + 5, 6)],
  };
  const lightGround = g === "light";
  return {
    ground: groundColours[g],
    inks,
    light: lightGround ? hsl(base + 180, s * 0.4, 24) : hsl(base + 30, s * 0.4, 94),
    glow: lightGround ? hsl(base + 40, 80, 98) : hsl(base + 30, s * 0.5, 92),
    sun: lightGround
      ? hsl(hues[0]! + 10, Math.max(s, 55), Math.min(l, 62))
      : hsl(hues[hues.length - 1]! + 20, s * 0.7, 86),
    dark: !lightGround,
  };
}
