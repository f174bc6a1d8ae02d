// The shapes atelier/shapes-3d builds, each standing on y = 0 and centred on the vertical axis,
// about one metre across before the layout scales it. Round things are lathed from a 2D profile
// whose corners are filleted, so edges catch a highlight instead of looking like clip art; boxes
// are rounded the same way. `Detail` sets how finely curves are cut, and so the triangle count.
import { GeometryBuilder, merged, placed } from "./geometry";
import type { Geometry, Vec3 } from "./scene";

export interface Detail {
  /** Segments around a lathed shape; a multiple of 4, so the widest points are vertices. */
  radial: number;
  /** Segments per quarter circle of a rounded corner. */
  arc: number;
}

/** A profile point: radius, height, and the outward normal in the (radius, height) plane. */
type ProfilePoint = [r: number, y: number, nr: number, ny: number];

/** Revolves a profile (from the bottom of the axis to the top) about the Y axis. */
export function lathe(profile: readonly ProfilePoint[], radial: number): Geometry {
  const points = profile.filter((p, i) => i === 0 || p.some((v, k) => Math.abs(v - profile[i - 1]![k]!) > 1e-9));
  const lengths = [0];
  for (let i = 1; i < points.length; i++)
    lengths.push(lengths[i - 1]! + Math.hypot(points[i]![0] - points[i - 1]![0], points[i]![1] - points[i - 1]![1]));
  const total = lengths.at(-1) || 1;
  const b = new GeometryBuilder();
  const rows = points.map(([r, y, nr, ny], i) => {
    const row: number[] = [];
    for (let j = 0; j <= radial; j++) {
      const t = (2 * Math.PI * j) / radial;
      const [s, c] = [Math.sin(t), Math.cos(t)];
      row.push(b.vertex([r * s, y, r * c], [nr * s, ny, nr * c], j / radial, 1 - lengths[i]! / total));
    }
    return row;
  });
  for (let i = 0; i + 1 < points.length; i++) {
    const [p, q] = [points[i]!, points[i + 1]!];
    if (Math.hypot(p[0] - q[0], p[1] - q[1]) < 1e-9) continue; // a hard edge: same place, two normals
    for (let j = 0; j < radial; j++) b.quad(rows[i]![j]!, rows[i]![j + 1]!, rows[i + 1]![j + 1]!, rows[i + 1]![j]!);
  }
  return b.build();
}

/**
 * A profile from an outline (first and last points on the axis): straight runs keep their own
 * normal, and every inner corner is rounded with a fillet of up to `radius`.
 */
export function filleted(outline: ReadonlyArray<[number, number]>, radius: number, detail: Detail): ProfilePoint[] {
  const out: ProfilePoint[] = [];
  const normalOf = (a: [number, number], c: [number, number]): [number, number] => {
    const length = Math.hypot(c[0] - a[0], c[1] - a[1]);
    return [(c[1] - a[1]) / length, -(c[0] - a[0]) / length];
  };
  const last = outline.length - 1;
  let start: [number, number] = outline[0]!;
  for (let i = 1; i <= last; i++) {
    const p = outline[i]!;
    const prev = outline[i - 1]!;
    const n1 = normalOf(prev, p);
    if (i === last) {
      out.push([start[0], start[1], n1[0], n1[1]], [p[0], p[1], n1[0], n1[1]]);
      break;
    }
    const next = outline[i + 1]!;
    const n2 = normalOf(p, next);
    const len1 = Math.hypot(p[0] - prev[0], p[1] - prev[1]);
    const len2 = Math.hypot(next[0] - p[0], next[1] - p[1]);
    const turn = Math.acos(Math.max(-1, Math.min(1, n1[0] * n2[0] + n1[1] * n2[1])));
    // Tangent length of the fillet, limited so it never eats more than its share of a side.
    const room = Math.min(i === 1 ? len1 : len1 / 2, i + 1 === last ? len2 : len2 / 2);
    const t = Math.min(radius * Math.tan(turn / 2), room);
    const steps = Math.max(1, Math.ceil((detail.arc * turn) / (Math.PI / 2)));
    if (t < 1e-6 || turn < 1e-6) {
      out.push([start[0], start[1], n1[0], n1[1]], [p[0], p[1], n1[0], n1[1]], [p[0], p[1], n2[0], n2[1]]);
      start = p;
      continue;
    }
    const rho = t / Math.tan(turn / 2);
    const d1 = [(p[0] - prev[0]) / len1, (p[1] - prev[1]) / len1];
    const d2 = [(next[0] - p[0]) / len2, (next[1] - p[1]) / len2];
    const s: [number, number] = [p[0] - d1[0]! * t, p[1] - d1[1]! * t];
    const convex = d1[0]! * d2[1]! - d1[1]! * d2[0]! > 0;
    const sign = convex ? -1 : 1;
    const centre = [s[0] + sign * n1[0] * rho, s[1] + sign * n1[1] * rho];
    const a1 = Math.atan2(n1[1], n1[0]);
    let delta = Math.atan2(n2[1], n2[0]) - a1;
    if (delta > Math.PI) delta -= 2 * Math.PI;
    if (delta < -Math.PI) delta += 2 * Math.PI;
    out.push([start[0], start[1], n1[0], n1[1]]);
    for (let k = 0; k <= steps; k++) {
      const a = a1 + (delta * k) / steps;
      const [nr, ny] = [Math.cos(a), Math.sin(a)];
      out.push([centre[0]! - sign * nr * rho, centre[1]! - sign * ny * rho, nr, ny]);
    }
    start = [p[0] + d2[0]! * t, p[1] + d2[1]! * t];
  }
  return out;
}

