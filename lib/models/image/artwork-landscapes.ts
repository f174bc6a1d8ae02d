// The flowing compositions of atelier/artwork: layered waves, angled stripes and a horizon of
// mountain ranges fading into haze.
import { drawMotif } from "./artwork-motifs";
import { between, f, flatInk, glow, paintOf, pick, type Scene } from "./artwork-scene";

/** Stars and specks in a dark sky; a few birds in a light one. */
function sky(scene: Scene, top: number, bottom: number, count: number): string {
  const { width, random, palette } = scene;
  const u = Math.min(width, scene.height);
  const out: string[] = [];
  if (!palette.dark) {
    for (let i = 0; i < Math.ceil(count / 4); i++) {
      const x = random() * width;
      const y = between(random, top, bottom);
      const w = u * between(random, 0.012, 0.03);
      out.push(
        `<path d="M${f(x - w)},${f(y - w * 0.3)} Q${f(x - w / 2)},${f(y - w * 0.6)} ${f(x)},${f(y)} Q${f(x + w / 2)},${f(y - w * 0.6)} ${f(x + w)},${f(y - w * 0.3)}" fill="none" stroke="${palette.light}" stroke-opacity="0.7" stroke-width="${f(Math.max(1.2, w * 0.12))}" stroke-linecap="round"/>`,
      );
    }
    return out.join("");
  }
  for (let i = 0; i < count; i++) {
    const size = u * between(random, 0.006, 0.03);
    const kind = random() < 0.6 ? "circle" : "star";
    out.push(
      drawMotif(
        kind,
        random() * width,
        between(random, top, bottom),
        kind === "circle" ? size * 0.4 : size,
        random() * 6,
        { fill: palette.glow, opacity: between(random, 0.45, 0.95), accent: palette.glow },
        random,
      ),
    );
  }
  return out.join("");
}

/** Bands of water or dunes, one behind another, each with a light crest. */
export function waves(scene: Scene): string {
  const { width, height, random } = scene;
  const u = Math.min(width, height);
  const sunX = width * between(random, 0.2, 0.8);
  const sunY = height * between(random, 0.15, 0.35);
  const out: string[] = [
    glow(sunX, sunY, u * 0.45),
    `<circle cx="${f(sunX)}" cy="${f(sunY)}" r="${f(u * 0.12)}" fill="${scene.palette.sun}" fill-opacity="0.92"/>`,
  ];
  out.push(sky(scene, 0, height * 0.4, 18));
  const layers = 6 + Math.floor(random() * 4);
  for (let i = 0; i < layers; i++) {
    const base = height * (0.38 + (0.62 * i) / layers);
    const amp = u * between(random, 0.02, 0.06) * (1 + i * 0.15);
    const freq = between(random, 1.5, 3.5) / width;
    const phase = random() * Math.PI * 2;
    const points: string[] = [];
    for (let x = 0; x <= width + 8; x += 8) {
      const y =
        base + amp * Math.sin(x * freq * Math.PI * 2 + phase) + amp * 0.4 * Math.sin(x * freq * 5.3 + phase * 2);
      points.push(`${f(x)},${f(y)}`);
    }
    const crest = `M${points.join(" L")}`;
    out.push(
      `<path d="${crest} L${f(width + 8)},${f(height)} L0,${f(height)} Z" fill="${paintOf(scene, 1, i).fill}" fill-opacity="${(0.75 + (0.25 * i) / layers).toFixed(2)}"/>`,
    );
    out.push(
      `<path d="${crest}" fill="none" stroke="${scene.palette.light}" stroke-opacity="0.45" stroke-width="${f(u * 0.004)}"/>`,
    );
    if (random() < 0.5) {
      const x = random() * width;
      out.push(
        drawMotif(
          pick(random, scene.motifs),
          x,
          base - amp - u * 0.05,
          u * 0.07,
          0,
          paintOf(scene, 0.95, i + 1),
          random,
        ),
      );
    }
  }
  return out.join("");
}

