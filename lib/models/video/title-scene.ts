// The title sequence as a function of time: a drifting gradient of the prompt's colours, shapes
// floating up, and the title's lines rising into place. Everything random comes from the seed,
// so a frame is a pure function of (input, seed, t).
import { paletteFromPrompt } from "../image/gradient-render";
import { seededRandom } from "../common/random";
import type { TitleLayout, TitleLine } from "./title-text";

interface Hsl {
  h: number;
  s: number;
  l: number;
}

interface Blob {
  colour: Hsl;
  radius: number;
  /** Centre as a share of the frame, moving on a slow Lissajous path. */
  amplitude: [number, number];
  frequency: [number, number];
  phase: [number, number];
}

type ShapeKind = "ring" | "dot" | "orb" | "square" | "triangle";

interface Shape {
  kind: ShapeKind;
  x: number;
  y: number;
  size: number;
  /** Upward drift in frame heights per second. */
  rise: number;
  sway: number;
  swayFrequency: number;
  phase: number;
  rotation: number;
  spin: number;
  opacity: number;
  colour: string;
}

export interface Scene {
  width: number;
  height: number;
  duration: number;
  colours: Hsl[];
  angle: number;
  blobs: Blob[];
  shapes: Shape[];
  accent: Hsl;
  title: TitleLayout | null;
}

const css = (c: Hsl) => `hsl(${c.h.toFixed(1)}, ${c.s.toFixed(1)}%, ${c.l.toFixed(1)}%)`;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const easeOutCubic = (x: number) => 1 - (1 - clamp01(x)) ** 3;
const easeInOut = (x: number) => 0.5 - 0.5 * Math.cos(Math.PI * clamp01(x));

/** The gradient model's palette (same words, same colours), as numbers to shade. */
export function promptColours(prompt: string): Hsl[] {
  const colours = paletteFromPrompt(prompt).map((c) => {
    const [h, s, l] = (c.match(/[\d.]+/g) ?? ["0", "60", "50"]).map(Number);
    return { h: h!, s: s!, l: l! };
  });
  // One word still deserves a gradient: add a neighbouring hue.
  if (colours.length === 1) colours.push({ ...colours[0]!, h: (colours[0]!.h + 40) % 360 });
  return colours;
}

/**
 * Hues that glow on a dark ground, in wheel order. A hue is mapped onto them smoothly, except
 * that olive and yellow-green (muddy when dark) are jumped over.
 */
const GLOWING_HUES = [340, 355, 10, 25, 40, 150, 170, 185, 200, 215, 230, 250, 270, 290, 310, 325];

function glowingHue(hue: number): number {
  const at = (((hue % 360) + 360) % 360) / (360 / GLOWING_HUES.length);
  const i = Math.floor(at);
  const from = GLOWING_HUES[i]!;
  const to = GLOWING_HUES[(i + 1) % GLOWING_HUES.length]!;
  const step = ((to - from + 540) % 360) - 180;
  if (Math.abs(step) > 45) return at - i < 0.5 ? from : to;
  return (from + step * (at - i) + 360) % 360;
}

/**
 * Glowing hues drawn toward the first word's (to within about 70°, so they blend instead of
 * clash); a hue that lands among the muddy ones goes to the nearer edge of them.
 */
function harmonise(colours: Hsl[]): Hsl[] {
  const hues = colours.map((c) => glowingHue(c.h));
  const first = hues[0]!;
  return colours.map((c, i) => {
    const h = (first + (((hues[i]! - first + 540) % 360) - 180) / 2.5 + 360) % 360;
    return { ...c, h: h > 40 && h < 150 ? (h < 95 ? 40 : 150) : h };
  });
}

