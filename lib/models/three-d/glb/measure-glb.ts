// A glTF binary made elsewhere (a provider's 3D output) measured into the output Atelier stores,
// as its own models' are: the file as it came, the vertices and triangles a glTF loader reports
// for its default scene, the world-space bounding box of every vertex after its nodes' transforms
// (rotations and scales included), and a poster rendered from the same scene by the built-in
// renderer. Hostile files are refused with the reason, never left to run: the container and every
// accessor are checked against the bytes first (glb-json.ts), the node hierarchy is walked without
// recursion (glb-scene.ts), and the poster draws at most POSTER_TRIANGLES (a denser scene is
// clustered for it, glb-decimate.ts).
import type { Document } from "@gltf-transform/core";
import { gltfTransform } from "./gltf-package";
import type { ThreeDOutput } from "../../../core/catalog/model-definition";
import { checkGlbJson, GlbRefusal, readGlbContainer } from "./glb-json";
import { glbScene } from "./glb-parts";
import { sceneCounts } from "./glb-scene";
import { renderPoster, type PosterOptions } from "../poster";

export { GlbRefusal } from "./glb-json";

/** The most triangles the poster draws; past it the scene is clustered on a grid for the picture. */
export const POSTER_TRIANGLES = 2_000_000;

export interface ReadGlbOptions {
  signal?: AbortSignal;
  poster?: PosterOptions;
  /** Triangles drawn at most (tests lower it). */
  posterTriangles?: number;
}

/**
 * The glb as a 3D output; null when the bytes are not a glTF 2.0 binary (another format, a
 * .gltf JSON, garbage). A glb that is damaged, needs an extension Atelier does not read, refers
 * to other files or is absurdly large throws a GlbRefusal saying so.
 */
export async function readGlbOutput(bytes: Buffer, options: ReadGlbOptions = {}): Promise<ThreeDOutput | null> {
  const container = readGlbContainer(bytes);
  if (!container) return null;
  checkGlbJson(container.json, container.binLength);
  const counts = sceneCounts(container.json);
  if (counts.instances.length === 0 || counts.vertices === 0) throw new GlbRefusal("its scene shows no mesh");
  options.signal?.throwIfAborted();
  const { Logger, NodeIO } = gltfTransform();
  let doc: Document;
  try {
    doc = await new NodeIO().setLogger(new Logger(Logger.Verbosity.SILENT)).readBinary(container.glb);
  } catch (err) {
    throw new GlbRefusal(
      `it is a damaged glb: ${err instanceof Error ? err.message.slice(0, 200) : "glTF-Transform cannot read it"}`,
    );
  }
  const scene = await glbScene(
    doc,
    counts.instances,
    counts.triangles,
    options.posterTriangles ?? POSTER_TRIANGLES,
    options.signal,
  );
  options.signal?.throwIfAborted();
  const poster = await renderPoster(scene.parts, options.poster);
  return {
    type: "3d",
    content_type: "model/gltf-binary",
    data: bytes.length === container.glb.length ? bytes : bytes.subarray(0, container.glb.length),
    vertices: counts.vertices,
    triangles: counts.triangles,
    bounding_box: scene.bounding_box,
    poster,
  };
}