/** Points of a circle arc about (cx, cy), normals pointing out of it. */
function arc(cx: number, cy: number, radius: number, from: number, to: number, steps: number): ProfilePoint[] {
  return Array.from({ length: steps + 1 }, (_, k) => {
    const a = from + ((to - from) * k) / steps;
    return [Math.max(0, cx + radius * Math.cos(a)), cy + radius * Math.sin(a), Math.cos(a), Math.sin(a)];
  });
}

export function sphere(radius: number, detail: Detail): Geometry {
  return lathe(arc(0, radius, radius, -Math.PI / 2, Math.PI / 2, detail.radial / 2), detail.radial);
}

/** A sphere whose upper half is drawn out: an egg. */
export function egg(radius: number, stretch: number, detail: Detail): Geometry {
  const points = arc(0, 0, radius, -Math.PI / 2, Math.PI / 2, detail.radial / 2).map(([r, y, nr, ny]): ProfilePoint => {
    const k = y > 0 ? stretch : 1;
    const length = Math.hypot(nr, ny / k);
    return [r, y * k + radius, nr / length, ny / k / length];
  });
  return lathe(points, detail.radial);
}

export function torus(ring: number, tube: number, detail: Detail): Geometry {
  return lathe(arc(ring, tube, tube, -Math.PI, Math.PI, detail.radial / 2), detail.radial);
}

/** A lathed solid from an outline, with rounded corners. */
export function turned(outline: ReadonlyArray<[number, number]>, radius: number, detail: Detail): Geometry {
  return lathe(filleted(outline, radius, detail), detail.radial);
}

/**
 * A box with rounded edges and corners: each face is a grid whose outer rows are pushed onto
 * quarter circles, spaced evenly in angle (tan), so the rounding is smooth at any detail.
 */
export function roundedBox(size: Vec3, radius: number, detail: Detail): Geometry {
  const m = Math.max(1, Math.round(detail.arc * 0.75));
  const half = size.map((s) => s / 2) as Vec3;
  const r = Math.min(radius, ...half.map((h) => h * 0.99));
  const inner = half.map((h) => h - r) as Vec3;
  const ticks = (axis: number) => {
    const side = Array.from({ length: m }, (_, k) => inner[axis]! + r * Math.tan(((Math.PI / 4) * (m - k)) / m));
    return [...side.map((v) => -v), -inner[axis]!, inner[axis]!, ...side.reverse()];
  };
  const b = new GeometryBuilder();
  // [normal axis, u axis, v axis]: each face is a grid over its two other axes.
  const faces: Array<[number, number, number]> = [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
  ];
  for (const [axis, ua, va] of faces) {
    for (const sign of [1, -1]) {
      const us = ticks(ua);
      const vs = ticks(va);
      const grid = vs.map((v, iv) =>
        us.map((u, iu) => {
          const p: Vec3 = [0, 0, 0];
          p[axis] = sign * half[axis]!;
          p[ua] = u;
          p[va] = v;
          const c = p.map((x, k) => Math.max(-inner[k]!, Math.min(inner[k]!, x))) as Vec3;
          const d = p.map((x, k) => x - c[k]!) as Vec3;
          const length = Math.hypot(...d);
          const n = d.map((x) => x / length) as Vec3;
          return b.vertex(
            [c[0] + n[0] * r, c[1] + n[1] * r + half[1], c[2] + n[2] * r],
            n,
            iu / (us.length - 1),
            iv / (vs.length - 1),
          );
        }),
      );
      for (let iv = 0; iv + 1 < vs.length; iv++) {
        for (let iu = 0; iu + 1 < us.length; iu++)
          b.quad(grid[iv]![iu]!, grid[iv]![iu + 1]!, grid[iv + 1]![iu + 1]!, grid[iv + 1]![iu]!);
      }
    }
  }
  return b.build();
}

