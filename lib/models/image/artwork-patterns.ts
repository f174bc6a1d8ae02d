// The geometric compositions of atelier/artwork: a tiled grid, a radial mandala, a
// phyllotaxis spiral and a layered scatter.
import { drawMotif } from "./artwork-motifs";
import { between, f, flatInk, glow, paintOf, pick, type Scene } from "./artwork-scene";

/** Bauhaus-style tiles: each cell a block of colour with one motif or a quarter disc on it. */
export function grid(scene: Scene): string {
  const { width, height, random } = scene;
  const cols = 4 + Math.floor(random() * 4);
  const cell = Math.max(width, height) / cols;
  // Whole tiles on both axes (nearly square), so no row is cut off at the edge.
  const across = Math.max(1, Math.round(width / cell));
  const down = Math.max(1, Math.round(height / cell));
  const gap = cell * 0.05;
  const tileW = width / across - gap;
  const tileH = height / down - gap;
  const size = Math.min(tileW, tileH);
  const out: string[] = [];
  for (let i = 0; i < across; i++) {
    for (let j = 0; j < down; j++) {
      const x = (i * width) / across + gap / 2;
      const y = (j * height) / down + gap / 2;
      const tile = `x="${f(x)}" y="${f(y)}" width="${f(tileW)}" height="${f(tileH)}"`;
      const back = Math.floor(random() * (scene.palette.inks.length + 1));
      if (back < scene.palette.inks.length)
        out.push(`<rect ${tile} fill="${flatInk(scene, back)}" fill-opacity="0.92"/>`);
      const front = back + 1 + Math.floor(random() * (scene.palette.inks.length - 1));
      const paint = paintOf(scene, 0.95, front);
      const roll = random();
      if (roll < 0.3) {
        // A quarter disc anchored in one corner, the classic tile motif.
        const corner = Math.floor(random() * 4);
        const cx = x + (corner % 2) * tileW;
        const cy = y + Math.floor(corner / 2) * tileH;
        out.push(
          `<clipPath id="c${i}_${j}"><rect ${tile}/></clipPath><circle cx="${f(cx)}" cy="${f(cy)}" r="${f(size)}" fill="${paint.fill}" clip-path="url(#c${i}_${j})"/>`,
        );
      } else if (roll < 0.9) {
        const kind = pick(random, scene.motifs);
        out.push(
          drawMotif(
            kind,
            x + tileW / 2,
            y + tileH / 2,
            size * 0.72,
            (Math.floor(random() * 4) * Math.PI) / 2,
            paint,
            random,
          ),
        );
      }
    }
  }
  return out.join("");
}

/** A mandala: concentric discs, rays, and rings of motifs turned to face outwards. */
export function radial(scene: Scene): string {
  const { width, height, random } = scene;
  const cx = width / 2 + (random() - 0.5) * width * 0.2;
  const cy = height / 2 + (random() - 0.5) * height * 0.2;
  const reach = Math.hypot(Math.max(cx, width - cx), Math.max(cy, height - cy));
  const out: string[] = [];
  const rays = 12 + Math.floor(random() * 20);
  for (let i = 0; i < rays; i++) {
    const a = (i * 2 * Math.PI) / rays;
    const b = a + Math.PI / rays;
    out.push(
      `<polygon points="${f(cx)},${f(cy)} ${f(cx + Math.cos(a) * reach)},${f(cy + Math.sin(a) * reach)} ${f(cx + Math.cos(b) * reach)},${f(cy + Math.sin(b) * reach)}" fill="${scene.palette.light}" fill-opacity="0.07"/>`,
    );
  }
  const discs = 4 + Math.floor(random() * 3);
  const outer = Math.min(width, height) * between(random, 0.42, 0.5);
  for (let k = discs; k >= 1; k--) {
    out.push(
      `<circle cx="${f(cx)}" cy="${f(cy)}" r="${f((outer * k) / discs)}" fill="${paintOf(scene, 0.85, k).fill}" fill-opacity="0.85"/>`,
    );
  }
  out.push(glow(cx, cy, outer * 0.6));
  const rings = 3 + Math.floor(random() * 3);
  for (let k = 1; k <= rings; k++) {
    const r = (outer * (k + 0.5)) / (rings + 1);
    const size = Math.max(6, (outer / (rings + 1)) * 0.7);
    const count = Math.max(5, Math.round((2 * Math.PI * r) / (size * 1.35)));
    const kind = scene.motifs[k % scene.motifs.length]!;
    const paint = paintOf(scene, 0.95, k + 1);
    const offset = random() * Math.PI;
    for (let i = 0; i < count; i++) {
      const a = offset + (i * 2 * Math.PI) / count;
      out.push(drawMotif(kind, cx + Math.cos(a) * r, cy + Math.sin(a) * r, size, a + Math.PI / 2, paint, random));
    }
  }
  out.push(drawMotif(scene.motifs[0]!, cx, cy, outer / (rings + 1), 0, paintOf(scene, 1, 0), random));
  return out.join("");
}

