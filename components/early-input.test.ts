import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { schemaFormEarlyInput } from "./early-input";

const schema: RJSFSchema = {
  type: "object",
  properties: {
    prompt: { type: "string" },
    num_images: { type: "integer", minimum: 1, maximum: 4 },
    strength: { type: "number" },
    resolution: { type: "string", enum: ["sd", "hd"] },
    voice: {
      type: "string",
      oneOf: [
        { const: "alloy", title: "Alloy" },
        { const: "ember", title: "Ember" },
      ],
    },
    image: { type: "string", contentMediaType: "image/*" },
  },
};

describe("schemaFormEarlyInput", () => {
  it("reads the form's top-level fields by their RJSF ids, each as its type", () => {
    expect(
      schemaFormEarlyInput(schema, {
        root_prompt: "a red fox",
        root_num_images: "3",
        root_strength: "0.5",
        root_resolution: "1",
        root_voice: "0",
        root_image: "file_abc",
        "runs-from": "2026-11-28",
        root_unknown: "x",
      }),
    ).toEqual({
      prompt: "a red fox",
      num_images: 3,
      strength: 0.5,
      resolution: "hd",
      voice: "alloy",
      image: "file_abc",
    });
  });

  it("gives an emptied field as undefined, a number that is no number as undefined, and nothing for fields not typed into", () => {
    const early = schemaFormEarlyInput(schema, { root_prompt: "", root_num_images: "1e400" });
    expect(early).toEqual({ prompt: undefined, num_images: undefined });
    expect(Object.keys(early)).toEqual(["prompt", "num_images"]);
    expect(schemaFormEarlyInput(schema, {})).toEqual({});
  });
});
