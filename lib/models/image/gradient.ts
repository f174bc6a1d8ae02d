import type { AspectRatio, ImageFormat } from "./gradient-render";
import { renderGradient, seedOf } from "./gradient-render";
import { ASPECT_RATIO_FIELD, FORMAT_FIELD, objectSchema, PROMPT_FIELD, SEED_FIELD } from "./gradient-schema";
import { FORMAT_LABELS, NUM_IMAGES_FIELD } from "../common/fields";
import { nthSeed } from "../common/random";
import type { ModelDefinition } from "../../core/catalog/model-definition";

const LONG_SIDE = { standard: 512, hd: 1024 } as const;

export const gradient: ModelDefinition = {
  id: "atelier/gradient",
  type: "model",
  name: "Gradient",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description: "Soft abstract gradients with floating shapes; each word of the prompt adds a colour.",
  revision: "2026-11-01",
  status: "stable",
  pricing: {
    unit: "image",
    usd: "0.002",
    drivers: ["num_images"],
    overrides: [{ when: { resolution: "hd" }, usd: "0.004" }],
  },
  lifecycle: null,
  examples: [
    { title: "Harbour at dusk", input: { prompt: "ocean dusk over a quiet harbour" } },
    {
      title: "Sunset phone wallpaper",
      input: { prompt: "sunset coral peach gold", aspect_ratio: "9:16", resolution: "hd" },
    },
    { title: "Forest mist, wide", input: { prompt: "forest mist moss fern", aspect_ratio: "16:9" } },
  ],
  enumLabels: { resolution: { standard: "Standard", hd: "HD" }, format: FORMAT_LABELS },
  input_schema: objectSchema(
    {
      prompt: PROMPT_FIELD,
      aspect_ratio: ASPECT_RATIO_FIELD,
      resolution: {
        type: "string",
        title: "Resolution",
        description: "Standard is 512 pixels on the long side, HD 1024.",
        enum: ["standard", "hd"],
        default: "standard",
      },
      num_images: NUM_IMAGES_FIELD,
      format: FORMAT_FIELD,
      seed: SEED_FIELD,
    },
    ["prompt"],
  ),
  async run(input) {
    const seed = seedOf(input);
    const count = input.num_images as number;
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        renderGradient({
          prompt: input.prompt as string,
          aspectRatio: input.aspect_ratio as AspectRatio,
          longSide: LONG_SIDE[input.resolution as keyof typeof LONG_SIDE],
          // Image i can be remade alone with its own seed, which stays inside the schema's range.
          seed: nthSeed(seed, i),
          format: input.format as ImageFormat,
        }),
      ),
    );
  },
};