/** Sunflower phyllotaxis: motifs on the golden angle, growing towards the edge. */
export function spiral(scene: Scene): string {
  const { width, height, random } = scene;
  const cx = width * between(random, 0.4, 0.6);
  const cy = height * between(random, 0.4, 0.6);
  const count = 160 + Math.floor(random() * 140);
  const reach = Math.hypot(width, height) * 0.55;
  const step = reach / Math.sqrt(count);
  const golden = Math.PI * (3 - Math.sqrt(5));
  const bands = scene.palette.inks.length;
  const out: string[] = [glow(cx, cy, reach * 0.45)];
  const paints = scene.palette.inks.map((_, k) => paintOf(scene, 0.92, k));
  for (let i = count; i >= 1; i--) {
    const r = step * Math.sqrt(i);
    const a = i * golden;
    const x = cx + Math.cos(a) * r;
    const y = cy + Math.sin(a) * r;
    const size = step * (0.7 + (1.1 * i) / count);
    if (x < -size || y < -size || x > width + size || y > height + size) continue;
    const kind = scene.motifs[Math.floor(i / 7) % scene.motifs.length]!;
    out.push(drawMotif(kind, x, y, size, a, paints[Math.floor((i / count) * bands * 2) % bands]!, random));
  }
  return out.join("");
}

/** Layers of floating shapes: large soft forms behind, a middle layer, fine specks on top. */
export function scatter(scene: Scene): string {
  const { width, height, random } = scene;
  const u = Math.min(width, height);
  const out: string[] = [];
  for (let i = 0; i < 4; i++) {
    out.push(
      `<circle cx="${f(random() * width)}" cy="${f(random() * height)}" r="${f(u * between(random, 0.25, 0.45))}" fill="${paintOf(scene, 0.35, i).fill}" fill-opacity="0.35"/>`,
    );
  }
  for (let i = 0; i < 3; i++) {
    const y = random() * height;
    out.push(
      `<path d="M${f(-u * 0.1)},${f(y)} C${f(width * 0.3)},${f(y - u * 0.4)} ${f(width * 0.6)},${f(y + u * 0.4)} ${f(width + u * 0.1)},${f(y + (random() - 0.5) * u * 0.3)}" fill="none" stroke="${flatInk(scene)}" stroke-width="${f(u * 0.006)}" stroke-opacity="0.7"/>`,
    );
  }
  const placed: Array<[number, number, number]> = [];
  for (let tries = 0; tries < 200 && placed.length < 22; tries++) {
    const size = u * between(random, 0.06, 0.2);
    const x = random() * width;
    const y = random() * height;
    if (placed.some(([px, py, ps]) => Math.hypot(px - x, py - y) < (ps + size) * 0.55)) continue;
    placed.push([x, y, size]);
    out.push(drawMotif(pick(random, scene.motifs), x, y, size, random() * Math.PI * 2, paintOf(scene, 0.9), random));
  }
  for (let i = 0; i < 70; i++) {
    const size = u * between(random, 0.008, 0.025);
    const kind = random() < 0.5 ? "circle" : pick(random, scene.motifs);
    out.push(
      drawMotif(
        kind,
        random() * width,
        random() * height,
        size,
        random() * 6,
        { fill: scene.palette.light, opacity: 0.8, accent: scene.palette.light },
        random,
      ),
    );
  }
  return out.join("");
}
