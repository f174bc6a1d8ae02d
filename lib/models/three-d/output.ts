// A built scene as the output a run returns: the glb, its counts and bounds, and its poster.
import type { RunTools } from "../../core/catalog/model-definition";
import { writeGlb } from "./glb/glb";
import { renderPoster, type PosterOptions } from "./poster";
import { measureScene, type Part } from "./scene";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

/** Writes and renders the scene; progress goes from `from` to 1 of the run. */
export async function sceneOutput(
  parts: readonly Part[],
  tools: Pick<RunTools, "signal" | "reportProgress">,
  from: number,
  poster: PosterOptions = {},
): Promise<ThreeDOutput> {
  tools.signal.throwIfAborted();
  const data = await writeGlb(parts);
  tools.reportProgress(from + (1 - from) * 0.3);
  tools.signal.throwIfAborted();
  const still = await renderPoster(parts, poster);
  tools.reportProgress(1);
  return { type: "3d", content_type: "model/gltf-binary", data, ...measureScene(parts), poster: still };
}
