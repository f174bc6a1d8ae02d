// atelier/upscale: an uploaded image enlarged 2× or 4× (Lanczos), with a light sharpening pass.
import { fileInputField } from "../../core/catalog/file-inputs";
import { FORMAT_FIELD, objectSchema } from "./gradient-schema";
import { FORMAT_LABELS } from "../common/fields";
import { IMAGE_FORMATS, type ImageFormat } from "./gradient-render";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";
import { decodingInput, displayedImage, displayedSize } from "./input-image";

/** The longest side an upscaled image may have. */
const MAX_SIDE = 8192;

export const upscale: ModelDefinition = {
  id: "atelier/upscale",
  type: "model",
  name: "Upscale",
  creator: "Atelier",
  modality: "image",
  tasks: ["image-to-image", "upscale"],
  description: "Enlarges an image 2× or 4× with Lanczos resampling and a light sharpening pass.",
  revision: "2026-11-01",
  status: "stable",
  pricing: { unit: "image", usd: "0.004", drivers: [], overrides: [{ when: { scale: 4 }, usd: "0.008" }] },
  lifecycle: null,
  // No example can carry an image: each sets the other fields, and the studio asks for the image.
  examples: [
    { title: "Twice the size, sharpened", input: { scale: 2, sharpen: true } },
    { title: "Four times, as JPEG", input: { scale: 4, sharpen: true, format: "jpeg" } },
    { title: "Twice, soft, as WebP", input: { scale: 2, sharpen: false, format: "webp" } },
  ],
  enumLabels: { scale: { "2": "2×", "4": "4×" }, format: FORMAT_LABELS },
  input_schema: objectSchema(
    {
      image: fileInputField("image/*", "Image", "The image to enlarge: a file ID from POST /v1/files."),
      scale: { type: "integer", title: "Scale", description: "How many times larger.", enum: [2, 4], default: 2 },
      sharpen: {
        type: "boolean",
        title: "Sharpen",
        description: "A light sharpening pass after enlarging.",
        default: true,
      },
      format: FORMAT_FIELD,
    },
    ["image"],
  ),
  async run(input, tools) {
    const { data } = await tools.readFile(input.image as string);
    // A phone photo is enlarged the way it is shown, not as its sensor stored it (sideways).
    const source = await displayedSize(data);
    const scale = input.scale as number;
    const width = source.width * scale;
    const height = source.height * scale;
    if (Math.max(width, height) > MAX_SIDE) {
      throw new ModelError(
        `The result would be ${width}×${height}; the longest side may be at most ${MAX_SIDE} pixels. Use a smaller image or scale.`,
      );
    }
    tools.signal.throwIfAborted();
    let image = displayedImage(data).resize(width, height, { kernel: "lanczos3" });
    if (input.sharpen) image = image.sharpen({ sigma: 0.6 });
    const format = input.format as ImageFormat;
    const out = await decodingInput(() => image.toFormat(format, format === "png" ? {} : { quality: 92 }).toBuffer());
    return [{ type: "image", content_type: IMAGE_FORMATS[format], data: out, width, height }];
  },
};
