// The words atelier/shapes-3d understands. Shape words make objects; a number, colour or
// material word just before a shape word belongs to that shape ("two red cubes and a glass
// sphere"); the rest apply to the whole scene. Words it does not know are kept: their hashes
// choose shapes and colours when the prompt names none, so every prompt builds something.

export const SHAPES = [
  "cube",
  "box",
  "sphere",
  "egg",
  "cylinder",
  "pillar",
  "tower",
  "cone",
  "spire",
  "torus",
  "pyramid",
  "capsule",
  "arch",
  "stairs",
  "vase",
] as const;
export type Shape = (typeof SHAPES)[number];

const SHAPE_WORDS: Record<string, Shape> = {
  cube: "cube",
  block: "cube",
  dice: "cube",
  die: "cube",
  box: "box",
  brick: "box",
  crate: "box",
  slab: "box",
  sphere: "sphere",
  ball: "sphere",
  orb: "sphere",
  globe: "sphere",
  planet: "sphere",
  bubble: "sphere",
  pearl: "sphere",
  marble: "sphere",
  egg: "egg",
  pebble: "egg",
  cylinder: "cylinder",
  can: "cylinder",
  drum: "cylinder",
  disc: "cylinder",
  disk: "cylinder",
  puck: "cylinder",
  pillar: "pillar",
  column: "pillar",
  pedestal: "pillar",
  tower: "tower",
  turret: "tower",
  silo: "tower",
  lighthouse: "tower",
  cone: "cone",
  tree: "cone",
  mountain: "cone",
  hill: "cone",
  spire: "spire",
  steeple: "spire",
  needle: "spire",
  obelisk: "spire",
  torus: "torus",
  tori: "torus",
  ring: "torus",
  donut: "torus",
  doughnut: "torus",
  bagel: "torus",
  hoop: "torus",
  pyramid: "pyramid",
  tetrahedron: "pyramid",
  capsule: "capsule",
  pill: "capsule",
  bean: "capsule",
  arch: "arch",
  gate: "arch",
  gateway: "arch",
  portal: "arch",
  bridge: "arch",
  stair: "stairs",
  stairs: "stairs",
  step: "stairs",
  staircase: "stairs",
  vase: "vase",
  urn: "vase",
  vessel: "vase",
  pot: "vase",
  jar: "vase",
  bottle: "vase",
};

export type Arrangement = "single" | "stack" | "circle" | "row" | "scatter" | "grid";

const ARRANGEMENT_WORDS: Record<string, Exclude<Arrangement, "single">> = {
  stack: "stack",
  stacked: "stack",
  pile: "stack",
  piled: "stack",
  cairn: "stack",
  balanced: "stack",
  tower: "stack",
  totem: "stack",
  ring: "circle",
  circle: "circle",
  circular: "circle",
  around: "circle",
  surrounding: "circle",
  encircling: "circle",
  orbit: "circle",
  round: "circle",
  wreath: "circle",
  row: "row",
  line: "row",
  lined: "row",
  queue: "row",
  parade: "row",
  sequence: "row",
  procession: "row",
  scatter: "scatter",
  scattered: "scatter",
  cluster: "scatter",
  group: "scatter",
  bunch: "scatter",
  random: "scatter",
  field: "scatter",
  heap: "scatter",
  grid: "grid",
  array: "grid",
  checkerboard: "grid",
  matrix: "grid",
};

