// The poster renderer's rasterising: triangles to pixels (with barycentric weights for the
// caller to interpolate with) and a shadow map seen from the key light.
import type { Vec3 } from "./scene";

/** Per-pixel nearest surface: its depth (larger is nearer) and, when kept, its triangle and weights. */
export interface Layer {
  width: number;
  height: number;
  depth: Float32Array;
  id?: Int32Array;
  l1?: Float32Array;
  l2?: Float32Array;
  /** Depths a pixel must be nearer than to be kept (what is already drawn in front of a glass layer). */
  behind?: Float32Array;
}

/**
 * Draws triangle `t`, given in pixel coordinates (y down) with a depth per corner that
 * interpolates linearly on screen, into the layer where it is the nearest. With `cull`,
 * triangles facing away are skipped: counter-clockwise in the world is clockwise on screen.
 */
export function rasterTriangle(
  layer: Layer,
  t: number,
  x0: number,
  y0: number,
  z0: number,
  x1: number,
  y1: number,
  z1: number,
  x2: number,
  y2: number,
  z2: number,
  cull: boolean,
): void {
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  if (area === 0 || (cull && area > 0)) return;
  const { width, height, depth, id, l1: l1s, l2: l2s, behind } = layer;
  const inv = 1 / area;
  const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
  const maxX = Math.min(width - 1, Math.ceil(Math.max(x0, x1, x2)));
  const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
  const maxY = Math.min(height - 1, Math.ceil(Math.max(y0, y1, y2)));
  // The weights change by a constant step along a row: add it rather than recompute.
  const [d1x, d2x] = [(y2 - y0) * inv, -(y1 - y0) * inv];
  for (let y = minY; y <= maxY; y++) {
    const py = y + 0.5 - y0;
    const px = minX + 0.5 - x0;
    let l1 = (px * (y2 - y0) - (x2 - x0) * py) * inv;
    let l2 = ((x1 - x0) * py - px * (y1 - y0)) * inv;
    for (let pixel = y * width + minX, end = y * width + maxX; pixel <= end; pixel++, l1 += d1x, l2 += d2x) {
      if (l1 < 0 || l2 < 0 || l1 + l2 > 1) continue;
      const z = z0 + l1 * (z1 - z0) + l2 * (z2 - z0);
      if (z <= depth[pixel]! || (behind && z <= behind[pixel]!)) continue;
      depth[pixel] = z;
      if (id) {
        id[pixel] = t;
        l1s![pixel] = l1;
        l2s![pixel] = l2;
      }
    }
  }
}

/** Depth toward the key light over the scene, for soft shadows by percentage-closer filtering. */
export class ShadowMap {
  private readonly depth: Float32Array;
  private readonly axes: [Vec3, Vec3, Vec3];
  private readonly origin: [number, number];
  private readonly scale: number;
  /** One texel in metres: how far receivers are pushed off their surface to avoid self-shadowing. */
  readonly texel: number;

  /** `toLight`: unit vector toward the light; `corners`: points bounding every caster. */
  constructor(
    toLight: Vec3,
    corners: readonly Vec3[],
    private readonly size = 1024,
  ) {
    const side: Vec3 = Math.abs(toLight[1]) > 0.99 ? [1, 0, 0] : normalize(cross([0, 1, 0], toLight));
    this.axes = [side, cross(toLight, side), toLight];
    const us = corners.map((c) => dot(c, side));
    const vs = corners.map((c) => dot(c, this.axes[1]));
    const span = Math.max(Math.max(...us) - Math.min(...us), Math.max(...vs) - Math.min(...vs)) * 1.04;
    this.origin = [
      (Math.max(...us) + Math.min(...us)) / 2 - span / 2,
      (Math.max(...vs) + Math.min(...vs)) / 2 - span / 2,
    ];
    this.scale = size / span;
    this.texel = span / size;
    this.depth = new Float32Array(size * size).fill(-Infinity);
  }

  private project(x: number, y: number, z: number): Vec3 {
    const [a, b, c] = this.axes;
    return [
      (x * a[0] + y * a[1] + z * a[2] - this.origin[0]) * this.scale,
      (x * b[0] + y * b[1] + z * b[2] - this.origin[1]) * this.scale,
      x * c[0] + y * c[1] + z * c[2],
    ];
  }

  /** Draws the triangles (vertex indices into world positions) as casters. */
  draw(positions: Float32Array, triangles: ArrayLike<number>): void {
    const layer: Layer = { width: this.size, height: this.size, depth: this.depth };
    const at = (v: number) => this.project(positions[v * 3]!, positions[v * 3 + 1]!, positions[v * 3 + 2]!);
    for (let t = 0; t < triangles.length / 3; t++) {
      const [a, b, c] = [at(triangles[t * 3]!), at(triangles[t * 3 + 1]!), at(triangles[t * 3 + 2]!)];
      rasterTriangle(layer, t, a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], false);
    }
  }

  /** 1 where the map texel at (col, row) lets the light reach depth `d`, else 0. */
  private reaches(col: number, row: number, d: number): number {
    const size = this.size;
    return row < 0 || col < 0 || row >= size || col >= size || this.depth[row * size + col]! <= d ? 1 : 0;
  }

  /** How lit a point is, 0 to 1, from a 4×4 neighbourhood of the map (soft edges). */
  lit(x: number, y: number, z: number, nx: number, ny: number, nz: number): number {
    // Pushed one texel off the surface: two left jagged stripes under steep edges, none showed acne.
    const push = this.texel;
    const a = this.axes[0];
    const b = this.axes[1];
    const c = this.axes[2];
    const px = x + nx * push;
    const py = y + ny * push;
    const pz = z + nz * push;
    const u = (px * a[0] + py * a[1] + pz * a[2] - this.origin[0]) * this.scale - 1.5;
    const v = (px * b[0] + py * b[1] + pz * b[2] - this.origin[1]) * this.scale - 1.5;
    const d = px * c[0] + py * c[1] + pz * c[2] + this.texel * 1.5;
    const col = Math.floor(u);
    const row = Math.floor(v);
    // Most points are wholly lit or wholly shadowed: the four outer taps agreeing says so.
    const corners =
      this.reaches(col, row, d) +
      this.reaches(col + 3, row, d) +
      this.reaches(col, row + 3, d) +
      this.reaches(col + 3, row + 3, d);
    if (corners === 0 || corners === 4) return corners / 4;
    let sum = 0;
    for (let j = 0; j < 4; j++) for (let i = 0; i < 4; i++) sum += this.reaches(col + i, row + j, d);
    return sum / 16;
  }
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function normalize(a: Vec3): Vec3 {
  const length = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / length, a[1] / length, a[2] / length];
}
