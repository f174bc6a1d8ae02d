import { describe, expect, it } from "vitest";
import { gradient } from "../../models/image/gradient";
import { gradientPosterV2 } from "../../models/presets/gradient-poster";
import { ApiError } from "../../primitives/errors";
import { validateModelInput } from "./input-validation";
import type { JsonSchemaObject } from "../../primitives/json-schema";

const MODEL = "atelier/gradient";

function validate(input: unknown, options: { paramPrefix?: string } = {}) {
  return validateModelInput(gradient.input_schema, input, { modelId: MODEL, ...options });
}

function refusal(fn: () => unknown): ApiError {
  let caught: unknown = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ApiError);
  expect((caught as ApiError).code).toBe("invalid_parameter");
  expect((caught as ApiError).status).toBe(400);
  return caught as ApiError;
}

describe("validateModelInput", () => {
  it("fills the schema's defaults", () => {
    expect(validate({ prompt: "ocean dusk" })).toEqual({
      prompt: "ocean dusk",
      aspect_ratio: "1:1",
      resolution: "standard",
      num_images: 1,
      format: "png",
    });
    expect(validate({ prompt: "x", num_images: 3, seed: 7 })).toMatchObject({
      num_images: 3,
      seed: 7,
      aspect_ratio: "1:1",
    });
    expect(
      validateModelInput(gradientPosterV2.input_schema, { prompt: "p", title: "t" }, { modelId: gradientPosterV2.id })
        .aspect_ratio,
    ).toBe("3:4");
  });

  it("does not mutate the caller's object, and returns a copy", () => {
    const input: Record<string, unknown> = { prompt: "ocean" };
    const snapshot = structuredClone(input);
    const result = validate(input);
    expect(input).toEqual(snapshot);
    expect(input).not.toHaveProperty("aspect_ratio");
    expect(result).not.toBe(input);

    const bad = { prompt: "x", num_images: 9 };
    refusal(() => validate(bad));
    expect(bad).toEqual({ prompt: "x", num_images: 9 });
  });

  it("copies nested objects and arrays too, so defaults filled below never reach the caller's", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      additionalProperties: false,
      properties: {
        style: {
          type: "object",
          additionalProperties: false,
          properties: { tone: { type: "string" }, warmth: { type: "integer", default: 3 } },
        },
        sizes: {
          type: "array",
          items: { type: "object", properties: { w: { type: "integer" }, h: { type: "integer", default: 1 } } },
        },
      },
    };
    const input = { style: { tone: "dusk" }, sizes: [{ w: 2 }, { w: 4, h: 5 }] };
    const result = validateModelInput(schema, input, { modelId: "x/y" });
    expect(result).toEqual({
      style: { tone: "dusk", warmth: 3 },
      sizes: [
        { w: 2, h: 1 },
        { w: 4, h: 5 },
      ],
    });
    expect(input).toEqual({ style: { tone: "dusk" }, sizes: [{ w: 2 }, { w: 4, h: 5 }] });
  });

  it('a "__proto__" field from a JSON body is an unknown field, not a prototype', () => {
    const err = refusal(() => validate(JSON.parse('{"prompt":"x","__proto__":{"num_images":9}}')));
    expect(err.param).toBe("input.__proto__");
    expect(err.message).toContain("input.__proto__ is not an input of atelier/gradient");
  });

  it("refuses an unknown field with param input.<field>, naming the known inputs", () => {
    const err = refusal(() => validate({ prompt: "x", colour: "red" }));
    expect(err.param).toBe("input.colour");
    expect(err.message).toContain("input.colour is not an input of atelier/gradient");
    expect(err.message).toContain("prompt, aspect_ratio, resolution, num_images, format, seed");
  });

  it("reports an unknown field before other problems", () => {
    const err = refusal(() => validate({ num_images: 99, colour: "red" }));
    expect(err.param).toBe("input.colour");
    expect(err.message).toMatch(/more problems? in input/);
  });

  it("an enum message lists the allowed values", () => {
    const err = refusal(() => validate({ prompt: "x", aspect_ratio: "2:1" }));
    expect(err.param).toBe("input.aspect_ratio");
    expect(err.message).toBe('input.aspect_ratio must be one of "1:1", "4:3", "3:4", "16:9", "9:16"; got "2:1".');
  });

  it("a minimum or maximum message states both bounds", () => {
    for (const num_images of [0, 5, 99]) {
      const err = refusal(() => validate({ prompt: "x", num_images }));
      expect(err.param).toBe("input.num_images");
      expect(err.message).toBe(`input.num_images must be from 1 to 4; got ${num_images}.`);
    }
    const seed = refusal(() => validate({ prompt: "x", seed: -1 }));
    expect(seed.param).toBe("input.seed");
    expect(seed.message).toContain("from 0 to 2147483647");
  });

  it("states a one-sided bound as such", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      properties: { n: { type: "number", minimum: 2 } },
      additionalProperties: false,
    };
    expect(refusal(() => validateModelInput(schema, { n: 1 }, { modelId: "x/y" })).message).toBe(
      "input.n must be at least 2; got 1.",
    );
  });

  it("minLength and maxLength messages state the bounds in characters", () => {
    const empty = refusal(() => validate({ prompt: "" }));
    expect(empty.param).toBe("input.prompt");
    expect(empty.message).toBe("input.prompt must be from 1 to 1000 characters long; got 0.");
    const long = refusal(() => validate({ prompt: "a".repeat(1001) }));
    expect(long.param).toBe("input.prompt");
    expect(long.message).toBe("input.prompt must be from 1 to 1000 characters long; got 1001.");
    expect(validate({ prompt: "a".repeat(1000) }).prompt).toHaveLength(1000);
  });

  it("a type message says what was expected and what came", () => {
    const text = refusal(() => validate({ prompt: "x", num_images: "two" }));
    expect(text.param).toBe("input.num_images");
    expect(text.message).toBe("input.num_images must be an integer; got a string.");
    const fraction = refusal(() => validate({ prompt: "x", num_images: 1.5 }));
    expect(fraction.message).toBe("input.num_images must be an integer; got a number.");
    const prompt = refusal(() => validate({ prompt: 42 }));
    expect(prompt.param).toBe("input.prompt");
    expect(prompt.message).toBe("input.prompt must be of type string; got an integer.");
    // No coercion: "3" is not 3.
    refusal(() => validate({ prompt: "x", num_images: "3" }));
  });

  it("a missing required field is named, with its description", () => {
    const err = refusal(() => validate({}));
    expect(err.param).toBe("input.prompt");
    expect(err.message).toMatch(/^input\.prompt is required\. Words that steer the palette/);
  });

  it("an input that is not an object → param input", () => {
    for (const [input, what] of [
      ["a prompt", "a string"],
      [[{ prompt: "x" }], "an array"],
      [null, "null"],
      [3, "an integer"],
      [undefined, "a undefined"],
    ] as const) {
      const err = refusal(() => validate(input));
      expect(err.param).toBe("input");
      expect(err.message).toBe(`input must be a JSON object; got ${what}.`);
    }
  });

  it("puts the batch prefix in front of the param", () => {
    const err = refusal(() => validate({ prompt: "x", colour: "red" }, { paramPrefix: "requests[3].input" }));
    expect(err.param).toBe("requests[3].input.colour");
    expect(refusal(() => validate("x", { paramPrefix: "requests[0].input" })).param).toBe("requests[0].input");
  });

  it("names nested fields with dots and brackets", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      additionalProperties: false,
      properties: {
        size: { type: "array", items: { type: "integer", minimum: 1, maximum: 10 }, minItems: 2, maxItems: 2 },
      },
    };
    const err = refusal(() => validateModelInput(schema, { size: [3, 20] }, { modelId: "x/y" }));
    expect(err.param).toBe("input.size[1]");
    expect(err.message).toBe("input.size[1] must be from 1 to 10; got 20.");
    const items = refusal(() => validateModelInput(schema, { size: [3] }, { modelId: "x/y" }));
    expect(items.param).toBe("input.size");
    expect(items.message).toBe("input.size must hold from 2 to 2 items; got 1.");
  });
});
