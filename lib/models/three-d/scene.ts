// The one in-memory description both 3D models build: parts (a glTF node with its mesh) made of
// primitives (geometry + material). The glb writer and the poster renderer both read it, so the
// file and its picture cannot disagree, and the counts and bounds are measured from it.
export type Vec3 = [number, number, number];
/** Linear RGBA, as glTF's baseColorFactor. */
export type Rgba = [number, number, number, number];

export interface Geometry {
  /** x, y, z per vertex (metres). */
  positions: Float32Array;
  /** Unit normal per vertex. */
  normals: Float32Array;
  /** u, v per vertex; written to the file only for textured materials. */
  uvs: Float32Array;
  /** Triangles, counter-clockwise seen from outside. */
  indices: Uint32Array;
}

export interface Texture {
  /** What the file embeds. */
  png: Buffer;
  /** The same pixels as raw sRGB, 3 channels, for the poster. */
  rgb: Buffer;
  width: number;
  height: number;
}

export interface Material {
  name: string;
  color: Rgba;
  metallic: number;
  roughness: number;
  /** Alpha-blended (glass); otherwise opaque. */
  blend: boolean;
  texture?: Texture;
}

export interface Primitive {
  geometry: Geometry;
  material: Material;
}

export interface Part {
  name: string;
  /** The node's translation; the geometry is relative to it. */
  translation: Vec3;
  primitives: Primitive[];
}

export interface SceneMeasure {
  vertices: number;
  triangles: number;
  bounding_box: { min: Vec3; max: Vec3 };
}

/** Counts and world-space bounds, as a glTF loader would report them for the written file. */
export function measureScene(parts: readonly Part[]): SceneMeasure {
  let vertices = 0;
  let triangles = 0;
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (const part of parts) {
    for (const { geometry } of part.primitives) {
      vertices += geometry.positions.length / 3;
      triangles += geometry.indices.length / 3;
      const p = geometry.positions;
      for (let i = 0; i < p.length; i += 3) {
        for (let k = 0; k < 3; k++) {
          const v = p[i + k]! + part.translation[k]!;
          if (v < min[k]!) min[k] = v;
          if (v > max[k]!) max[k] = v;
        }
      }
    }
  }
  // Micrometres are plenty, and keep the JSON free of float noise.
  const round = (v: Vec3) => v.map((x) => Math.round(x * 1e6) / 1e6) as Vec3;
  return { vertices, triangles, bounding_box: { min: round(min), max: round(max) } };
}

/** An sRGB "#rrggbb" colour as linear RGB, the space glTF's factors are in. */
export function linearRgb(hex: string): [number, number, number] {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return [channel(0), channel(1), channel(2)];
}

/** Every part's triangles in world space, each with its material, as flat arrays (for drawing). */
export function worldTriangles(parts: readonly Part[]) {
  const prims = parts.flatMap((part) => part.primitives.map((p) => ({ ...p, at: part.translation })));
  const vertexCount = prims.reduce((n, p) => n + p.geometry.positions.length / 3, 0);
  const triangleCount = prims.reduce((n, p) => n + p.geometry.indices.length / 3, 0);
  const positions = new Float32Array(vertexCount * 3);
  const normals = new Float32Array(vertexCount * 3);
  const uvs = new Float32Array(vertexCount * 2);
  const triangles = new Uint32Array(triangleCount * 3);
  const materialOf = new Uint16Array(triangleCount);
  const materials: Material[] = [];
  let [v, t] = [0, 0];
  for (const { geometry: g, material, at } of prims) {
    for (let i = 0; i < g.positions.length; i++) positions[v * 3 + i] = g.positions[i]! + at[i % 3]!;
    normals.set(g.normals, v * 3);
    uvs.set(g.uvs, v * 2);
    if (!materials.includes(material)) materials.push(material);
    for (let i = 0; i < g.indices.length; i++) triangles[t * 3 + i] = g.indices[i]! + v;
    materialOf.fill(materials.indexOf(material), t, t + g.indices.length / 3);
    v += g.positions.length / 3;
    t += g.indices.length / 3;
  }
  return { positions, normals, uvs, triangles, materialOf, materials, triangleCount };
}