/** sRGB colours; metals also say so, since gold is as much a material as a colour. */
export const COLOURS: Record<string, { hex: string; metal?: boolean }> = {
  red: { hex: "#d8322f" },
  crimson: { hex: "#b3152e" },
  scarlet: { hex: "#e0301e" },
  maroon: { hex: "#7a1f2b" },
  ruby: { hex: "#c0143c" },
  orange: { hex: "#f07a1a" },
  amber: { hex: "#f2a516" },
  tangerine: { hex: "#f48a26" },
  coral: { hex: "#f26b5b" },
  peach: { hex: "#f7b38a" },
  yellow: { hex: "#f4cf2c" },
  lemon: { hex: "#f5e04a" },
  mustard: { hex: "#d6a726" },
  gold: { hex: "#e8b547", metal: true },
  golden: { hex: "#e8b547", metal: true },
  brass: { hex: "#d3ad5c", metal: true },
  bronze: { hex: "#b07a3e", metal: true },
  copper: { hex: "#d0784a", metal: true },
  silver: { hex: "#cfd3d8", metal: true },
  chrome: { hex: "#e4e7eb", metal: true },
  steel: { hex: "#a9b0b8", metal: true },
  iron: { hex: "#6f7378", metal: true },
  lime: { hex: "#9ccc3a" },
  green: { hex: "#3aa35a" },
  emerald: { hex: "#1f9d6b" },
  olive: { hex: "#7d8a3a" },
  mint: { hex: "#8fdcc0" },
  sage: { hex: "#9cb59a" },
  forest: { hex: "#2f6b3f" },
  teal: { hex: "#1a9a96" },
  cyan: { hex: "#2ec4d6" },
  turquoise: { hex: "#35c2b0" },
  aqua: { hex: "#46d2d8" },
  blue: { hex: "#2c66d8" },
  navy: { hex: "#1c2c66" },
  cobalt: { hex: "#2447b8" },
  azure: { hex: "#3c8ef0" },
  sky: { hex: "#79b9f2" },
  ocean: { hex: "#1f6fa8" },
  sapphire: { hex: "#1d4fa8" },
  indigo: { hex: "#4a3aa8" },
  purple: { hex: "#7b46c6" },
  violet: { hex: "#8d5ad8" },
  lavender: { hex: "#b7a3e6" },
  lilac: { hex: "#c6a2dc" },
  plum: { hex: "#7d3a6e" },
  pink: { hex: "#f07ab0" },
  magenta: { hex: "#d0309a" },
  rose: { hex: "#e8607e" },
  fuchsia: { hex: "#d43fb4" },
  brown: { hex: "#8a5634" },
  chocolate: { hex: "#5e3a24" },
  tan: { hex: "#c9a477" },
  beige: { hex: "#dccbaa" },
  sand: { hex: "#d9c28f" },
  terracotta: { hex: "#c46a45" },
  cream: { hex: "#f1e8d0" },
  ivory: { hex: "#f4efe2" },
  white: { hex: "#f3f2ee" },
  snow: { hex: "#f7f8fa" },
  black: { hex: "#1e1f22" },
  charcoal: { hex: "#34363b" },
  obsidian: { hex: "#17161c" },
  grey: { hex: "#8c9097" },
  gray: { hex: "#8c9097" },
  slate: { hex: "#5b6573" },
};

export type Finish = "metal" | "matte" | "glossy" | "glass" | "satin";

const FINISH_WORDS: Record<string, Finish> = {
  metal: "metal",
  metallic: "metal",
  chrome: "metal",
  steel: "metal",
  iron: "metal",
  brushed: "metal",
  mirror: "metal",
  polished: "metal",
  matte: "matte",
  matt: "matte",
  clay: "matte",
  stone: "matte",
  concrete: "matte",
  chalk: "matte",
  plaster: "matte",
  rubber: "matte",
  felt: "matte",
  sandstone: "matte",
  wood: "matte",
  wooden: "matte",
  glossy: "glossy",
  gloss: "glossy",
  plastic: "glossy",
  shiny: "glossy",
  lacquer: "glossy",
  lacquered: "glossy",
  ceramic: "glossy",
  porcelain: "glossy",
  candy: "glossy",
  toy: "glossy",
  glass: "glass",
  crystal: "glass",
  ice: "glass",
  translucent: "glass",
  transparent: "glass",
  jelly: "glass",
  satin: "satin",
  soft: "satin",
  velvet: "satin",
};

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  lone: 1,
  two: 2,
  pair: 2,
  couple: 2,
  twin: 2,
  both: 2,
  three: 3,
  trio: 3,
  few: 3,
  four: 4,
  five: 5,
  several: 5,
  six: 6,
  seven: 7,
  many: 8,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  dozen: 12,
};

/** Most objects one scene holds, so every prompt stays quick to build and to look at. */
export const MAX_OBJECTS = 12;

const STOP_WORDS = new Set([
  "the",
  "of",
  "and",
  "with",
  "on",
  "in",
  "at",
  "to",
  "for",
  "by",
  "from",
  "some",
  "made",
  "into",
  "over",
  "under",
  "near",
  "beside",
  "next",
  "top",
  "its",
  "their",
  "is",
  "are",
  "very",
]);