export function createScene(options: {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  duration: number;
  title: TitleLayout | null;
}): Scene {
  const random = seededRandom(options.seed);
  const range = (a: number, b: number) => a + random() * (b - a);
  // Few, vivid, related hues over a deep base: many clashing colours average out to mud.
  const hues = harmonise(promptColours(options.prompt).slice(0, 4));
  const blobs = Array.from({ length: Math.max(3, hues.length) }, (_, i): Blob => {
    const c = hues[i % hues.length]!;
    return {
      // Yellows and greens look brighter than blues at the same lightness.
      colour: { h: c.h, s: Math.max(80, c.s), l: 50 + (c.l % 10) - (c.h > 40 && c.h < 190 ? 10 : 0) },
      radius: range(0.32, 0.5),
      amplitude: [range(0.3, 0.42), range(0.28, 0.4)],
      frequency: [range(0.04, 0.08), range(0.035, 0.07)],
      phase: [range(0, 2 * Math.PI), range(0, 2 * Math.PI)],
    };
  });
  const kinds: ShapeKind[] = ["ring", "ring", "ring", "dot", "dot", "dot", "orb", "orb", "square", "triangle"];
  const light = hues.map((c) => css({ h: c.h, s: Math.max(c.s, 70), l: 82 }));
  const shapes = Array.from({ length: 12 + Math.floor(random() * 6) }, (): Shape => {
    const kind = kinds[Math.floor(random() * kinds.length)]!;
    const size = {
      ring: range(0.025, 0.07),
      dot: range(0.005, 0.012),
      orb: range(0.04, 0.1),
      square: range(0.02, 0.045),
      triangle: range(0.025, 0.055),
    }[kind];
    return {
      kind,
      x: random(),
      y: random(),
      size,
      rise: range(0.025, 0.08),
      sway: range(0.005, 0.025),
      swayFrequency: range(0.1, 0.3),
      phase: range(0, 2 * Math.PI),
      rotation: range(0, 360),
      spin: range(-40, 40),
      opacity: kind === "orb" ? range(0.12, 0.22) : range(0.3, 0.6),
      colour: random() < 0.5 ? "#ffffff" : light[Math.floor(random() * light.length)]!,
    };
  });
  return {
    width: options.width,
    height: options.height,
    duration: options.duration,
    colours: hues,
    angle: range(0, 360),
    blobs,
    shapes,
    accent: { h: (hues[0]!.h + 150) % 360, s: 90, l: 66 },
    title: options.title,
  };
}

