// A glb's scene (read by glTF-Transform, placed by glb-scene.ts) as the poster renderer's parts:
// every triangle primitive of every placed mesh in world space (glb-geometry.ts), with its
// material (glb-material.ts); points and lines are left out of the picture but not of the box,
// which is exact: every vertex after its node's transform. Past `budget` triangles the meshes
// are clustered on a grid sized from the scene's area (glb-decimate.ts), so a dense scan still
// gets a poster, drawn from about `budget` triangles.
import type { Document, Primitive as GltfPrimitive } from "@gltf-transform/core";
import { clustered, thinned, type Grid } from "./glb-decimate";
import {
  area,
  bothSides,
  determinant,
  flatShaded,
  floats,
  triangleList,
  worldNormals,
  worldPositions,
} from "./glb-geometry";
import { GlbRefusal } from "./glb-json";
import { PosterMaterials } from "./glb-material";
import type { Mat4, MeshInstance } from "./glb-scene";
import type { Geometry, Part, Vec3 } from "../scene";

export interface GlbScene {
  parts: Part[];
  bounding_box: { min: Vec3; max: Vec3 };
}

/** The scene's parts for the poster and its exact box; `triangles` is the scene's count (glb-scene.ts). */
export async function glbScene(
  doc: Document,
  instances: MeshInstance[],
  triangles: number,
  budget: number,
  signal?: AbortSignal,
): Promise<GlbScene> {
  const meshes = doc.getRoot().listMeshes();
  const dense = triangles > budget;
  type Visit = (
    primitive: GltfPrimitive,
    positions: Float32Array,
    triangles: Uint32Array | null,
    world: Mat4,
  ) => Promise<void> | void;
  const each = async (visit: Visit, withTriangles: boolean) => {
    for (const instance of instances) {
      signal?.throwIfAborted();
      const mirrored = determinant(instance.world) < 0;
      for (const primitive of meshes[instance.mesh]!.listPrimitives()) {
        const position = primitive.getAttribute("POSITION");
        if (!position) continue;
        const positions = worldPositions(position, instance.world);
        await visit(
          primitive,
          positions,
          withTriangles ? triangleList(primitive, positions.length / 3, mirrored) : null,
          instance.world,
        );
      }
    }
  };

  // First the box of every vertex (and, for a dense scene, its area: the grid's cell follows from it).
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  let surface = 0;
  await each((_, p, list) => {
    for (let i = 0; i < p.length; i++) {
      const k = i % 3;
      if (p[i]! < min[k]!) min[k] = p[i]!;
      if (p[i]! > max[k]!) max[k] = p[i]!;
    }
    if (list) surface += area(p, list);
  }, dense);
  if (!Number.isFinite(min[0])) throw new GlbRefusal("its scene shows no mesh");
  // About one vertex per cell of the surface, two triangles per vertex: a third to spare under the budget.
  const longest = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]) || 1;
  const cell = Math.max(Math.sqrt((3 * surface) / budget), longest / 100_000);
  const grid: Grid = { origin: min, cell, cells: Math.ceil(longest / cell) + 1 };

  const materials = new PosterMaterials();
  const parts: Part[] = [];
  await each(async (primitive, positions, list, world) => {
    if (!list || list.length === 0) return;
    const gltf = primitive.getMaterial();
    const texCoord = PosterMaterials.texCoordOf(gltf);
    const uvAccessor = texCoord === null || dense ? null : primitive.getAttribute(`TEXCOORD_${texCoord}`);
    const uvs = uvAccessor?.getCount() === positions.length / 3 ? floats(uvAccessor) : null;
    const material = await materials.of(gltf, uvs !== null);
    const normal = primitive.getAttribute("NORMAL");
    const noUvs = () => new Float32Array(0);
    let geometry: Geometry;
    if (dense) geometry = clustered(positions, list, grid);
    else if (normal?.getCount() === positions.length / 3)
      geometry = { positions, normals: worldNormals(normal, world), uvs: uvs ?? noUvs(), indices: list };
    else geometry = flatShaded(positions, uvs ?? noUvs(), list);
    if (gltf?.getDoubleSided() && !dense) geometry = bothSides(geometry);
    parts.push({ name: primitive.getName() || "mesh", translation: [0, 0, 0], primitives: [{ geometry, material }] });
  }, true);
  if (dense)
    thinned(
      parts.flatMap((part) => part.primitives.map((p) => p.geometry)),
      budget,
    );
  if (parts.length === 0) {
    // Points or lines only: nothing to draw, but the poster is still framed on where they are.
    const corners = Float32Array.from(
      [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => [
        i & 1 ? max[0] : min[0],
        i & 2 ? max[1] : min[1],
        i & 4 ? max[2] : min[2],
      ]),
    );
    const geometry = {
      positions: corners,
      normals: new Float32Array(24),
      uvs: new Float32Array(0),
      indices: new Uint32Array(0),
    };
    parts.push({
      name: "bounds",
      translation: [0, 0, 0],
      primitives: [{ geometry, material: await materials.of(null, false) }],
    });
  }
  const round = (v: Vec3) => v.map((x) => Math.round(x * 1e6) / 1e6) as Vec3;
  return { parts, bounding_box: { min: round(min), max: round(max) } };
}
