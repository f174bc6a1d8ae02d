// The geometry of one glTF primitive as the poster renderer takes it: accessors read as floats,
// positions and normals moved into world space (normals by the cofactor matrix, so scaled and
// mirrored nodes light right), strips and fans made triangle lists (glTF 2.0 §3.7.2.1), a
// mirrored node's triangles turned back to counter-clockwise, flat normals for a mesh without
// any (as glTF asks), and a double-sided material's back faces as faces of their own. An
// untextured geometry's `uvs` is empty: the renderer reads them only through a texture.
import type { Accessor, Primitive as GltfPrimitive } from "@gltf-transform/core";
import { GlbRefusal } from "./glb-json";
import type { Mat4 } from "./glb-scene";
import type { Geometry } from "../scene";

/** An accessor's elements as floats (normalized integers scaled, as glTF reads them). */
export function floats(accessor: Accessor): Float32Array {
  const array = accessor.getArray();
  if (array instanceof Float32Array && !accessor.getNormalized()) return array;
  const size = accessor.getElementSize();
  const out = new Float32Array(accessor.getCount() * size);
  const element: number[] = [];
  for (let i = 0; i < accessor.getCount(); i++) out.set(accessor.getElement(i, element), i * size);
  return out;
}

export function worldPositions(accessor: Accessor, m: Mat4): Float32Array {
  const p = floats(accessor);
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const [x, y, z] = [p[i]!, p[i + 1]!, p[i + 2]!];
    for (let k = 0; k < 3; k++) out[i + k] = m[k]! * x + m[4 + k]! * y + m[8 + k]! * z + m[12 + k]!;
    if (!Number.isFinite(out[i]! + out[i + 1]! + out[i + 2]!))
      throw new GlbRefusal("it has vertex positions that are not finite numbers");
  }
  return out;
}

export function worldNormals(accessor: Accessor, m: Mat4): Float32Array {
  const n = floats(accessor);
  // The cofactor matrix (the inverse transpose times the determinant): its sign keeps mirrored normals outward.
  const c = [
    m[5]! * m[10]! - m[6]! * m[9]!,
    m[6]! * m[8]! - m[4]! * m[10]!,
    m[4]! * m[9]! - m[5]! * m[8]!,
    m[9]! * m[2]! - m[10]! * m[1]!,
    m[10]! * m[0]! - m[8]! * m[2]!,
    m[8]! * m[1]! - m[9]! * m[0]!,
    m[1]! * m[6]! - m[2]! * m[5]!,
    m[2]! * m[4]! - m[0]! * m[6]!,
    m[0]! * m[5]! - m[1]! * m[4]!,
  ];
  const sign = m[0]! * c[0]! + m[4]! * c[3]! + m[8]! * c[6]! < 0 ? -1 : 1;
  const out = new Float32Array(n.length);
  for (let i = 0; i < n.length; i += 3) {
    const x = c[0]! * n[i]! + c[3]! * n[i + 1]! + c[6]! * n[i + 2]!;
    const y = c[1]! * n[i]! + c[4]! * n[i + 1]! + c[7]! * n[i + 2]!;
    const z = c[2]! * n[i]! + c[5]! * n[i + 1]! + c[8]! * n[i + 2]!;
    const length = (Math.hypot(x, y, z) || 1) * sign;
    [out[i], out[i + 1], out[i + 2]] = [x / length, y / length, z / length];
  }
  return out;
}

/** The determinant of a node's world matrix (its 3×3 part): below zero, the node mirrors. */
export function determinant(m: Mat4): number {
  return (
    m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) -
    m[4]! * (m[1]! * m[10]! - m[2]! * m[9]!) +
    m[8]! * (m[1]! * m[6]! - m[2]! * m[5]!)
  );
}

/**
 * The primitive's triangles as a list of vertex indices, counter-clockwise in world space (a
 * mirroring node turns the file's winding round, glTF 2.0 §3.7.4); null for points and lines.
 */
