import { renderGradient, seedOf } from "./gradient-render";
import { objectSchema, PROMPT_FIELD, SEED_FIELD } from "./gradient-schema";
import type { ModelDefinition } from "../../core/catalog/model-definition";

// Retired: its sunset has passed, so its entry, quotes and runs answer 410 naming atelier/gradient.
export const gradientLegacy: ModelDefinition = {
  id: "atelier/gradient-legacy",
  type: "model",
  name: "Gradient Legacy",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description: "A square 256-pixel gradient. Retired; use Gradient.",
  revision: "2025-01-15",
  status: "stable",
  pricing: { unit: "image", usd: "0.001", drivers: [], overrides: [] },
  lifecycle: {
    deprecated_at: "2025-06-01T00:00:00.000Z",
    sunset_at: "2026-01-01T00:00:00.000Z",
    replaced_by: "atelier/gradient",
  },
  examples: [
    { title: "Harbour at dusk", input: { prompt: "ocean dusk over a quiet harbour" } },
    { title: "Mint and lemon", input: { prompt: "mint lemon cream" } },
  ],
  input_schema: objectSchema({ prompt: PROMPT_FIELD, seed: SEED_FIELD }, ["prompt"]),
  async run(input) {
    return [
      await renderGradient({
        prompt: input.prompt as string,
        aspectRatio: "1:1",
        longSide: 256,
        seed: seedOf(input),
        format: "png",
      }),
    ];
  },
};
