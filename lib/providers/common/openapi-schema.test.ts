// OpenAPI input schemas as Replicate and fal publish them → JSON Schema 2020-12 that the server's
// own validator (lib/core/catalog/input-validation.ts, Ajv strict) compiles, that fills defaults and
// refuses bad input with the same messages as a built-in's, and that the quote prices.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../primitives/errors";
import { FILE_ID_PATTERN } from "../../core/catalog/file-inputs";
import { validateModelInput } from "../../core/catalog/input-validation";
import { priceInput } from "../../core/runs/pricing";
import { falFluxDevOpenApi, FAKE_FAL_ENDPOINTS } from "../fal/testing/fal-fake";
import { convertOpenApiInput, SchemaImportError } from "./openapi-schema";
import { FLUX_SCHNELL_SCHEMA, IMAGE_TO_VIDEO_SCHEMA } from "../replicate/testing/replicate-fake";

type Doc = { components: { schemas: Record<string, Record<string, unknown>> } };

function refusal(
  schema: Record<string, unknown>,
  input: Record<string, unknown>,
): { message: string; param: string | null } {
  try {
    validateModelInput(schema, input, { modelId: "bfl/flux-schnell" });
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return { message: (err as ApiError).message, param: (err as ApiError).param ?? null };
  }
  throw new Error("the input was accepted");
}

describe("Replicate's OpenAPI input (FLUX.1 [schnell])", () => {
  const doc = FLUX_SCHNELL_SCHEMA as unknown as Doc;
  const { schema, dropped, fileListFields } = convertOpenApiInput(doc.components.schemas.Input!, doc);

  it("becomes a closed JSON Schema 2020-12 in x-order, enums resolved, titles, descriptions, defaults and bounds kept", () => {
    expect(Object.keys(schema.properties!)).toEqual([
      "prompt",
      "aspect_ratio",
      "num_outputs",
      "seed",
      "output_format",
      "output_quality",
      "disable_safety_checker",
      "go_fast",
      "megapixels",
      "num_inference_steps",
    ]);
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: ["prompt"],
      additionalProperties: false,
    });
    expect(schema.properties!.prompt).toEqual({
      title: "Prompt",
      description: "Prompt for generated image",
      type: "string",
    });
    expect(schema.properties!.aspect_ratio).toEqual({
      title: "Aspect ratio",
      description: "Aspect ratio for the generated image",
      type: "string",
      enum: ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"],
      default: "1:1",
    });
    expect(schema.properties!.num_outputs).toEqual({
      title: "Num Outputs",
      description: "Number of outputs to generate",
      type: "integer",
      minimum: 1,
      maximum: 4,
      default: 1,
    });
    expect(schema.properties!.megapixels).toMatchObject({ type: "string", enum: ["1", "0.25"], default: "1" });
    expect(JSON.stringify(schema)).not.toMatch(/x-order|allOf|\$ref|An enumeration/);
    expect(dropped).toEqual([]);
    expect(fileListFields).toEqual([]);
  });

  it("validates, fills defaults and refuses like a built-in, and quotes per output", () => {
    const input = validateModelInput(schema, { prompt: "a fox", num_outputs: 3 }, { modelId: "bfl/flux-schnell" });
    expect(input).toEqual({
      prompt: "a fox",
      aspect_ratio: "1:1",
      num_outputs: 3,
      output_format: "webp",
      output_quality: 80,
      disable_safety_checker: false,
      go_fast: true,
      megapixels: "1",
      num_inference_steps: 4,
    });
    expect(refusal(schema, { prompt: "a fox", num_outputs: 5 })).toEqual({
      param: "input.num_outputs",
      message: "input.num_outputs must be from 1 to 4; got 5.",
    });
    expect(refusal(schema, { prompt: "a fox", aspect_ratio: "2:1" }).message).toBe(
      'input.aspect_ratio must be one of "1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"; got "2:1".',
    );
    expect(refusal(schema, { prompt: "a fox", steps: 4 }).message).toMatch(
      /^input\.steps is not an input of bfl\/flux-schnell\. Its inputs are: prompt, aspect_ratio, /,
    );
    expect(refusal(schema, {}).param).toBe("input.prompt");
    expect(priceInput({ unit: "image", usd: "0.003", drivers: ["num_outputs"], overrides: [] }, input)).toBe(9_000);
  });

  it("makes a media URL input a file input", () => {
    const video = IMAGE_TO_VIDEO_SCHEMA as unknown as Doc;
    const converted = convertOpenApiInput(video.components.schemas.Input!, video);
    expect(converted.schema.properties!.start_image).toEqual({
      type: "string",
      title: "Start Image",
      description: "First frame of the video (optional) A file ID (file_…) of type image/*.",
      pattern: FILE_ID_PATTERN,
      contentMediaType: "image/*",
    });
    expect(converted.schema.properties!.duration).toMatchObject({ type: "integer", enum: [5, 10], default: 5 });
  });
});

