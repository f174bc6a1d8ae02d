// What every atelier/artwork composition draws with: the canvas, the palette, the asked-for
// motifs and one seeded generator; plus the SVG <defs> (gradient and hatch fills) they share.
import type { Palette } from "./artwork-palette";
import type { Motif, Paint } from "./artwork-motifs";

export interface Scene {
  width: number;
  height: number;
  palette: Palette;
  motifs: Motif[];
  random: () => number;
}

export const f = (n: number) => n.toFixed(1);

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function between(random: () => number, low: number, high: number): number {
  return low + random() * (high - low);
}

/**
 * A paint of one ink: mostly its soft gradient, sometimes flat or hatched, which gives the
 * printed, layered look rather than flat vector clip-art.
 */
export function paintOf(
  scene: Scene,
  opacity: number,
  index = Math.floor(scene.random() * scene.palette.inks.length),
): Paint {
  const { inks, light } = scene.palette;
  const k = index % inks.length;
  const roll = scene.random();
  const fill = roll < 0.55 ? `url(#g${k})` : roll < 0.85 ? inks[k]! : `url(#h${k})`;
  const accent = scene.random() < 0.5 ? light : inks[(k + 1) % inks.length]!;
  return { fill, opacity, accent };
}

export function flatInk(scene: Scene, index = Math.floor(scene.random() * scene.palette.inks.length)): string {
  return scene.palette.inks[index % scene.palette.inks.length]!;
}

export function defs(scene: Scene): string {
  const { width, height, palette } = scene;
  const u = Math.min(width, height);
  const angle = Math.floor(scene.random() * 360);
  const gradients = palette.inks.map(
    (ink, k) =>
      `<linearGradient id="g${k}" gradientTransform="rotate(${angle} 0.5 0.5)"><stop offset="0" stop-color="${palette.glow}" stop-opacity="0.6"/><stop offset="0.35" stop-color="${ink}"/><stop offset="1" stop-color="${ink}"/></linearGradient>`,
  );
  const gap = Math.max(3, Math.round(u / 90));
  const hatches = palette.inks.map(
    (ink, k) =>
      `<pattern id="h${k}" width="${gap}" height="${gap}" patternUnits="userSpaceOnUse" patternTransform="rotate(${45 + k * 30})"><rect width="${gap}" height="${gap}" fill="${ink}" fill-opacity="0.25"/><rect width="${Math.max(1, gap / 2.5).toFixed(1)}" height="${gap}" fill="${ink}"/></pattern>`,
  );
  return `<defs><linearGradient id="ground" x1="0" y1="0" x2="0.3" y2="1"><stop offset="0" stop-color="${palette.ground[0]}"/><stop offset="1" stop-color="${palette.ground[1]}"/></linearGradient>
<radialGradient id="glow"><stop offset="0" stop-color="${palette.glow}" stop-opacity="0.8"/><stop offset="0.4" stop-color="${palette.glow}" stop-opacity="0.3"/><stop offset="1" stop-color="${palette.glow}" stop-opacity="0"/></radialGradient>
<radialGradient id="vignette" cx="0.5" cy="0.5" r="0.75"><stop offset="0.55" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="${palette.dark ? 0.45 : 0.12}"/></radialGradient>
<linearGradient id="shade" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.3"/></linearGradient>
${gradients.join("")}${hatches.join("")}</defs>`;
}

/** A soft light behind a focal point: sun, moon, or the centre of a mandala. */
export function glow(x: number, y: number, r: number): string {
  return `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r)}" fill="url(#glow)"/>`;
}
