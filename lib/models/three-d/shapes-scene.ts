// Builds the scene of atelier/shapes-3d from a read prompt: which objects, in what colours and
// finishes, arranged how, on a round plinth, scaled so the plinth is `size` metres across.
// The prompt decides what is built; the seed only turns, nudges and (when the prompt leaves it
// open) chooses, so two seeds of one prompt are recognisably the same scene.
import { hashWord, seededRandom } from "../common/random";
import { extent, placed } from "./geometry";
import { arch, egg, pyramid, roundedBox, sphere, stairs, torus, turned, vase, type Detail } from "./primitives";
import type { DetailLevel } from "./fields";
import { linearRgb, type Geometry, type Material, type Part } from "./scene";
import {
  COLOURS,
  MAX_OBJECTS,
  SHAPES,
  type Arrangement,
  type Finish,
  type PromptPlan,
  type Shape,
} from "./shapes-words";

const DETAILS: Record<DetailLevel, Detail> = {
  low: { radial: 24, arc: 3 },
  medium: { radial: 48, arc: 6 },
  high: { radial: 96, arc: 12 },
};

const FINISHES: Record<Finish, { metallic: number; roughness: number; alpha: number }> = {
  metal: { metallic: 1, roughness: 0.22, alpha: 1 },
  matte: { metallic: 0, roughness: 0.85, alpha: 1 },
  glossy: { metallic: 0, roughness: 0.16, alpha: 1 },
  glass: { metallic: 0, roughness: 0.05, alpha: 0.45 },
  satin: { metallic: 0, roughness: 0.45, alpha: 1 },
};

function shapeGeometry(shape: Shape, d: Detail): Geometry {
  switch (shape) {
    case "cube":
      return roundedBox([0.9, 0.9, 0.9], 0.08, d);
    case "box":
      return roundedBox([1.3, 0.6, 0.8], 0.07, d);
    case "sphere":
      return sphere(0.5, d);
    case "egg":
      return egg(0.4, 1.35, d);
    case "cylinder":
      return turned(
        [
          [0, 0],
          [0.42, 0],
          [0.42, 0.9],
          [0, 0.9],
        ],
        0.05,
        d,
      );
    case "pillar":
      return turned(
        [
          [0, 0],
          [0.42, 0],
          [0.42, 0.12],
          [0.3, 0.12],
          [0.27, 1.45],
          [0.4, 1.45],
          [0.4, 1.6],
          [0, 1.6],
        ],
        0.03,
        d,
      );
    case "tower":
      return turned(
        [
          [0, 0],
          [0.38, 0],
          [0.38, 1.25],
          [0.47, 1.25],
          [0, 1.95],
        ],
        0.03,
        d,
      );
    case "cone":
      return turned(
        [
          [0, 0],
          [0.5, 0],
          [0, 1.05],
        ],
        0.04,
        d,
      );
    case "spire":
      return turned(
        [
          [0, 0],
          [0.33, 0],
          [0.33, 0.14],
          [0.26, 0.14],
          [0, 1.75],
        ],
        0.03,
        d,
      );
    case "torus":
      return torus(0.36, 0.16, d);
    case "pyramid":
      return pyramid(1, 0.75);
    case "capsule":
      return turned(
        [
          [0, 0],
          [0.3, 0],
          [0.3, 1.1],
          [0, 1.1],
        ],
        0.3,
        d,
      );
    case "arch":
      return arch(d);
    case "stairs":
      return stairs(5, d);
    case "vase":
      return vase(d);
  }
}

