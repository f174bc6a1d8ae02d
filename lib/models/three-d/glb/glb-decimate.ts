// A stand-in for a mesh too dense to draw for a poster: vertex clustering on a uniform grid
// (every vertex in a cell becomes one, at their average; triangles left with fewer than three
// corners drop out), with smooth normals from the faces around each new vertex. Holes do not
// open, as they would by skipping triangles, and the cost is one pass over the mesh. Only the
// poster sees it: the glb and its counts stay as the provider made them.
import type { Geometry, Vec3 } from "../scene";

export interface Grid {
  /** The scene's lowest corner. */
  origin: Vec3;
  /** A cell's edge, in metres. */
  cell: number;
  /** Cells along each axis (the scene's longest extent over `cell`, plus one). */
  cells: number;
}

/** The triangles (world-space positions, a triangle list) clustered on `grid`. */
export function clustered(positions: Float32Array, triangles: Uint32Array, grid: Grid): Geometry {
  const vertexCount = positions.length / 3;
  const remap = new Int32Array(vertexCount);
  const cellIndex = new Map<number, number>();
  const sums: number[] = [];
  const per = grid.cells + 1;
  for (let v = 0; v < vertexCount; v++) {
    let key = 0;
    for (let k = 2; k >= 0; k--) {
      const at = Math.min(grid.cells, Math.max(0, Math.floor((positions[v * 3 + k]! - grid.origin[k]!) / grid.cell)));
      key = key * per + at;
    }
    let index = cellIndex.get(key);
    if (index === undefined) {
      index = sums.length / 4;
      cellIndex.set(key, index);
      sums.push(0, 0, 0, 0);
    }
    sums[index * 4] = sums[index * 4]! + positions[v * 3]!;
    sums[index * 4 + 1] = sums[index * 4 + 1]! + positions[v * 3 + 1]!;
    sums[index * 4 + 2] = sums[index * 4 + 2]! + positions[v * 3 + 2]!;
    sums[index * 4 + 3] = sums[index * 4 + 3]! + 1;
    remap[v] = index;
  }
  const count = sums.length / 4;
  const out = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) for (let k = 0; k < 3; k++) out[i * 3 + k] = sums[i * 4 + k]! / sums[i * 4 + 3]!;
  const kept: number[] = [];
  const normals = new Float32Array(count * 3);
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [remap[triangles[t]!]!, remap[triangles[t + 1]!]!, remap[triangles[t + 2]!]!];
    if (a === b || b === c || a === c) continue;
    kept.push(a, b, c);
    // The face's normal, as long as its area: larger faces weigh more in the vertex normals.
    const e1 = [out[b * 3]! - out[a * 3]!, out[b * 3 + 1]! - out[a * 3 + 1]!, out[b * 3 + 2]! - out[a * 3 + 2]!];
    const e2 = [out[c * 3]! - out[a * 3]!, out[c * 3 + 1]! - out[a * 3 + 1]!, out[c * 3 + 2]! - out[a * 3 + 2]!];
    const n = [e1[1]! * e2[2]! - e1[2]! * e2[1]!, e1[2]! * e2[0]! - e1[0]! * e2[2]!, e1[0]! * e2[1]! - e1[1]! * e2[0]!];
    for (const v of [a, b, c]) for (let k = 0; k < 3; k++) normals[v * 3 + k] = normals[v * 3 + k]! + n[k]!;
  }
  for (let i = 0; i < count; i++) {
    const length = Math.hypot(normals[i * 3]!, normals[i * 3 + 1]!, normals[i * 3 + 2]!) || 1;
    for (let k = 0; k < 3; k++) normals[i * 3 + k] = normals[i * 3 + k]! / length;
  }
  // No texture coordinates: a clustered vertex stands for many (its material is untextured, glb-parts.ts).
  return { positions: out, normals, uvs: new Float32Array(0), indices: Uint32Array.from(kept) };
}

/** Keeps every k-th triangle of the geometries so that at most `budget` remain (the last resort). */
export function thinned(geometries: Geometry[], budget: number): void {
  const total = geometries.reduce((n, g) => n + g.indices.length / 3, 0);
  if (total <= budget) return;
  const step = Math.ceil(total / budget);
  for (const g of geometries) {
    const kept = new Uint32Array(Math.ceil(g.indices.length / 3 / step) * 3);
    let n = 0;
    for (let t = 0; t < g.indices.length; t += 3 * step) {
      kept[n++] = g.indices[t]!;
      kept[n++] = g.indices[t + 1]!;
      kept[n++] = g.indices[t + 2]!;
    }
    g.indices = kept.subarray(0, n);
  }
}
