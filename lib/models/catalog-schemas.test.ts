// Every built-in catalog entry's input schema is one the studio can render well and the server
// can trust (docs/models-and-presets.md): each field titled and described, defaults that are allowed
// values, and no unknown fields accepted.
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../primitives/json-schema";
import { BUILT_IN_MODELS } from "./index";

// The same strictness as the server's validator (lib/core/catalog/input-validation.ts), without defaults.
const ajv = new Ajv2020({ strict: true, allErrors: true });

describe.each(BUILT_IN_MODELS.map((m) => [m.id, m] as const))("%s input schema", (_id, model) => {
  const schema = model.input_schema;
  const properties = Object.entries(schema.properties ?? {}) as [string, JsonSchemaObject][];

  it("is a closed JSON Schema 2020-12 object whose required fields exist", () => {
    expect(schema.$schema).toBe(JSON_SCHEMA_2020);
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(properties.length).toBeGreaterThan(0);
    for (const name of schema.required ?? []) expect(Object.keys(schema.properties!), name).toContain(name);
  });

  it.each(properties.map(([name, field]) => [name, field] as const))(
    "field %s has a title, a description and sound defaults",
    (name, field) => {
      expect(typeof field.title === "string" && field.title.trim().length > 0, `${name}: title`).toBe(true);
      expect(typeof field.description === "string" && field.description.trim().length > 0, `${name}: description`).toBe(
        true,
      );
      if (field.enum !== undefined) {
        expect(field.enum.length, `${name}: enum`).toBeGreaterThan(0);
        if (field.default !== undefined) expect(field.enum, `${name}: default`).toContain(field.default);
      }
      if (typeof field.default === "number") {
        if (field.minimum !== undefined)
          expect(field.default, `${name}: default ≥ minimum`).toBeGreaterThanOrEqual(field.minimum);
        if (field.maximum !== undefined)
          expect(field.default, `${name}: default ≤ maximum`).toBeLessThanOrEqual(field.maximum);
      }
      if (field.minimum !== undefined && field.maximum !== undefined)
        expect(field.minimum, `${name}: bounds`).toBeLessThanOrEqual(field.maximum);
      // Whatever else the field says (type, pattern, lengths), its default and examples obey it.
      const validate = ajv.compile(field);
      for (const value of [...(field.default === undefined ? [] : [field.default]), ...(field.examples ?? [])]) {
        expect(validate(value), `${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    },
  );
});
