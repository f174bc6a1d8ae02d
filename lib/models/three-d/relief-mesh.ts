// A height field as a closed solid standing upright, like a plaque: the front is the relief
// (image row 0 at the top, the picture's texture coordinates on it), four side walls drop to a
// flat back at z = 0, and the back is a fan from its centre to every border vertex, so the
// solid is closed without T-junctions.
import { GeometryBuilder } from "./geometry";
import type { Geometry, Vec3 } from "./scene";

export interface HeightField {
  /** Values 0–1, row by row from the top, (cols + 1) × (rows + 1) of them. */
  heights: Float32Array;
  cols: number;
  rows: number;
}

export interface ReliefSize {
  /** Metres across (x) and up (y). */
  width: number;
  height: number;
  /** Metres from the lowest to the highest point of the relief. */
  depth: number;
  /** Metres of solid backing under the lowest point. */
  base: number;
}

/** Triangles a relief of this grid has: the front, two per wall segment, one per back segment. */
export function reliefTriangles(cols: number, rows: number): number {
  return 2 * cols * rows + 6 * (cols + rows);
}

export function reliefGeometry(field: HeightField, size: ReliefSize): { front: Geometry; sides: Geometry } {
  const { heights, cols, rows } = field;
  const { width, height, depth, base } = size;
  const at = (i: number, j: number) =>
    heights[Math.min(rows, Math.max(0, j)) * (cols + 1) + Math.min(cols, Math.max(0, i))]!;
  const x = (i: number) => -width / 2 + (width * i) / cols;
  const y = (j: number) => height - (height * j) / rows;
  const z = (i: number, j: number) => base + depth * at(i, j);

  const front = new GeometryBuilder();
  const [dx, dy] = [width / cols, height / rows];
  for (let j = 0; j <= rows; j++) {
    for (let i = 0; i <= cols; i++) {
      // The surface z = f(x, y) has the normal (−∂f/∂x, −∂f/∂y, 1); y runs opposite to j.
      const fx = (depth * (at(i + 1, j) - at(i - 1, j))) / (2 * dx);
      const fy = (depth * (at(i, j - 1) - at(i, j + 1))) / (2 * dy);
      front.vertex([x(i), y(j), z(i, j)], [-fx, -fy, 1], i / cols, j / rows);
    }
  }
  const index = (i: number, j: number) => j * (cols + 1) + i;
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) front.quad(index(i, j), index(i + 1, j), index(i + 1, j + 1), index(i, j + 1));
  }

  // The border, clockwise seen from the front: top edge, right, bottom, left.
  const border: Array<[number, number]> = [];
  for (let i = 0; i < cols; i++) border.push([i, 0]);
  for (let j = 0; j < rows; j++) border.push([cols, j]);
  for (let i = cols; i > 0; i--) border.push([i, rows]);
  for (let j = rows; j > 0; j--) border.push([0, j]);
  const outward = ([i, j]: [number, number], [, j2]: [number, number]): Vec3 =>
    j === j2 ? [0, j === 0 ? 1 : -1, 0] : [i === 0 ? -1 : 1, 0, 0];

  const sides = new GeometryBuilder();
  const back: Vec3 = [0, 0, -1];
  const centre = sides.vertex([0, height / 2, 0], back);
  border.forEach((p, k) => {
    const q = border[(k + 1) % border.length]!;
    const n = outward(p, q);
    const top = [sides.vertex([x(p[0]), y(p[1]), z(...p)], n), sides.vertex([x(q[0]), y(q[1]), z(...q)], n)] as const;
    const bottom = [sides.vertex([x(p[0]), y(p[1]), 0], n), sides.vertex([x(q[0]), y(q[1]), 0], n)] as const;
    sides.quad(top[0], top[1], bottom[1], bottom[0]);
    sides.triangle(centre, sides.vertex([x(p[0]), y(p[1]), 0], back), sides.vertex([x(q[0]), y(q[1]), 0], back));
  });
  return { front: front.build(), sides: sides.build() };
}