describe("fal's OpenAPI input (fal-ai/flux/dev)", () => {
  const doc = falFluxDevOpenApi() as unknown as Doc;
  const { schema } = convertOpenApiInput({ $ref: "#/components/schemas/FluxDevInput" }, doc);

  it("follows x-fal-order-properties, closes the image_size choice and drops null from an optional seed", () => {
    expect(Object.keys(schema.properties!)).toEqual([
      "prompt",
      "image_size",
      "num_inference_steps",
      "seed",
      "guidance_scale",
      "sync_mode",
      "num_images",
      "enable_safety_checker",
      "output_format",
      "acceleration",
    ]);
    expect(schema.properties!.image_size).toEqual({
      title: "Image Size",
      description: "The size of the generated image.",
      default: "landscape_4_3",
      anyOf: [
        {
          type: "object",
          properties: {
            width: {
              title: "Width",
              description: "The width of the generated image.",
              type: "integer",
              minimum: 1,
              maximum: 14142,
            },
            height: {
              title: "Height",
              description: "The height of the generated image.",
              type: "integer",
              minimum: 1,
              maximum: 14142,
            },
          },
          additionalProperties: false,
        },
        {
          type: "string",
          enum: ["square_hd", "square", "portrait_4_3", "portrait_16_9", "landscape_4_3", "landscape_16_9"],
        },
      ],
    });
    expect(schema.properties!.seed).toEqual({
      title: "Seed",
      description: expect.stringContaining("same seed"),
      type: "integer",
    });
    expect(schema.properties!.prompt).toMatchObject({
      type: "string",
      examples: ["Extreme close-up of a single tiger eye"],
    });
  });

  it("validates both shapes of image_size and fills defaults", () => {
    expect(validateModelInput(schema, { prompt: "x" }, { modelId: "bfl/flux-dev" })).toMatchObject({
      image_size: "landscape_4_3",
      num_images: 1,
      guidance_scale: 3.5,
    });
    expect(
      validateModelInput(schema, { prompt: "x", image_size: { width: 640, height: 480 } }, { modelId: "bfl/flux-dev" })
        .image_size,
    ).toEqual({ width: 640, height: 480 });
    expect(refusal(schema, { prompt: "x", image_size: { width: 0, height: 480 } }).param).toMatch(/^input\.image_size/);
    expect(refusal(schema, { prompt: "x", image_size: { width: 64, height: 48, depth: 3 } }).param).toMatch(
      /^input\.image_size/,
    );
    expect(refusal(schema, { prompt: "x", seed: null }).param).toBe("input.seed");
  });

  it("offers fal's URL inputs as file inputs: one file, or a one-item list", () => {
    const video = FAKE_FAL_ENDPOINTS[1]!.openapi as unknown as Doc;
    const converted = convertOpenApiInput(video.components.schemas.VideoInput!, video);
    expect(Object.keys(converted.schema.properties!)).toEqual(["prompt", "image_url", "duration", "image_urls"]);
    expect(converted.schema.properties!.image_url).toMatchObject({
      contentMediaType: "image/*",
      pattern: FILE_ID_PATTERN,
    });
    expect(converted.schema.properties!.image_urls).toMatchObject({ type: "string", contentMediaType: "image/*" });
    expect(converted.fileListFields).toEqual(["image_urls"]);
    expect(converted.schema.required).toEqual(["prompt", "image_url"]);
  });
});

describe("what cannot be offered", () => {
  const doc = { components: { schemas: {} } };

  it("leaves out an optional URL of unknown media and refuses a required one", () => {
    const optional = convertOpenApiInput(
      {
        type: "object",
        properties: {
          prompt: { type: "string" },
          weights: { type: "string", format: "uri", description: "LoRA weights" },
        },
      },
      doc,
    );
    expect(Object.keys(optional.schema.properties!)).toEqual(["prompt"]);
    expect(optional.dropped).toEqual([
      { field: "weights", reason: "a URL of unknown media (Atelier takes files, not URLs)" },
    ]);
    expect(() =>
      convertOpenApiInput(
        { type: "object", required: ["weights"], properties: { weights: { type: "string", format: "uri" } } },
        doc,
      ),
    ).toThrow(SchemaImportError);
  });

  it("turns OpenAPI 3.0 boolean exclusive bounds into JSON Schema's and refuses a reference loop", () => {
    const converted = convertOpenApiInput(
      {
        type: "object",
        properties: { strength: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 1, nullable: true } },
      },
      doc,
    );
    expect(converted.schema.properties!.strength).toEqual({
      title: "Strength",
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
    });
    const loop = {
      components: { schemas: { A: { $ref: "#/components/schemas/B" }, B: { $ref: "#/components/schemas/A" } } },
    };
    expect(() =>
      convertOpenApiInput({ type: "object", properties: { a: { $ref: "#/components/schemas/A" } } }, loop),
    ).toThrow(/refers to itself/);
  });
});
