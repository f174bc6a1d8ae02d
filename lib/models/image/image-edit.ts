// atelier/image-edit: everyday edits of an uploaded image in one pass: crop to an aspect ratio
// (centred, to a side, or to the most interesting part), resize, and a filter.
import sharp from "sharp";
import { fileInputField } from "../../core/catalog/file-inputs";
import {
  ASPECT_RATIOS,
  FORMAT_FIELD,
  FORMAT_LABELS,
  objectSchema,
  type AspectRatio,
  type ImageFormat,
} from "../common/fields";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";
import { encodeImage } from "./raster";
import { decodingInput, displayedImage, displayedSize } from "./input-image";

/** The longest side a result may have. */
const MAX_SIDE = 8192;

/** Classic sepia toning: each output channel a warm mix of the input's red, green and blue. */
const SEPIA: [[number, number, number], [number, number, number], [number, number, number]] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

const GRAVITY = {
  center: "centre",
  top: "north",
  bottom: "south",
  left: "west",
  right: "east",
  smart: sharp.strategy.attention,
} as const;
type Gravity = keyof typeof GRAVITY;

type Filter = "none" | "grayscale" | "sepia" | "blur" | "sharpen";

/** The largest box of the asked ratio inside width × height. */
export function cropBox(
  width: number,
  height: number,
  aspect: AspectRatio | "original",
): { width: number; height: number } {
  if (aspect === "original") return { width, height };
  const [w, h] = ASPECT_RATIOS[aspect];
  return width * h > height * w
    ? { width: Math.max(1, Math.round((height * w) / h)), height }
    : { width, height: Math.max(1, Math.round((width * h) / w)) };
}

export const imageEdit: ModelDefinition = {
  id: "atelier/image-edit",
  type: "model",
  name: "Image edit",
  creator: "Atelier",
  modality: "image",
  tasks: ["image-to-image"],
  description:
    "Crops an image to an aspect ratio, resizes it and applies a filter (grayscale, sepia, blur or sharpen).",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "image", usd: "0.001", drivers: [], overrides: [] },
  lifecycle: null,
  // No example can carry an image: each sets the other fields, and the studio asks for the image.
  examples: [
    { title: "Square, sepia", input: { aspect_ratio: "1:1", filter: "sepia" } },
    { title: "Wide banner, 1280 px", input: { aspect_ratio: "16:9", gravity: "smart", width: 1280 } },
    { title: "Black and white", input: { filter: "grayscale" } },
    { title: "Soft background blur", input: { filter: "blur", blur_strength: 8 } },
  ],
  enumLabels: {
    aspect_ratio: { original: "Original" },
    gravity: {
      center: "Centre",
      top: "Top",
      bottom: "Bottom",
      left: "Left",
      right: "Right",
      smart: "Smart (most eye-catching)",
    },
    filter: { none: "None", grayscale: "Black and white", sepia: "Sepia", blur: "Blur", sharpen: "Sharpen" },
    format: FORMAT_LABELS,
  },
  input_schema: objectSchema(
    {
      image: fileInputField("image/*", "Image", "The image to edit: a file ID from POST /v1/files."),
      aspect_ratio: {
        type: "string",
        title: "Crop to aspect ratio",
        description:
          "Cut the image to this width-to-height ratio, keeping as much of it as fits; original keeps it uncropped.",
        enum: ["original", ...Object.keys(ASPECT_RATIOS)],
        default: "original",
      },
      gravity: {
        type: "string",
        title: "Crop position",
        description: "Which part to keep when cropping: the centre, one side, or smart (the most eye-catching region).",
        enum: Object.keys(GRAVITY),
        default: "center",
      },
      width: {
        type: "integer",
        title: "Width",
        description: "Resize to this many pixels wide; the height follows the ratio. Leave empty to keep the size.",
        minimum: 16,
        maximum: 4096,
      },
      filter: {
        type: "string",
        title: "Filter",
        description: "A look to apply after cropping and resizing.",
        enum: ["none", "grayscale", "sepia", "blur", "sharpen"],
        default: "none",
      },
      blur_strength: {
        type: "number",
        title: "Blur strength",
        description:
          "How soft the blur filter makes the image (Gaussian sigma in pixels). Used only with the blur filter.",
        minimum: 0.5,
        maximum: 50,
        default: 4,
      },
      format: FORMAT_FIELD,
    },
    ["image"],
  ),
  async run(input, tools) {
    const { data } = await tools.readFile(input.image as string);
    // Phone photos carry their rotation in EXIF; crop what the person sees, not the raw sensor.
    const source = await displayedSize(data);
    const box = cropBox(source.width, source.height, input.aspect_ratio as AspectRatio | "original");
    const width = typeof input.width === "number" ? input.width : box.width;
    const height =
      typeof input.width === "number" ? Math.max(1, Math.round((input.width * box.height) / box.width)) : box.height;
    if (Math.max(width, height) > MAX_SIDE) {
      throw new ModelError(
        `The result would be ${width}×${height}; the longest side may be at most ${MAX_SIDE} pixels. Choose a smaller width or another crop.`,
      );
    }
    tools.signal.throwIfAborted();

    let image = displayedImage(data).resize(width, height, {
      fit: input.aspect_ratio === "original" ? "fill" : "cover",
      position: GRAVITY[input.gravity as Gravity],
      kernel: "lanczos3",
    });
    const filter = input.filter as Filter;
    if (filter === "grayscale") image = image.grayscale();
    if (filter === "sepia") image = image.recomb(SEPIA);
    if (filter === "blur") image = image.blur(input.blur_strength as number);
    if (filter === "sharpen") image = image.sharpen({ sigma: 1.2, m1: 1, m2: 3 });
    const format = input.format as ImageFormat;
    // JPEG has no transparency: lay transparent parts on white rather than black.
    if (format === "jpeg") image = image.flatten({ background: "#ffffff" });
    // The header may read fine while the pixels do not: a truncated or damaged file.
    return [await decodingInput(() => encodeImage(image, format, width, height))];
  },
};