/** The soft layer: gradient, glowing blobs, vignette, the title's shadow. Drawn small (`w`×`h`) and enlarged by ffmpeg. */
export function backgroundSvg(scene: Scene, t: number, w: number, h: number): string {
  const { width: W, height: H } = scene;
  const angle = ((scene.angle + 9 * t) * Math.PI) / 180;
  const reach = Math.hypot(W, H) / 2;
  const [dx, dy] = [Math.cos(angle) * reach, Math.sin(angle) * reach];
  const base = scene.colours.slice(0, 3).map((c, i) => ({ h: c.h, s: Math.max(60, c.s), l: 7 + (i % 2) * 5 }));
  const stops = base
    .map((c, i) => `<stop offset="${(i / (base.length - 1)).toFixed(3)}" stop-color="${css(c)}"/>`)
    .join("");
  const size = Math.max(W, H);
  const defs: string[] = [];
  const circles: string[] = [];
  scene.blobs.forEach((b, i) => {
    const cx = W * (0.5 + b.amplitude[0] * Math.sin(2 * Math.PI * b.frequency[0] * t + b.phase[0]));
    const cy = H * (0.5 + b.amplitude[1] * Math.sin(2 * Math.PI * b.frequency[1] * t + b.phase[1]));
    defs.push(
      `<radialGradient id="b${i}"><stop offset="0" stop-color="${css(b.colour)}" stop-opacity="0.95"/><stop offset="0.45" stop-color="${css(b.colour)}" stop-opacity="0.45"/><stop offset="1" stop-color="${css(b.colour)}" stop-opacity="0"/></radialGradient>`,
    );
    circles.push(
      `<circle cx="${cx.toFixed(2)}" cy="${cy.toFixed(2)}" r="${(b.radius * size).toFixed(2)}" fill="url(#b${i})"/>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">
<defs><linearGradient id="g" gradientUnits="userSpaceOnUse" x1="${(W / 2 - dx).toFixed(2)}" y1="${(H / 2 - dy).toFixed(2)}" x2="${(W / 2 + dx).toFixed(2)}" y2="${(H / 2 + dy).toFixed(2)}">${stops}</linearGradient>
<radialGradient id="shade"><stop offset="0" stop-color="#000" stop-opacity="0.3"/><stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient>
<radialGradient id="v" cx="0.5" cy="0.5" r="0.75"><stop offset="0.45" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.6"/></radialGradient>${defs.join("")}</defs>
<rect width="${W}" height="${H}" fill="url(#g)"/>${circles.join("")}<rect width="${W}" height="${H}" fill="url(#v)"/>${titleShade(scene, t)}</svg>`;
}

function shapeSvg(shape: Shape, t: number, W: number, H: number): string {
  const unit = Math.min(W, H);
  const r = shape.size * unit;
  const margin = r * 2 + 4;
  // Risen past the top, a shape comes back in at the bottom.
  const span = H + 2 * margin;
  const y = ((((shape.y * H - shape.rise * H * t + margin) % span) + span) % span) - margin;
  const x = shape.x * W + shape.sway * W * Math.sin(2 * Math.PI * shape.swayFrequency * t + shape.phase);
  const stroke = Math.max(1.5, unit * 0.0035).toFixed(2);
  const at = `transform="translate(${x.toFixed(2)} ${y.toFixed(2)}) rotate(${(shape.rotation + shape.spin * t).toFixed(2)})"`;
  const line = `fill="none" stroke="${shape.colour}" stroke-width="${stroke}" stroke-opacity="${shape.opacity.toFixed(2)}"`;
  switch (shape.kind) {
    case "ring":
      return `<circle ${at} r="${r.toFixed(2)}" ${line}/>`;
    case "dot":
      return `<circle ${at} r="${r.toFixed(2)}" fill="${shape.colour}" fill-opacity="${shape.opacity.toFixed(2)}"/>`;
    case "orb":
      return `<circle ${at} r="${r.toFixed(2)}" fill="url(#orb)" opacity="${shape.opacity.toFixed(2)}"/>`;
    case "square":
      return `<rect ${at} x="${(-r).toFixed(2)}" y="${(-r).toFixed(2)}" width="${(2 * r).toFixed(2)}" height="${(2 * r).toFixed(2)}" rx="${(r * 0.25).toFixed(2)}" ${line}/>`;
    case "triangle": {
      const points = [0, 120, 240]
        .map(
          (a) => `${(r * Math.sin((a * Math.PI) / 180)).toFixed(2)},${(-r * Math.cos((a * Math.PI) / 180)).toFixed(2)}`,
        )
        .join(" ");
      return `<polygon ${at} points="${points}" ${line} stroke-linejoin="round"/>`;
    }
  }
}

/** Times of the title's entrance, scaled down for short videos. */
export function titleTiming(scene: Scene): {
  start: number;
  stagger: number;
  lineDuration: number;
  accentStart: number;
  settled: number;
} {
  const d = scene.duration;
  const lines = scene.title?.lines.length ?? 0;
  const start = Math.min(0.25, d * 0.08);
  const stagger = Math.min(0.2, d * 0.06);
  const lineDuration = Math.min(1, d * 0.3);
  const accentStart = start + lines * stagger + lineDuration * 0.4;
  return { start, stagger, lineDuration, accentStart, settled: accentStart + lineDuration * 0.8 };
}

interface PlacedLine {
  line: TitleLine;
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
  opacity: number;
}

/** Where the title's parts are at `t`: each line rises and fades in after the one before. */
function placeTitle(scene: Scene, t: number) {
  const title = scene.title;
  if (!title || title.lines.length === 0) return null;
  const { width: W, height: H } = scene;
  const timing = titleTiming(scene);
  const lineStep = title.fontSize * 1.12;
  const sized = title.lines.map((line) => {
    const scale = Math.min(1, (W * 0.84) / line.width);
    return { line, scale, width: line.width * scale, height: line.height * scale };
  });
  const blockHeight = (sized.length - 1) * lineStep + sized[sized.length - 1]!.height;
  const barGap = title.fontSize * 0.42;
  const barHeight = Math.max(3, title.fontSize * 0.08);
  const top = H * (H > W ? 0.46 : 0.5) - (blockHeight + barGap + barHeight) / 2;
  const lines: PlacedLine[] = sized.map((s, i) => {
    const p = easeOutCubic((t - timing.start - i * timing.stagger) / timing.lineDuration);
    return { ...s, x: (W - s.width) / 2, y: top + i * lineStep + (1 - p) * title.fontSize * 0.55, opacity: p };
  });
  const grow = easeInOut((t - timing.accentStart) / (timing.lineDuration * 0.8));
  const barWidth = Math.min(W * 0.16, Math.max(title.fontSize * 1.5, ...sized.map((s) => s.width * 0.45))) * grow;
  return {
    lines,
    shadowPad: title.shadowPad,
    fontSize: title.fontSize,
    centreY: top + blockHeight / 2,
    blockHeight,
    settle: easeOutCubic((t - timing.start) / (timing.settled - timing.start)),
    bar: { x: (W - barWidth) / 2, y: top + blockHeight + barGap, width: barWidth, height: barHeight },
  };
}

const png = (data: Buffer) => `data:image/png;base64,${data.toString("base64")}`;

/** The title's soft parts, which belong to the small layer: a darkening behind it and the letters' shadows. */
function titleShade(scene: Scene, t: number): string {
  const placed = placeTitle(scene, t);
  if (!placed) return "";
  const W = scene.width;
  const parts = [
    `<ellipse cx="${W / 2}" cy="${placed.centreY.toFixed(2)}" rx="${(W * 0.5).toFixed(2)}" ry="${(placed.blockHeight * 0.9 + placed.fontSize).toFixed(2)}" fill="url(#shade)" opacity="${placed.settle.toFixed(3)}"/>`,
  ];
  for (const l of placed.lines) {
    if (l.opacity <= 0) continue;
    const pad = placed.shadowPad * l.scale;
    parts.push(
      `<image href="${png(l.line.shadow)}" x="${(l.x - pad).toFixed(2)}" y="${(l.y - pad + placed.fontSize * 0.06).toFixed(2)}" width="${(l.width + 2 * pad).toFixed(2)}" height="${(l.height + 2 * pad).toFixed(2)}" opacity="${(0.6 * l.opacity).toFixed(3)}" preserveAspectRatio="none"/>`,
    );
  }
  return parts.join("");
}

/** The title's crisp parts: the letters and the accent bar. */
function titleSvg(scene: Scene, t: number): string {
  const placed = placeTitle(scene, t);
  if (!placed) return "";
  const parts = placed.lines
    .filter((l) => l.opacity > 0)
    .map(
      (l) =>
        `<image href="${png(l.line.png)}" x="${l.x.toFixed(2)}" y="${l.y.toFixed(2)}" width="${l.width.toFixed(2)}" height="${l.height.toFixed(2)}" opacity="${l.opacity.toFixed(3)}" preserveAspectRatio="none"/>`,
    );
  const bar = placed.bar;
  if (bar.width > 0.5) {
    parts.push(
      `<rect x="${bar.x.toFixed(2)}" y="${bar.y.toFixed(2)}" width="${bar.width.toFixed(2)}" height="${bar.height.toFixed(2)}" rx="${(bar.height / 2).toFixed(2)}" fill="${css(scene.accent)}"/>`,
    );
  }
  return parts.join("");
}

/** The sharp layer at full size on transparent: floating shapes and the title. */
export function foregroundSvg(scene: Scene, t: number): string {
  const { width: W, height: H } = scene;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
<defs><radialGradient id="orb"><stop offset="0" stop-color="#fff" stop-opacity="0.9"/><stop offset="0.6" stop-color="#fff" stop-opacity="0.35"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
${scene.shapes.map((s) => shapeSvg(s, t, W, H)).join("")}${titleSvg(scene, t)}</svg>`;
}
