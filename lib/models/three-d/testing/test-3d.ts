// For the 3D models' tests: the Khronos validator's verdict on a glb, what the file itself says
// (its JSON chunk, measured here apart from the code that wrote it), and checks of the poster.
import { NodeIO } from "@gltf-transform/core";
import sharp from "sharp";
import { validateBytes, type ValidationReport } from "gltf-validator";
import { expect } from "vitest";
import type { Geometry } from "../scene";

/** Issues the validator raises that are fine for these files (none so far). */
const ACCEPTABLE_WARNINGS: string[] = [];

export async function expectValidGlb(data: Buffer): Promise<ValidationReport> {
  const report = await validateBytes(new Uint8Array(data));
  const serious = report.issues.messages.filter((m) => m.severity <= 1 && !ACCEPTABLE_WARNINGS.includes(m.code));
  expect(serious, JSON.stringify(serious, null, 1)).toEqual([]);
  expect(report.issues.numErrors).toBe(0);
  return report;
}

interface GltfJson {
  asset: { version: string; generator?: string };
  nodes: Array<{
    mesh?: number;
    translation?: number[];
    rotation?: number[];
    scale?: number[];
    matrix?: number[];
    children?: number[];
  }>;
  meshes: Array<{ primitives: Array<{ attributes: Record<string, number>; indices?: number; material?: number }> }>;
  accessors: Array<{ count: number; componentType: number; type: string; min?: number[]; max?: number[] }>;
  materials: Array<{
    name?: string;
    alphaMode?: string;
    pbrMetallicRoughness?: {
      baseColorFactor?: number[];
      metallicFactor?: number;
      roughnessFactor?: number;
      baseColorTexture?: { index: number };
    };
  }>;
  images?: Array<{ mimeType?: string; bufferView?: number }>;
  textures?: unknown[];
}

/** The JSON chunk of a glb. */
export function glbJson(data: Buffer): GltfJson {
  expect(data.toString("ascii", 0, 4)).toBe("glTF");
  expect(data.readUInt32LE(4)).toBe(2);
  expect(data.readUInt32LE(8)).toBe(data.length);
  const length = data.readUInt32LE(12);
  expect(data.toString("ascii", 16, 20)).toBe("JSON");
  return JSON.parse(data.toString("utf8", 20, 20 + length)) as GltfJson;
}

/**
 * Vertices (POSITION counts), triangles (index counts / 3) and the world-space box from the
 * POSITION accessors' min/max moved by their nodes, as a glTF loader reports them. The writers
 * only translate and scale nodes, so the box corners move exactly; a rotation would fail here.
 */
export function measureGlb(data: Buffer): {
  vertices: number;
  triangles: number;
  bounding_box: { min: number[]; max: number[] };
} {
  const json = glbJson(data);
  let vertices = 0;
  let triangles = 0;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const visit = (index: number, offset: number[], scale: number[]) => {
    const node = json.nodes[index]!;
    expect(node.rotation === undefined || node.rotation.join() === "0,0,0,1", "no node rotation").toBe(true);
    expect(node.matrix, "no node matrix").toBeUndefined();
    const s = node.scale ?? [1, 1, 1];
    const t = node.translation ?? [0, 0, 0];
    const at = offset.map((o, k) => o + t[k]! * scale[k]!);
    const sc = scale.map((v, k) => v * s[k]!);
    for (const primitive of node.mesh === undefined ? [] : json.meshes[node.mesh]!.primitives) {
      const position = json.accessors[primitive.attributes.POSITION!]!;
      vertices += position.count;
      triangles += json.accessors[primitive.indices!]!.count / 3;
      expect(position.min, "POSITION has min").toHaveLength(3);
      expect(position.max, "POSITION has max").toHaveLength(3);
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k]!, at[k]! + position.min![k]! * sc[k]!);
        max[k] = Math.max(max[k]!, at[k]! + position.max![k]! * sc[k]!);
      }
    }
    for (const child of node.children ?? []) visit(child, at, sc);
  };
  const children = new Set(json.nodes.flatMap((n) => n.children ?? []));
  json.nodes.forEach((_, i) => children.has(i) || visit(i, [0, 0, 0], [1, 1, 1]));
  return { vertices, triangles, bounding_box: { min, max } };
}

/** The same file read back with glTF-Transform: vertex and triangle counts by another reader. */
export async function countWithGltfTransform(data: Buffer): Promise<{ vertices: number; triangles: number }> {
  const doc = await new NodeIO().readBinary(new Uint8Array(data));
  let [vertices, triangles] = [0, 0];
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      vertices += primitive.getAttribute("POSITION")!.getCount();
      triangles += primitive.getIndices()!.getCount() / 3;
    }
  }
  return { vertices, triangles };
}

export function expectBoxClose(
  actual: { min: number[]; max: number[] },
  expected: { min: number[]; max: number[] },
): void {
  for (let k = 0; k < 3; k++) {
    expect(actual.min[k]).toBeCloseTo(expected.min[k]!, 5);
    expect(actual.max[k]).toBeCloseTo(expected.max[k]!, 5);
  }
}

/** A real WebP of the stated size showing something: not one flat colour, its middle unlike its corners. */
export async function expectPoster(poster: {
  content_type: string;
  data: Buffer;
  width: number;
  height: number;
}): Promise<void> {
  expect(poster.content_type).toBe("image/webp");
  const meta = await sharp(poster.data).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(["webp", poster.width, poster.height]);
  const stats = await sharp(poster.data).stats();
  expect(Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev)), "not a flat colour").toBeGreaterThan(8);
  const { data: pixels, info } = await sharp(poster.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mean = (left: number, top: number, width: number, height: number) => {
    const sum = [0, 0, 0];
    for (let y = top; y < top + height; y++) {
      for (let x = left; x < left + width; x++)
        for (let k = 0; k < 3; k++) sum[k] = sum[k]! + pixels[(y * info.width + x) * 3 + k]!;
    }
    return sum.map((v) => v / (width * height));
  };
  const [w, h] = [poster.width, poster.height];
  const middle = mean(Math.round(w * 0.35), Math.round(h * 0.35), Math.round(w * 0.3), Math.round(h * 0.3));
  const box = Math.round(Math.min(w, h) * 0.12);
  for (const [left, top] of [
    [0, 0],
    [w - box, 0],
    [0, h - box],
    [w - box, h - box],
  ] as const) {
    const corner = mean(left, top, box, box);
    const difference = middle.reduce((sum, v, k) => sum + Math.abs(v - corner[k]!), 0) / 3;
    expect(difference, `middle against corner ${left},${top}`).toBeGreaterThan(10);
  }
}

/** Undirected edges of the triangles after welding vertices at the same place, with how many triangles use each. */
export function weldedEdges(g: Geometry): Map<string, number> {
  const key = (v: number) => [0, 1, 2].map((k) => Math.round(g.positions[v * 3 + k]! * 1e5)).join(",");
  const edges = new Map<string, number>();
  for (let t = 0; t < g.indices.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const [a, b] = [key(g.indices[t + e]!), key(g.indices[t + ((e + 1) % 3)]!)].sort();
      edges.set(`${a}|${b}`, (edges.get(`${a}|${b}`) ?? 0) + 1);
    }
  }
  return edges;
}