export interface ShapeGroup {
  shape: Shape;
  /** Null: not said; a plural gets a few, a singular one. */
  count: number | null;
  plural: boolean;
  /** Colour words said just before it: its objects take them in turn. */
  colours: string[];
  finish?: Finish;
  /** Named after "around": it stands in the middle of the others. */
  centre?: boolean;
}

export interface PromptPlan {
  groups: ShapeGroup[];
  arrangement: Arrangement | null;
  /** Colours and finishes not tied to a shape: they go to the shapes that have none. */
  colours: string[];
  finish?: Finish;
  /** Words it did not know, for hashing. */
  others: string[];
  /** A number said with no shape after it ("7"): how many of whatever the words choose. */
  count?: number;
}

function known(word: string): boolean {
  return (
    Object.hasOwn(SHAPE_WORDS, word) ||
    Object.hasOwn(ARRANGEMENT_WORDS, word) ||
    Object.hasOwn(COLOURS, word) ||
    Object.hasOwn(FINISH_WORDS, word) ||
    Object.hasOwn(NUMBER_WORDS, word)
  );
}

/** Lower-case words with a plural's "s" or "es" taken off; `plural` says whether one was. */
export function words(prompt: string): Array<{ word: string; plural: boolean }> {
  return (prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((raw) => {
    const stems = [raw.replace(/es$/, ""), raw.replace(/s$/, "")].filter((s) => s !== raw && s.length >= 3);
    const stem = known(raw)
      ? undefined
      : (stems.find(known) ?? (raw.length > 3 && /[^su]s$/.test(raw) ? raw.slice(0, -1) : undefined));
    return stem ? { word: stem, plural: true } : { word: raw, plural: false };
  });
}

/** "tower" and "ring" name a shape, unless they say how others stand: "a ring of cubes", "spheres in a ring". */
function arranges(list: ReadonlyArray<{ word: string }>, i: number): boolean {
  const word = list[i]!.word;
  if (!Object.hasOwn(ARRANGEMENT_WORDS, word)) return false;
  if (!Object.hasOwn(SHAPE_WORDS, word)) return true;
  const near = [list[i - 1]?.word, list[i - 2]?.word];
  return list[i + 1]?.word === "of" || near.some((w) => w === "in" || w === "into" || w === "as" || w === "forming");
}

/** Reads the prompt into shape groups and scene-wide choices. */
export function readPrompt(prompt: string): PromptPlan {
  const list = words(prompt);
  const plan: PromptPlan = { groups: [], arrangement: null, colours: [], others: [] };
  let pending: { count?: number; article?: boolean; colours: string[]; finish?: Finish } = { colours: [] };
  let centre = false;
  list.forEach(({ word, plural }, i) => {
    const digits = /^\d+$/.test(word) ? Number(word) : undefined;
    if (word === "around" || word === "surrounding" || word === "encircling") centre = true;
    if (arranges(list, i)) {
      plan.arrangement ??= ARRANGEMENT_WORDS[word]!;
      if (pending.article) pending = { ...pending, count: undefined, article: undefined };
    } else if (Object.hasOwn(SHAPE_WORDS, word)) {
      // "a" counts one only for a singular: "a ring of cubes" is not one cube.
      const count = pending.article && plural ? undefined : pending.count;
      plan.groups.push({
        shape: SHAPE_WORDS[word]!,
        count: count ?? null,
        plural: plural || (count ?? 1) > 1,
        colours: pending.colours,
        finish: pending.finish,
        centre,
      });
      pending = { colours: [] };
    } else if (digits !== undefined || Object.hasOwn(NUMBER_WORDS, word)) {
      pending.count = Math.max(1, Math.min(MAX_OBJECTS, digits ?? NUMBER_WORDS[word]!));
      pending.article = word === "a" || word === "an";
    } else if (Object.hasOwn(COLOURS, word)) {
      pending.colours.push(word);
      if (COLOURS[word]!.metal) pending.finish ??= "metal";
    } else if (Object.hasOwn(FINISH_WORDS, word)) {
      if (pending.finish && pending.finish !== "metal") plan.finish ??= pending.finish;
      pending.finish = FINISH_WORDS[word];
    } else if (!STOP_WORDS.has(word)) {
      plan.others.push(word);
    }
  });
  // Words after the last shape ("cubes in red glass") describe the scene as a whole.
  plan.colours.push(...pending.colours);
  if (pending.count !== undefined && !pending.article) plan.count = pending.count;
  if (pending.finish) plan.finish ??= pending.finish;
  return plan;
}