/** "#rrggbb" from hue (degrees), saturation and lightness (0–1). */
function hsl(h: number, s: number, l: number): string {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const v = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

interface Thing {
  shape: Shape;
  /** Stands in the middle of a circle. */
  centre: boolean;
  material: Material;
  scale: number;
  x: number;
  y: number;
  z: number;
  yaw: number;
}

function materialFor(name: string, hex: string, finish: Finish): Material {
  const f = FINISHES[finish];
  return {
    name: `${name} ${finish}`,
    color: [...linearRgb(hex), f.alpha],
    metallic: f.metallic,
    roughness: f.roughness,
    blend: f.alpha < 1,
  };
}

/** The objects the prompt asks for, each with its material; unknown words choose when none are named. */
function things(plan: PromptPlan, random: () => number): Thing[] {
  const groups = plan.groups.length
    ? plan.groups
    : (plan.others.length ? plan.others.slice(0, 3) : [String(random())]).map((word, i) => ({
        shape: SHAPES[hashWord(word) % SHAPES.length]!,
        count: i === 0 ? (plan.count ?? 1 + (hashWord(`${word}#`) % 3)) : 1,
        plural: false,
        colours: [] as string[],
        finish: undefined,
        centre: false,
      }));
  const theme = plan.others.length ? hashWord(plan.others.join(" ")) : Math.floor(random() * 2 ** 32);
  const baseHue = theme % 360;
  const defaultFinish: Finish = (["satin", "glossy", "satin", "matte"] as const)[(theme >>> 9) % 4]!;
  const out: Thing[] = [];
  const materials = new Map<string, Material>();
  // Over the limit, the largest groups give way, so every named shape keeps at least one.
  const counts = groups.map((g) => g.count ?? (g.plural ? 3 + Math.floor(random() * 3) : 1));
  while (counts.reduce((a, b) => a + b, 0) > MAX_OBJECTS) counts[counts.indexOf(Math.max(...counts))]! -= 1;
  groups.forEach((group, gi) => {
    // Its own colours, else the scene's (all of them when it is the only group), else hashed ones.
    const scene = plan.colours.length
      ? groups.length === 1
        ? plan.colours
        : [plan.colours[gi % plan.colours.length]!]
      : [];
    const named = group.colours.length ? group.colours : scene;
    const hexes = named.length
      ? named.map((c) => COLOURS[c]!.hex)
      : [hsl((baseHue + [0, 150, 40, 210, 90][gi % 5]!) % 360, 0.62, 0.56 + 0.04 * (gi % 2))];
    const finish = group.finish ?? plan.finish ?? defaultFinish;
    for (let i = 0; i < counts[gi]! && out.length < MAX_OBJECTS; i++) {
      const hex = hexes[i % hexes.length]!;
      const name = named[i % Math.max(1, named.length)] ?? hex;
      const key = `${name} ${finish}`;
      if (!materials.has(key)) materials.set(key, materialFor(name, hex, finish));
      out.push({
        shape: group.shape,
        centre: group.centre === true,
        material: materials.get(key)!,
        scale: 1,
        x: 0,
        y: 0,
        z: 0,
        yaw: (random() - 0.5) * 1.2,
      });
    }
  });
  return out;
}

/** Positions things on the plinth's top (y = 0 here), centred on the axis. */
function arrange(
  list: Thing[],
  arrangement: Arrangement,
  size: (t: Thing) => { radius: number; height: number },
  random: () => number,
): void {
  const widest = Math.max(...list.map((t) => size(t).radius));
  const n = list.length;
  if (arrangement === "single") return;
  if (arrangement === "stack") {
    let y = 0;
    list.forEach((t, i) => {
      t.scale = 0.92 ** i;
      [t.x, t.y, t.z] = [(random() - 0.5) * 0.06, y, (random() - 0.5) * 0.06];
      y += size(t).height;
    });
  } else if (arrangement === "row") {
    const widths = list.map((t) => size(t).radius * 2 + 0.22);
    let x = -widths.reduce((a, b) => a + b, 0) / 2;
    list.forEach((t, i) => {
      [t.x, t.z] = [x + widths[i]! / 2, (random() - 0.5) * 0.1];
      x += widths[i]!;
    });
  } else if (arrangement === "circle") {
    // What was named after "around" stands in the middle (side by side if several), the rest round it.
    const middle = list.filter((t) => t.centre && list.some((o) => !o.centre));
    const ring = list.filter((t) => !middle.includes(t));
    const middleWidth = middle.reduce((sum, t) => sum + size(t).radius * 2 + 0.1, 0);
    middle.forEach(
      (t, i) =>
        (t.x =
          -middleWidth / 2 +
          middle.slice(0, i).reduce((sum, o) => sum + size(o).radius * 2 + 0.1, 0) +
          size(t).radius +
          0.05),
    );
    const m = ring.length;
    const spaced = m === 1 ? 0 : m === 2 ? widest * 1.2 : (widest * 1.15) / Math.sin(Math.PI / m);
    const radius = Math.max(spaced, middle.length ? middleWidth / 2 + widest * 1.25 : 0);
    const turn = random() * Math.PI * 2;
    ring.forEach((t, i) => {
      const a = turn + (2 * Math.PI * i) / m;
      [t.x, t.z] = [radius * Math.cos(a), radius * Math.sin(a)];
    });
  } else if (arrangement === "grid") {
    const cols = Math.ceil(Math.sqrt(n));
    const rows = Math.ceil(n / cols);
    const step = widest * 2.3;
    list.forEach((t, i) => {
      [t.x, t.z] = [((i % cols) - (cols - 1) / 2) * step, (Math.floor(i / cols) - (rows - 1) / 2) * step];
    });
  } else {
    // Scatter: sizes vary, and each thing takes the first free spot the seed offers.
    list.forEach((t) => (t.scale = 0.65 + random() * 0.45));
    let reach = widest * Math.sqrt(n) * 1.1;
    const placedSoFar: Thing[] = [];
    for (const t of list) {
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0 && attempt % 60 === 0) reach *= 1.15;
        const [a, r] = [random() * Math.PI * 2, Math.sqrt(random()) * reach];
        [t.x, t.z] = [r * Math.cos(a), r * Math.sin(a)];
        const free = placedSoFar.every(
          (o) => Math.hypot(o.x - t.x, o.z - t.z) > (size(o).radius + size(t).radius) * 1.08,
        );
        if (free) break;
      }
      placedSoFar.push(t);
    }
  }
}

