import type { AspectRatio } from "../image/gradient-render";
import { renderGradient, seedOf } from "../image/gradient-render";
import { ASPECT_RATIO_FIELD, objectSchema, PROMPT_FIELD, SEED_FIELD } from "../image/gradient-schema";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { ModelDefinition } from "../../core/catalog/model-definition";

// A versioned preset: a gradient with a title set over it. @2 adds a frame and a format choice.
const TITLE_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Title",
  description: "The words set in the middle of the poster.",
  minLength: 1,
  maxLength: 60,
};

const common: Pick<ModelDefinition, "type" | "name" | "creator" | "modality" | "tasks" | "status" | "lifecycle"> = {
  type: "preset",
  name: "Gradient Poster",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  status: "stable",
  lifecycle: null,
};

export const gradientPosterV1: ModelDefinition = {
  ...common,
  id: "atelier/gradient-poster@1",
  description: "A poster: a gradient from the prompt with a title in the middle.",
  revision: "2026-11-23",
  pricing: { unit: "run", usd: "0.005", drivers: [], overrides: [] },
  examples: [
    { title: "Open studio", input: { prompt: "ocean dusk teal", title: "Open Studio" } },
    { title: "Summer fair", input: { prompt: "sunset coral gold", title: "Summer Fair" } },
  ],
  input_schema: objectSchema({ prompt: PROMPT_FIELD, title: TITLE_FIELD, seed: SEED_FIELD }, ["prompt", "title"]),
  async run(input, tools) {
    // One render and no steps: the run is done when it is.
    const poster = await renderGradient({
      prompt: input.prompt as string,
      title: input.title as string,
      aspectRatio: "3:4",
      longSide: 768,
      seed: seedOf(input),
      format: "png",
    });
    tools.reportProgress(1);
    return [poster];
  },
};

export const gradientPosterV2: ModelDefinition = {
  ...common,
  id: "atelier/gradient-poster@2",
  description: "A framed poster: a gradient from the prompt, a title in the middle, any aspect ratio.",
  revision: "2026-11-23",
  pricing: { unit: "run", usd: "0.006", drivers: [], overrides: [] },
  examples: [
    { title: "Open studio", input: { prompt: "ocean dusk teal", title: "Open Studio" } },
    { title: "Summer fair, square", input: { prompt: "sunset coral gold", title: "Summer Fair", aspect_ratio: "1:1" } },
    {
      title: "Concert banner",
      input: { prompt: "neon violet night", title: "Live at the Pier", aspect_ratio: "16:9" },
    },
  ],
  input_schema: objectSchema(
    {
      prompt: PROMPT_FIELD,
      title: TITLE_FIELD,
      aspect_ratio: { ...ASPECT_RATIO_FIELD, default: "3:4" },
      seed: SEED_FIELD,
    },
    ["prompt", "title"],
  ),
  async run(input, tools) {
    // One render and no steps: the run is done when it is.
    const poster = await renderGradient({
      prompt: input.prompt as string,
      title: input.title as string,
      aspectRatio: input.aspect_ratio as AspectRatio,
      longSide: 1024,
      seed: seedOf(input),
      format: "png",
      frame: true,
    });
    tools.reportProgress(1);
    return [poster];
  },
};