export function triangleList(primitive: GltfPrimitive, vertexCount: number, mirrored: boolean): Uint32Array | null {
  const mode = primitive.getMode();
  if (mode !== 4 && mode !== 5 && mode !== 6) return null;
  const given = primitive.getIndices()?.getArray() ?? null;
  const n = given ? given.length : vertexCount;
  const indices = new Uint32Array(n);
  if (given) indices.set(given);
  else for (let i = 0; i < n; i++) indices[i] = i;
  for (let i = 0; i < n; i++)
    if (indices[i]! >= vertexCount)
      throw new GlbRefusal("it is a damaged glb: an index names a vertex its primitive does not have");
  const out = mode === 4 ? indices.subarray(0, n - (n % 3)) : new Uint32Array(Math.max(0, n - 2) * 3);
  for (let i = 0; mode !== 4 && i + 2 < n; i++) {
    // glTF 2.0 §3.7.2.1: a fan turns about its first vertex; a strip alternates its winding.
    const [a, b, c] = mode === 6 ? [i + 1, i + 2, 0] : i % 2 === 0 ? [i, i + 1, i + 2] : [i + 1, i, i + 2];
    out[i * 3] = indices[a]!;
    out[i * 3 + 1] = indices[b]!;
    out[i * 3 + 2] = indices[c]!;
  }
  if (mirrored) for (let t = 0; t < out.length; t += 3) [out[t + 1], out[t + 2]] = [out[t + 2]!, out[t + 1]!];
  return out;
}

/** Each triangle with its own three vertices and its face's normal (glTF's rule for a mesh without normals). */
export function flatShaded(positions: Float32Array, uvs: Float32Array, triangles: Uint32Array): Geometry {
  const p = new Float32Array(triangles.length * 3);
  const n = new Float32Array(triangles.length * 3);
  const uv = new Float32Array(uvs.length > 0 ? triangles.length * 2 : 0);
  for (let t = 0; t < triangles.length; t += 3) {
    for (let j = 0; j < 3; j++) {
      const v = triangles[t + j]!;
      for (let k = 0; k < 3; k++) p[(t + j) * 3 + k] = positions[v * 3 + k]!;
      if (uv.length === 0) continue;
      uv[(t + j) * 2] = uvs[v * 2]!;
      uv[(t + j) * 2 + 1] = uvs[v * 2 + 1]!;
    }
    const o = t * 3;
    const [ax, ay, az] = [p[o + 3]! - p[o]!, p[o + 4]! - p[o + 1]!, p[o + 5]! - p[o + 2]!];
    const [bx, by, bz] = [p[o + 6]! - p[o]!, p[o + 7]! - p[o + 1]!, p[o + 8]! - p[o + 2]!];
    const [fx, fy, fz] = [ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx];
    const length = Math.hypot(fx, fy, fz) || 1;
    for (let j = 0; j < 3; j++)
      [n[o + j * 3], n[o + j * 3 + 1], n[o + j * 3 + 2]] = [fx / length, fy / length, fz / length];
  }
  const indices = new Uint32Array(triangles.length);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  return { positions: p, normals: n, uvs: uv, indices };
}

/** The geometry seen from both sides: a copy of every face turned round, its normals reversed (the renderer culls back faces). */
export function bothSides(g: Geometry): Geometry {
  const count = g.positions.length / 3;
  const positions = new Float32Array(count * 6);
  const normals = new Float32Array(count * 6);
  const uvs = new Float32Array(g.uvs.length * 2);
  positions.set(g.positions);
  positions.set(g.positions, count * 3);
  normals.set(g.normals);
  for (let i = 0; i < count * 3; i++) normals[count * 3 + i] = -g.normals[i]!;
  uvs.set(g.uvs);
  uvs.set(g.uvs, g.uvs.length);
  const indices = new Uint32Array(g.indices.length * 2);
  indices.set(g.indices);
  for (let t = 0; t < g.indices.length; t += 3) {
    indices[g.indices.length + t] = g.indices[t]! + count;
    indices[g.indices.length + t + 1] = g.indices[t + 2]! + count;
    indices[g.indices.length + t + 2] = g.indices[t + 1]! + count;
  }
  return { positions, normals, uvs, indices };
}

/** The area of the triangles (world space), for the grid a dense scene is clustered on. */
export function area(positions: Float32Array, triangles: Uint32Array): number {
  let sum = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t]! * 3, triangles[t + 1]! * 3, triangles[t + 2]! * 3];
    const [ax, ay, az] = [
      positions[b]! - positions[a]!,
      positions[b + 1]! - positions[a + 1]!,
      positions[b + 2]! - positions[a + 2]!,
    ];
    const [bx, by, bz] = [
      positions[c]! - positions[a]!,
      positions[c + 1]! - positions[a + 1]!,
      positions[c + 2]! - positions[a + 2]!,
    ];
    sum += Math.hypot(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx) / 2;
  }
  return sum;
}