export function buildShapesScene(
  plan: PromptPlan,
  options: { seed: number; detail: DetailLevel; size: number; prompt: string },
): Part[] {
  const random = seededRandom((options.seed ^ hashWord(options.prompt.trim())) >>> 0);
  const detail = DETAILS[options.detail];
  const list = things(plan, random);
  const geometries = new Map<Shape, { geometry: Geometry; radius: number; height: number }>();
  const base = (shape: Shape) => {
    let entry = geometries.get(shape);
    if (!entry) {
      const geometry = shapeGeometry(shape, detail);
      let radius = 0;
      for (let i = 0; i < geometry.positions.length; i += 3)
        radius = Math.max(radius, Math.hypot(geometry.positions[i]!, geometry.positions[i + 2]!));
      entry = { geometry, radius, height: extent(geometry).max[1] };
      geometries.set(shape, entry);
    }
    return entry;
  };
  const size = (t: Thing) => ({ radius: base(t.shape).radius * t.scale, height: base(t.shape).height * t.scale });
  const arrangement: Arrangement =
    list.length === 1
      ? "single"
      : (plan.arrangement ??
        (["row", "circle", "scatter", list.length >= 4 ? "grid" : "row"] as const)[Math.floor(random() * 4)]!);
  arrange(list, arrangement, size, random);

  // The plinth: a little wider than everything on it, two tiers, in a quiet neutral.
  const reach = Math.max(...list.map((t) => Math.hypot(t.x, t.z) + size(t).radius));
  const plinthRadius = reach * 1.12 + 0.12;
  const plinthHeight = 0.12 + plinthRadius * 0.04;
  const k = options.size / (2 * plinthRadius);
  const lightObjects = list.every((t) => t.material.color.slice(0, 3).every((c) => c > 0.6));
  const plinthMaterial = materialFor(
    "Plinth",
    lightObjects ? "#4a4d55" : (["#e8e3da", "#dde1e6", "#e6dfd4"] as const)[hashWord(options.prompt) % 3]!,
    "matte",
  );
  plinthMaterial.name = "Plinth";
  const r = plinthRadius;
  const outline: Array<[number, number]> = [
    [0, 0],
    [r, 0],
    [r, plinthHeight * 0.62],
    [r - 0.05, plinthHeight * 0.62],
    [r - 0.05, plinthHeight],
    [0, plinthHeight],
  ];
  const parts: Part[] = [
    {
      name: "plinth",
      translation: [0, 0, 0],
      primitives: [{ geometry: placed(turned(outline, 0.02, detail), { scale: [k, k, k] }), material: plinthMaterial }],
    },
  ];
  list.forEach((t, i) => {
    const s = t.scale * k;
    parts.push({
      name: `${t.shape}-${i + 1}`,
      translation: [t.x * k, (t.y + plinthHeight) * k, t.z * k],
      primitives: [
        { geometry: placed(base(t.shape).geometry, { scale: [s, s, s], yaw: t.yaw }), material: t.material },
      ],
    });
  });
  return parts;
}
