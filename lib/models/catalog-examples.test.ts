// Every built-in catalog entry ships 2–4 titled examples the server accepts as they are (the studio
// opens the model page with the first), and its enum labels name only values its schema allows.
import { describe, expect, it } from "vitest";
import { isFileField } from "../core/catalog/file-inputs";
import type { JsonSchemaObject } from "../primitives/json-schema";
import { validateModelInput } from "../core/catalog/input-validation";
import { BUILT_IN_MODELS } from "./index";

/** A stand-in for a workspace file ID, so an example of a model with a file input can be checked. */
const FILE_ID = "file_ExampleExampleExample000";

describe.each(BUILT_IN_MODELS.map((m) => [m.id, m] as const))("%s examples", (_id, model) => {
  const properties = (model.input_schema.properties ?? {}) as Record<string, JsonSchemaObject>;
  const fileFields = Object.entries(properties)
    .filter(([, field]) => isFileField(field))
    .map(([name]) => name);
  const examples = model.examples ?? [];

  it("has 2 to 4, each with a short distinct title", () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.length).toBeLessThanOrEqual(4);
    const titles = examples.map((e) => e.title);
    expect(new Set(titles).size).toBe(titles.length);
    for (const title of titles) {
      expect(title.trim().length, title).toBeGreaterThan(0);
      expect(title.length, title).toBeLessThanOrEqual(32);
    }
  });

  it.each(examples.map((e) => [e.title, e] as const))("%s is a valid input", (_title, example) => {
    // An example never names a file (none exists in a new workspace): the person adds one.
    for (const name of fileFields) expect(example.input, name).not.toHaveProperty(name);
    const files = Object.fromEntries(fileFields.map((name) => [name, FILE_ID]));
    const input = { ...example.input, ...files };
    expect(() => validateModelInput(model.input_schema, structuredClone(input), { modelId: model.id })).not.toThrow();
  });

  it("labels only enum values its schema allows", () => {
    for (const [name, labels] of Object.entries(model.enumLabels ?? {})) {
      const field = properties[name];
      expect(field?.enum, `${name} is an enum field`).toBeDefined();
      const allowed = field!.enum!.map(String);
      for (const [value, label] of Object.entries(labels)) {
        expect(allowed, `${name}: ${value}`).toContain(value);
        expect(label.trim().length, `${name}: ${value}`).toBeGreaterThan(0);
      }
    }
  });
});

describe("optional fields", () => {
  it("a field the form may leave empty has no default example text: `examples` are hints, never values", () => {
    // The studio fills a form from the model's first example and the schema's defaults only; a
    // field's `examples` become its placeholder. So an optional text field opens empty.
    const promo = BUILT_IN_MODELS.find((m) => m.id === "atelier/promo-video@2")!;
    const music = (promo.input_schema.properties as Record<string, JsonSchemaObject>).music!;
    expect(promo.input_schema.required).not.toContain("music");
    expect(music.default).toBeUndefined();
    expect(promo.examples![0]!.input).not.toHaveProperty("music");
  });
});
