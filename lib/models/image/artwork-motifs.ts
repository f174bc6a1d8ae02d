// The shapes atelier/artwork draws with. Each motif is centred on (x, y) and about `size`
// across, so any composition can place any motif.

export const MOTIFS = [
  "circle",
  "ring",
  "triangle",
  "star",
  "square",
  "wave",
  "dots",
  "mountain",
  "flower",
  "arc",
] as const;
export type Motif = (typeof MOTIFS)[number];

/** Prompt words (already singular) that ask for a motif. */
export const MOTIF_WORDS: Record<string, Motif> = {
  circle: "circle",
  orb: "circle",
  bubble: "circle",
  ball: "circle",
  planet: "circle",
  moon: "circle",
  sun: "circle",
  ring: "ring",
  halo: "ring",
  triangle: "triangle",
  pyramid: "triangle",
  prism: "triangle",
  star: "star",
  sparkle: "star",
  twinkle: "star",
  square: "square",
  box: "square",
  block: "square",
  cube: "square",
  tile: "square",
  line: "wave",
  stroke: "wave",
  zigzag: "wave",
  thread: "wave",
  squiggle: "wave",
  dot: "dots",
  point: "dots",
  confetti: "dots",
  pebble: "dots",
  mountain: "mountain",
  peak: "mountain",
  hill: "mountain",
  alp: "mountain",
  flower: "flower",
  petal: "flower",
  bloom: "flower",
  blossom: "flower",
  daisy: "flower",
  arc: "arc",
  rainbow: "arc",
  bridge: "arc",
};

export interface Paint {
  fill: string;
  opacity: number;
  /** Colour for strokes and details (waves, snowcaps). */
  accent: string;
}

const f = (n: number) => n.toFixed(1);

function polygon(points: Array<[number, number]>, paint: Paint, extra = ""): string {
  return `<polygon points="${points.map(([px, py]) => `${f(px)},${f(py)}`).join(" ")}" fill="${paint.fill}" fill-opacity="${paint.opacity.toFixed(2)}"${extra}/>`;
}

function starPoints(
  x: number,
  y: number,
  outer: number,
  inner: number,
  tips: number,
  rotation: number,
): Array<[number, number]> {
  return Array.from({ length: tips * 2 }, (_, i) => {
    const r = i % 2 === 0 ? outer : inner;
    const a = rotation + (i * Math.PI) / tips - Math.PI / 2;
    return [x + r * Math.cos(a), y + r * Math.sin(a)] as [number, number];
  });
}

/** One motif as SVG. `rotation` is in radians; `random` varies details such as petal count. */
export function drawMotif(
  kind: Motif,
  x: number,
  y: number,
  size: number,
  rotation: number,
  paint: Paint,
  random: () => number,
): string {
  const r = size / 2;
  const op = paint.opacity.toFixed(2);
  const deg = f((rotation * 180) / Math.PI);
  switch (kind) {
    case "circle":
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r)}" fill="${paint.fill}" fill-opacity="${op}"/>`;
    case "ring":
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r * 0.8)}" fill="none" stroke="${paint.fill}" stroke-opacity="${op}" stroke-width="${f(r * 0.28)}"/>`;
    case "triangle":
      return polygon(
        starPoints(x, y, r, r, 3, rotation).filter((_, i) => i % 2 === 0),
        paint,
      );
    case "star":
      return polygon(starPoints(x, y, r, r * (0.38 + random() * 0.12), 5 + (random() < 0.3 ? 3 : 0), rotation), paint);
    case "square":
      return `<rect x="${f(x - r * 0.8)}" y="${f(y - r * 0.8)}" width="${f(r * 1.6)}" height="${f(r * 1.6)}" rx="${f(r * 0.08)}" fill="${paint.fill}" fill-opacity="${op}" transform="rotate(${deg} ${f(x)} ${f(y)})"/>`;
    case "wave": {
      const steps = 4 + Math.floor(random() * 3);
      const amp = r * 0.25;
      let d = `M${f(x - r)},${f(y)}`;
      for (let i = 0; i < steps; i++) {
        const x0 = x - r + ((i + 0.5) * 2 * r) / steps;
        const x1 = x - r + ((i + 1) * 2 * r) / steps;
        d += ` Q${f(x0)},${f(y + (i % 2 ? amp : -amp) * 2)} ${f(x1)},${f(y)}`;
      }
      return `<path d="${d}" fill="none" stroke="${paint.accent}" stroke-opacity="${op}" stroke-width="${f(Math.max(1.5, r * 0.14))}" stroke-linecap="round" transform="rotate(${deg} ${f(x)} ${f(y)})"/>`;
    }
    case "dots": {
      const dots: string[] = [];
      const n = 3;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const dx = x - r * 0.7 + (i * r * 1.4) / (n - 1);
          const dy = y - r * 0.7 + (j * r * 1.4) / (n - 1);
          dots.push(`<circle cx="${f(dx)}" cy="${f(dy)}" r="${f(r * 0.16)}"/>`);
        }
      }
      return `<g fill="${paint.fill}" fill-opacity="${op}" transform="rotate(${deg} ${f(x)} ${f(y)})">${dots.join("")}</g>`;
    }
    case "mountain": {
      const base = y + r * 0.6;
      const peak: [number, number] = [x + (random() - 0.5) * r * 0.3, y - r * 0.8];
      const body = polygon([[x - r, base], peak, [x + r, base]], paint);
      const t = 0.32;
      const cap: Array<[number, number]> = [
        [peak[0] + (x - r - peak[0]) * t, peak[1] + (base - peak[1]) * t],
        peak,
        [peak[0] + (x + r - peak[0]) * t, peak[1] + (base - peak[1]) * t],
        [peak[0] + r * 0.08, peak[1] + (base - peak[1]) * t * 0.7],
        [peak[0] - r * 0.1, peak[1] + (base - peak[1]) * t * 1.1],
      ];
      return body + polygon(cap, { ...paint, fill: paint.accent, opacity: Math.min(1, paint.opacity + 0.1) });
    }
    case "flower": {
      const petals = 5 + Math.floor(random() * 4);
      const petal = Array.from({ length: petals }, (_, i) => {
        const a = rotation + (i * 2 * Math.PI) / petals;
        return `<ellipse cx="${f(x + Math.cos(a) * r * 0.5)}" cy="${f(y + Math.sin(a) * r * 0.5)}" rx="${f(r * 0.45)}" ry="${f(r * 0.22)}" transform="rotate(${f((a * 180) / Math.PI)} ${f(x + Math.cos(a) * r * 0.5)} ${f(y + Math.sin(a) * r * 0.5)})"/>`;
      }).join("");
      return `<g fill="${paint.fill}" fill-opacity="${op}">${petal}</g><circle cx="${f(x)}" cy="${f(y)}" r="${f(r * 0.2)}" fill="${paint.accent}"/>`;
    }
    case "arc": {
      const w = r * 0.3;
      const d = `M${f(x - r)},${f(y)} A${f(r)},${f(r)} 0 0 1 ${f(x + r)},${f(y)} L${f(x + r - w)},${f(y)} A${f(r - w)},${f(r - w)} 0 0 0 ${f(x - r + w)},${f(y)} Z`;
      return `<path d="${d}" fill="${paint.fill}" fill-opacity="${op}" transform="rotate(${deg} ${f(x)} ${f(y)})"/>`;
    }
  }
}
