// Checks a model's `input` against its JSON Schema 2020-12 with Ajv 2020: defaults filled,
// unknown fields refused, and the first problem reported with its `input.<field>` param and
// a message that says what is allowed.
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { ApiError } from "../../primitives/errors";
import { fileExpectedMessage, isFileField } from "./file-inputs";

// verbose: errors carry their parentSchema, so messages can state both bounds of a field.
const ajv = new Ajv2020({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true, verbose: true });
addFormats(ajv);

const compiled = new WeakMap<JsonSchemaObject, ValidateFunction>();

function validatorFor(schema: JsonSchemaObject): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** "/size/0" → "input.size[0]" */
function paramOf(instancePath: string, prefix: string): string {
  let param = prefix;
  for (const part of instancePath.split("/").slice(1)) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    param += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  return param;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return `a ${typeof value}`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.length > 60 ? `${text.slice(0, 57)}...` : String(text);
}

function valueAt(data: unknown, instancePath: string): unknown {
  let current = data;
  for (const part of instancePath.split("/").slice(1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return current;
}

function describeBounds(schema: JsonSchemaObject | undefined, lowKey: string, highKey: string, unit = ""): string {
  const low = schema?.[lowKey] as number | undefined;
  const high = schema?.[highKey] as number | undefined;
  if (low !== undefined && high !== undefined) return `from ${low} to ${high}${unit}`;
  if (low !== undefined) return `at least ${low}${unit}`;
  return `at most ${high}${unit}`;
}

function explain(error: ErrorObject, data: unknown, schema: JsonSchemaObject, prefix: string, modelId: string) {
  const value = valueAt(data, error.instancePath);
  const field = paramOf(error.instancePath, prefix);
  const fieldSchema = error.parentSchema as JsonSchemaObject | undefined;
  switch (error.keyword) {
    case "additionalProperties": {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const parent = error.instancePath === "" ? schema : fieldSchema;
      const known = Object.keys(parent?.properties ?? {});
      return {
        param: `${field}.${extra}`,
        message: `${field}.${extra} is not an input of ${modelId}. Its inputs are: ${known.join(", ")}.`,
      };
    }
    case "required": {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      const description = (fieldSchema?.properties?.[missing] as JsonSchemaObject | undefined)?.description;
      return {
        param: `${field}.${missing}`,
        message: `${field}.${missing} is required.${description ? ` ${description}` : ""}`,
      };
    }
    case "enum":
      return {
        param: field,
        message: `${field} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map(show).join(", ")}; got ${show(value)}.`,
      };
    case "type":
      return {
        param: field,
        message: `${field} must be ${(error.params as { type: string }).type === "integer" ? "an integer" : `of type ${(error.params as { type: string }).type}`}; got ${typeName(value)}.`,
      };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return {
        param: field,
        message: `${field} must be ${describeBounds(fieldSchema, "minimum", "maximum")}; got ${show(value)}.`,
      };
    case "minLength":
    case "maxLength":
      return {
        param: field,
        message: `${field} must be ${describeBounds(fieldSchema, "minLength", "maxLength", " characters")} long; got ${String(value).length}.`,
      };
    case "minItems":
    case "maxItems":
      return {
        param: field,
        message: `${field} must hold ${describeBounds(fieldSchema, "minItems", "maxItems", " items")}; got ${Array.isArray(value) ? value.length : 0}.`,
      };
    case "pattern":
      if (isFileField(fieldSchema)) return { param: field, message: fileExpectedMessage(field, fieldSchema!) };
      return {
        param: field,
        message: `${field} must match the pattern ${(error.params as { pattern: string }).pattern}; got ${show(value)}.`,
      };
    case "format":
      return {
        param: field,
        message: `${field} must be a valid ${(error.params as { format: string }).format}; got ${show(value)}.`,
      };
    default:
      return { param: field, message: `${field} ${error.message ?? "is not valid"}.` };
  }
}

/**
 * A copy of a JSON value (what a parsed body holds), for Ajv to fill defaults into: every quote
 * makes one, and structuredClone would go through the serializer, which costs far more.
 */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    // An own "__proto__" (JSON.parse makes one) stays a field; assigning it would set the prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/**
 * Returns a validated copy of `input` with defaults filled, or throws invalid_parameter for
 * the first problem, in the order the schema lists its fields.
 */
export function validateModelInput(
  schema: JsonSchemaObject,
  input: unknown,
  options: { modelId: string; paramPrefix?: string },
): Record<string, unknown> {
  const prefix = options.paramPrefix ?? "input";
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new ApiError("invalid_parameter", `${prefix} must be a JSON object; got ${typeName(input)}.`, {
      param: prefix,
    });
  }
  const copy = copyJson(input) as Record<string, unknown>;
  const validate = validatorFor(schema);
  if (validate(copy)) return copy;
  const errors = validate.errors ?? [];
  // Refuse unknown fields first: they are the most common slip, and make other errors moot.
  const first =
    errors.find((e) => e.keyword === "additionalProperties") ??
    errors.find((e) => e.keyword === "required") ??
    errors[0]!;
  const { param, message } = explain(first, copy, schema, prefix, options.modelId);
  const more = errors.length - 1;
  throw new ApiError(
    "invalid_parameter",
    more > 0 ? `${message} (${more} more problem${more > 1 ? "s" : ""} in ${prefix}.)` : message,
    { param },
  );
}
