// atelier/shapes-3d: procedural text-to-3D. The prompt's words choose shapes (cube, sphere,
// torus, arch…), their number, colours and finishes (metal, matte, glossy, glass) and how they
// stand (stack, ring, row, scatter, grid); words it does not know still choose, by their hash.
// The result is a glb on a round plinth `size` metres across, with a rendered poster.
import { objectSchema, SEED_FIELD } from "../common/fields";
import { seedOf } from "../common/random";
import type { ModelDefinition, RunTools } from "../../core/catalog/model-definition";
import { sceneOutput } from "./output";
import { DETAIL_FIELD, DETAIL_LABELS, DETAIL_PRICING, type DetailLevel } from "./fields";
import { buildShapesScene } from "./shapes-scene";
import { readPrompt } from "./shapes-words";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

/** Makes the output of one run; `input` is validated with defaults filled. */
export async function makeShapes(
  input: Record<string, unknown>,
  tools: Pick<RunTools, "signal" | "reportProgress">,
): Promise<ThreeDOutput> {
  const prompt = input.prompt as string;
  const plan = readPrompt(prompt);
  tools.reportProgress(0.05);
  const parts = buildShapesScene(plan, {
    prompt,
    seed: seedOf(input),
    detail: input.detail as DetailLevel,
    size: input.size as number,
  });
  tools.reportProgress(0.3);
  return sceneOutput(parts, tools, 0.3);
}

export const shapes3d: ModelDefinition = {
  id: "atelier/shapes-3d",
  type: "model",
  name: "Shapes 3D",
  creator: "Atelier",
  modality: "3d",
  tasks: ["text-to-3d"],
  description:
    "Procedural 3D scenes from a prompt, as a glTF binary: shape words (cube, sphere, cylinder, cone, torus, pyramid, capsule, arch, stairs, vase…), numbers, colours, finishes (metal, matte, glossy, glass) and arrangements (stack, ring, row, scatter, grid) on a round plinth.",
  revision: "2026-11-24",
  status: "beta",
  pricing: DETAIL_PRICING,
  lifecycle: null,
  examples: [
    { title: "Stack of glossy rings", input: { prompt: "a stack of five glossy coral and teal rings" } },
    {
      title: "Gold spheres in a circle",
      input: { prompt: "six gold spheres in a circle around a white pillar", detail: "high" },
    },
    { title: "Matte desert arch", input: { prompt: "a terracotta arch beside three sand cones, matte clay", size: 2 } },
  ],
  enumLabels: { detail: DETAIL_LABELS },
  input_schema: objectSchema(
    {
      prompt: {
        type: "string",
        title: "Prompt",
        description:
          "What to build. Shape words (cube, box, sphere, egg, cylinder, pillar, tower, cone, spire, torus, pyramid, capsule, arch, stairs, vase) with numbers, colours (red, teal, gold…) and finishes (metal, matte, glossy, glass); stack, ring, row, scatter or grid says how they stand.",
        minLength: 1,
        maxLength: 1000,
        examples: ["a stack of five glossy coral and teal rings", "three red cubes and a glass sphere"],
      },
      detail: DETAIL_FIELD,
      size: {
        type: "number",
        title: "Size",
        description: "Metres across the plinth: the whole scene is scaled to it.",
        minimum: 0.1,
        maximum: 10,
        default: 1,
      },
      seed: SEED_FIELD,
    },
    ["prompt"],
  ),
  async run(input, tools) {
    return [await makeShapes(input, tools)];
  },
};
