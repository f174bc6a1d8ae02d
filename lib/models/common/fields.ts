// Schema building blocks every model module shares, so each schema stays a short list.
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../../primitives/json-schema";

export const IMAGE_FORMATS = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" } as const;
export type ImageFormat = keyof typeof IMAGE_FORMATS;

export const ASPECT_RATIOS = {
  "1:1": [1, 1],
  "4:3": [4, 3],
  "3:4": [3, 4],
  "16:9": [16, 9],
  "9:16": [9, 16],
} as const;
export type AspectRatio = keyof typeof ASPECT_RATIOS;

export const ASPECT_RATIO_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Aspect ratio",
  description: "Width to height of the image.",
  enum: Object.keys(ASPECT_RATIOS),
  default: "1:1",
};

export const FORMAT_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Format",
  description: "File format of the image.",
  enum: Object.keys(IMAGE_FORMATS),
  default: "png",
};

/** Readable names of the image formats, for a model's `enumLabels`. */
export const FORMAT_LABELS = { png: "PNG", jpeg: "JPEG", webp: "WebP" } as const;

/** 1 to 4 images a run, each priced: name the field in the pricing's `drivers`. */
export const NUM_IMAGES_FIELD: JsonSchemaObject = {
  type: "integer",
  title: "Number of images",
  description: "How many images to make; each is different and each is priced.",
  minimum: 1,
  maximum: 4,
  default: 1,
};

export const SEED_FIELD: JsonSchemaObject = {
  type: "integer",
  title: "Seed",
  description: "The same input and seed give the same result. Leave empty for a random one.",
  minimum: 0,
  maximum: 2147483647,
};

/** "#rrggbb": the studio shows a colour picker beside such a field. */
export const HEX_COLOR_PATTERN = "^#[0-9a-fA-F]{6}$";

export function colorField(title: string, description: string, value: string): JsonSchemaObject {
  return { type: "string", title, description, pattern: HEX_COLOR_PATTERN, default: value, examples: [value] };
}

export function objectSchema(properties: Record<string, JsonSchemaObject>, required: string[]): JsonSchemaObject {
  return { $schema: JSON_SCHEMA_2020, type: "object", properties, required, additionalProperties: false };
}

/** Width and height for an aspect ratio with the given long side, both even (video encoders need it). */
export function sizeFor(aspectRatio: AspectRatio, longSide: number): { width: number; height: number } {
  const [w, h] = ASPECT_RATIOS[aspectRatio];
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return w >= h
    ? { width: even(longSide), height: even((longSide * h) / w) }
    : { width: even((longSide * w) / h), height: even(longSide) };
}