/** Angled bands of colour, with motifs marching along some of them. */
export function stripes(scene: Scene): string {
  const { width, height, random } = scene;
  const angle = pick(random, [0, 90, 30, -30, 45, -45, 60, -60]);
  const reach = Math.hypot(width, height);
  const out: string[] = [`<g transform="rotate(${angle} ${f(width / 2)} ${f(height / 2)})">`];
  let y = height / 2 - reach / 2;
  let k = 0;
  while (y < height / 2 + reach / 2) {
    const band = reach * between(random, 0.04, 0.14);
    const x0 = width / 2 - reach / 2;
    if (random() < 0.8) {
      out.push(
        `<rect x="${f(x0)}" y="${f(y)}" width="${f(reach)}" height="${f(band)}" fill="${paintOf(scene, 0.95, k).fill}" fill-opacity="0.95"/>`,
      );
    }
    if (band > reach * 0.07 && random() < 0.6) {
      const size = band * 0.6;
      const paint = paintOf(scene, 0.95, k + 2);
      const kind = pick(random, scene.motifs);
      for (let x = x0 + size; x < x0 + reach; x += size * 1.6)
        out.push(drawMotif(kind, x, y + band / 2, size, 0, paint, random));
    }
    y += band;
    k++;
  }
  out.push("</g>");
  return out.join("");
}

/** Midpoint displacement: a ridge line that is rough at every scale, like real mountains. */
function ridge(width: number, base: number, height: number, random: () => number): Array<[number, number]> {
  let points: Array<[number, number]> = [
    [0, base - random() * height],
    [width, base - random() * height],
  ];
  let spread = height;
  for (let round = 0; round < 7; round++) {
    const next: Array<[number, number]> = [];
    for (let i = 0; i < points.length - 1; i++) {
      const [ax, ay] = points[i]!;
      const [bx, by] = points[i + 1]!;
      next.push([ax, ay], [(ax + bx) / 2, (ay + by) / 2 + (random() - 0.5) * spread]);
    }
    next.push(points[points.length - 1]!);
    points = next;
    spread *= 0.55;
  }
  return points;
}

/** A sky with a low sun, ranges of mountains fading into haze, and sometimes a lake. */
export function horizon(scene: Scene): string {
  const { width, height, random, palette } = scene;
  const u = Math.min(width, height);
  const line = height * between(random, 0.55, 0.7);
  const sunX = width * between(random, 0.25, 0.75);
  const sunY = line - height * between(random, 0.28, 0.4);
  const out: string[] = [
    glow(sunX, sunY, u * 0.55),
    `<circle cx="${f(sunX)}" cy="${f(sunY)}" r="${f(u * between(random, 0.08, 0.14))}" fill="${palette.sun}"/>`,
  ];
  out.push(sky(scene, 0, line * 0.6, palette.dark ? 40 : 12));
  const ranges = 3 + Math.floor(random() * 3);
  const lake = random() < 0.5;
  const floor = lake ? line : height;
  for (let i = 0; i < ranges; i++) {
    const base = line - height * 0.12 + (i * (floor - line + height * 0.12)) / ranges;
    const points = ridge(width, base, height * (0.24 - i * 0.03), random);
    const path = points.map(([x, y]) => `${f(x)},${f(y)}`).join(" L");
    const shape = `M${path} L${f(width)},${f(height)} L0,${f(height)} Z`;
    // Far ranges fade into the sky colour, as in air; near ones keep their ink.
    const haze = (0.6 * (ranges - 1 - i)) / ranges;
    out.push(
      `<path d="${shape}" fill="${flatInk(scene, ranges - i)}"/><path d="${shape}" fill="url(#shade)"/><path d="${shape}" fill="${palette.ground[0]}" fill-opacity="${haze.toFixed(2)}"/>`,
    );
  }
  if (lake) {
    out.push(`<rect y="${f(line)}" width="${width}" height="${f(height - line)}" fill="${flatInk(scene, 0)}"/>`);
    out.push(
      `<rect y="${f(line)}" width="${width}" height="${f(height - line)}" fill="url(#ground)" fill-opacity="0.55"/>`,
    );
    for (let i = 0; i < 26; i++) {
      const y = line + (height - line) * Math.pow(random(), 1.4);
      const w = u * between(random, 0.02, 0.12) * (1 + (y - line) / (height - line));
      const x = sunX + (random() - 0.5) * u * 0.35;
      out.push(
        `<rect x="${f(x - w / 2)}" y="${f(y)}" width="${f(w)}" height="${f(Math.max(1.5, u * 0.005))}" rx="1" fill="${palette.glow}" fill-opacity="0.6"/>`,
      );
    }
  }
  return out.join("");
}