/** A square pyramid with flat faces. */
export function pyramid(base: number, height: number): Geometry {
  const b = new GeometryBuilder();
  const h = base / 2;
  const corners: Vec3[] = [
    [-h, 0, -h],
    [h, 0, -h],
    [h, 0, h],
    [-h, 0, h],
  ];
  for (let i = 0; i < 4; i++) {
    const [p, q] = [corners[i]!, corners[(i + 1) % 4]!];
    const mid: Vec3 = [(p[0] + q[0]) / 2, 0, (p[2] + q[2]) / 2];
    const n: Vec3 = [mid[0] * height, h * h, mid[2] * height]; // perpendicular to the slope
    b.triangle(b.vertex(p, n, 0, 1), b.vertex(q, n, 1, 1), b.vertex([0, height, 0], n, 0.5, 0));
  }
  const down: Vec3 = [0, -1, 0];
  b.quad(
    ...(corners.map((c, i) => b.vertex(c, down, i === 1 || i === 2 ? 1 : 0, i >= 2 ? 1 : 0)) as [
      number,
      number,
      number,
      number,
    ]),
  );
  return b.build();
}

/** A round arch: two piers and a semicircular band of rectangular section, facing +Z. */
export function arch(detail: Detail): Geometry {
  const [pier, depth, spring, inner, outer] = [0.22, 0.3, 0.75, 0.34, 0.56];
  const piers = [-1, 1].map((side) =>
    placed(roundedBox([pier, spring, depth], 0.02, detail), { offset: [side * (inner + pier / 2), 0, 0] }),
  );
  const b = new GeometryBuilder();
  const steps = detail.radial / 2;
  const ring = (radius: number, z: number, n: (a: number) => Vec3) =>
    Array.from({ length: steps + 1 }, (_, k) => {
      const a = (Math.PI * k) / steps;
      return b.vertex([radius * Math.cos(a), spring + radius * Math.sin(a), z], n(a), k / steps, z > 0 ? 0 : 1);
    });
  const out = (a: number): Vec3 => [Math.cos(a), Math.sin(a), 0];
  const inward = (a: number): Vec3 => [-Math.cos(a), -Math.sin(a), 0];
  const strips = [
    [ring(outer, depth / 2, out), ring(outer, -depth / 2, out)],
    [ring(inner, depth / 2, inward), ring(inner, -depth / 2, inward)],
    [ring(outer, depth / 2, () => [0, 0, 1]), ring(inner, depth / 2, () => [0, 0, 1])],
    [ring(outer, -depth / 2, () => [0, 0, -1]), ring(inner, -depth / 2, () => [0, 0, -1])],
  ];
  for (const [p, q] of strips) for (let k = 0; k < steps; k++) b.quad(p![k]!, p![k + 1]!, q![k + 1]!, q![k]!);
  return merged([...piers, b.build()]);
}

/** A short flight of steps rising away from the viewer (toward −Z). */
export function stairs(steps: number, detail: Detail): Geometry {
  const [width, tread, rise] = [0.9, 0.2, 0.16];
  const total = steps * tread;
  return merged(
    Array.from({ length: steps }, (_, k) =>
      placed(roundedBox([width, rise * (k + 1), tread], 0.02, detail), {
        offset: [0, 0, total / 2 - tread * (k + 0.5)],
      }),
    ),
  );
}

/** A profile through smooth control points (radius, height), normals from the curve's slope. */
export function smoothOutline(points: ReadonlyArray<[number, number]>, samples: number): ProfilePoint[] {
  const curve: Array<[number, number]> = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [p, q] = [points[i]!, points[i + 1]!];
    for (let k = 0; k < samples; k++) {
      const t = (1 - Math.cos((Math.PI * k) / samples)) / 2; // eased between control points
      curve.push([p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * ((k / samples + t) / 2)]);
    }
  }
  curve.push(points.at(-1)!);
  return curve.map(([r, y], i) => {
    const a = curve[Math.max(0, i - 1)]!;
    const c = curve[Math.min(curve.length - 1, i + 1)]!;
    const length = Math.hypot(c[0] - a[0], c[1] - a[1]) || 1;
    return [r, y, (c[1] - a[1]) / length, -(c[0] - a[0]) / length];
  });
}

/** A solid vase: a flat foot, a belly, a neck and a lip, closed by a flat top. */
export function vase(detail: Detail): Geometry {
  const wall = smoothOutline(
    [
      [0.24, 0],
      [0.42, 0.42],
      [0.17, 0.95],
      [0.24, 1.2],
    ],
    Math.max(4, detail.arc * 2),
  );
  const bottom: ProfilePoint[] = [
    [0, 0, 0, -1],
    [0.24, 0, 0, -1],
  ];
  const top: ProfilePoint[] = [
    [0.24, 1.2, 0, 1],
    [0, 1.2, 0, 1],
  ];
  return lathe([...bottom, ...wall, ...top], detail.radial);
}
