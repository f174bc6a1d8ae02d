// What a glb's scene shows, read from its (checked) JSON: every node of the default scene that
// holds a mesh, with its world matrix (the parents' transforms times its own: matrix, or
// translation × rotation × scale), and the counts a glTF loader reports for them: vertices (the
// POSITION counts) and triangles (TRIANGLES: a third of the indices; strips and fans: two fewer
// than their indices; points and lines: none), a mesh counted again for each node placing it.
// Hierarchies are walked without recursion, and one that loops or gives a node two parents
// is refused, so no file can make the walk run forever.
import { GlbRefusal, type GltfJson } from "./glb-json";

/** Column-major 4×4, as glTF writes matrices. */
export type Mat4 = Float64Array;

export interface MeshInstance {
  node: number;
  mesh: number;
  world: Mat4;
}

export interface SceneCounts {
  instances: MeshInstance[];
  vertices: number;
  triangles: number;
}

/** The most mesh placements a scene may make, and vertices all of them together. */
export const MAX_INSTANCES = 100_000;
export const MAX_SCENE_VERTICES = 50_000_000;

const numbers = (value: unknown, length: number, what: string): number[] | null => {
  if (value === undefined) return null;
  if (
    !Array.isArray(value) ||
    value.length !== length ||
    !value.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    throw new GlbRefusal(`it is a damaged glb: ${what} is not ${length} finite numbers`);
  }
  return value as number[];
};

export function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++)
      out[c * 4 + r] =
        a[r]! * b[c * 4]! + a[4 + r]! * b[c * 4 + 1]! + a[8 + r]! * b[c * 4 + 2]! + a[12 + r]! * b[c * 4 + 3]!;
  return out;
}

/** A node's own transform. */
function localMatrix(node: NonNullable<GltfJson["nodes"]>[number], i: number): Mat4 {
  const matrix = numbers(node.matrix, 16, `node ${i}'s matrix`);
  if (matrix) return Float64Array.from(matrix);
  const [tx, ty, tz] = numbers(node.translation, 3, `node ${i}'s translation`) ?? [0, 0, 0];
  const [x, y, z, w] = numbers(node.rotation, 4, `node ${i}'s rotation`) ?? [0, 0, 0, 1];
  const [sx, sy, sz] = numbers(node.scale, 3, `node ${i}'s scale`) ?? [1, 1, 1];
  const q = Math.hypot(x!, y!, z!, w!) || 1;
  const [qx, qy, qz, qw] = [x! / q, y! / q, z! / q, w! / q];
  return Float64Array.from([
    (1 - 2 * (qy * qy + qz * qz)) * sx!,
    2 * (qx * qy + qz * qw) * sx!,
    2 * (qx * qz - qy * qw) * sx!,
    0,
    2 * (qx * qy - qz * qw) * sy!,
    (1 - 2 * (qx * qx + qz * qz)) * sy!,
    2 * (qy * qz + qx * qw) * sy!,
    0,
    2 * (qx * qz + qy * qw) * sz!,
    2 * (qy * qz - qx * qw) * sz!,
    (1 - 2 * (qx * qx + qy * qy)) * sz!,
    0,
    tx!,
    ty!,
    tz!,
    1,
  ]);
}

/** Triangles a primitive of `mode` makes of `n` indices (or vertices, unindexed). */
export function trianglesOf(mode: number, n: number): number {
  if (mode === 4) return Math.floor(n / 3);
  if (mode === 5 || mode === 6) return Math.max(0, n - 2);
  return 0;
}

/** The meshes the default scene places (the first scene; no scene: every node without a parent). */
export function sceneCounts(json: GltfJson): SceneCounts {
  const nodes = json.nodes ?? [];
  const meshes = json.meshes ?? [];
  const accessors = json.accessors ?? [];
  const parent = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((node, i) => {
    const children = node?.children ?? [];
    if (!Array.isArray(children)) throw new GlbRefusal(`it is a damaged glb: node ${i}'s children are not a list`);
    for (const child of children) {
      if (!Number.isInteger(child) || child < 0 || child >= nodes.length)
        throw new GlbRefusal(`it is a damaged glb: node ${i} has a child that does not exist`);
      if (parent[child as number] !== -1 || child === i)
        throw new GlbRefusal(`it is a damaged glb: node ${String(child)} has two parents`);
      parent[child as number] = i;
    }
  });
  const scenes = json.scenes ?? [];
  const chosen =
    scenes.length > 0
      ? scenes[Number.isInteger(json.scene) && (json.scene as number) < scenes.length ? (json.scene as number) : 0]
      : null;
  const roots: unknown[] = chosen
    ? Array.isArray(chosen.nodes)
      ? chosen.nodes
      : []
    : nodes.map((_, i) => i).filter((i) => parent[i] === -1);

  const instances: MeshInstance[] = [];
  const seen = new Uint8Array(nodes.length);
  let [vertices, triangles] = [0, 0];
  const stack: Array<{ node: number; above: Mat4 | null }> = [];
  for (const root of roots) {
    if (!Number.isInteger(root) || (root as number) < 0 || (root as number) >= nodes.length)
      throw new GlbRefusal("it is a damaged glb: its scene names a node that does not exist");
    stack.push({ node: root as number, above: null });
  }
  while (stack.length > 0) {
    const { node: i, above } = stack.pop()!;
    if (seen[i]) throw new GlbRefusal(`it is a damaged glb: node ${i} is reached twice (its hierarchy loops)`);
    seen[i] = 1;
    const node = nodes[i]!;
    const local = localMatrix(node, i);
    const world = above ? multiply(above, local) : local;
    if (node.mesh !== undefined) {
      const mesh = Number.isInteger(node.mesh) ? meshes[node.mesh as number] : undefined;
      if (!mesh || !Array.isArray(mesh.primitives))
        throw new GlbRefusal(`it is a damaged glb: node ${i} names a mesh that does not exist`);
      if (instances.length >= MAX_INSTANCES)
        throw new GlbRefusal(`its scene places more than ${MAX_INSTANCES.toLocaleString("en-US")} meshes`);
      for (const [p, primitive] of mesh.primitives.entries()) {
        const position = primitive?.attributes?.POSITION;
        const indices = primitive?.indices;
        if (position === undefined) continue;
        const at = (index: unknown) => (Number.isInteger(index) ? accessors[index as number] : undefined);
        if (!at(position) || (indices !== undefined && !at(indices)))
          throw new GlbRefusal(
            `it is a damaged glb: mesh ${String(node.mesh)} primitive ${p} names an accessor that does not exist`,
          );
        const n = Number(at(position)!.count);
        vertices += n;
        triangles += trianglesOf(
          primitive.mode === undefined ? 4 : Number(primitive.mode),
          indices === undefined ? n : Number(at(indices)!.count),
        );
      }
      if (vertices > MAX_SCENE_VERTICES)
        throw new GlbRefusal(`its scene places more than ${MAX_SCENE_VERTICES.toLocaleString("en-US")} vertices`);
      instances.push({ node: i, mesh: node.mesh as number, world });
    }
    for (const child of (node.children as number[] | undefined) ?? []) stack.push({ node: child, above: world });
  }
  return { instances, vertices, triangles };
}
