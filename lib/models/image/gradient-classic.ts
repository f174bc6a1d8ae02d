import type { AspectRatio } from "./gradient-render";
import { renderGradient, seedOf } from "./gradient-render";
import { ASPECT_RATIO_FIELD, objectSchema, PROMPT_FIELD, SEED_FIELD } from "./gradient-schema";
import type { ModelDefinition } from "../../core/catalog/model-definition";

// The first gradient model: PNG only, one image a run. Deprecated in favour of atelier/gradient.
export const gradientClassic: ModelDefinition = {
  id: "atelier/gradient-classic",
  type: "model",
  name: "Gradient Classic",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description: "The first gradient model: one 512-pixel PNG a run. Superseded by Gradient.",
  revision: "2026-03-01",
  status: "stable",
  pricing: { unit: "image", usd: "0.002", drivers: [], overrides: [] },
  lifecycle: {
    deprecated_at: "2026-10-01T00:00:00.000Z",
    sunset_at: "2030-12-31T00:00:00.000Z",
    replaced_by: "atelier/gradient",
  },
  examples: [
    { title: "Harbour at dusk", input: { prompt: "ocean dusk over a quiet harbour" } },
    { title: "Lavender, wide", input: { prompt: "lavender lilac mist", aspect_ratio: "16:9" } },
  ],
  input_schema: objectSchema({ prompt: PROMPT_FIELD, aspect_ratio: ASPECT_RATIO_FIELD, seed: SEED_FIELD }, ["prompt"]),
  async run(input) {
    return [
      await renderGradient({
        prompt: input.prompt as string,
        aspectRatio: input.aspect_ratio as AspectRatio,
        longSide: 512,
        seed: seedOf(input),
        format: "png",
      }),
    ];
  },
};
