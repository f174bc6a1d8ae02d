// A provider's OpenAPI input schema (a Replicate model version's `components.schemas.Input`, a fal
// endpoint's request body) turned into the JSON Schema 2020-12 a catalog entry carries: refs and
// `allOf: [{$ref}]` enums resolved, properties in the provider's display order (Replicate's
// `x-order`, fal's `x-fal-order-properties`), titles, descriptions, defaults and bounds kept,
// OpenAPI-only words dropped or rewritten (`nullable`, boolean `exclusiveMinimum`, `x-*`), and
// every object closed (`additionalProperties: false`), so imported fields validate under the
// server's Ajv (strict) and quote like a built-in's.
//
// File inputs: Atelier never takes URLs (lib/core/catalog/file-inputs.ts). A top-level field that holds a
// media URL (`format: uri`, or fal's `image_url`-style names) becomes a file input (`file_…`,
// with a media type guessed from its name and words), which the adapter sends to the provider as a
// data URI; a list of media URLs (`image_urls`) becomes one file input sent as a one-item list
// (`fileListFields`). A URL field whose media cannot be told is left out when optional and
// refused when required. Nested URL fields (a LoRA's weights) stay strings the provider fetches.
import { fileInputField } from "../../core/catalog/file-inputs";
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../../primitives/json-schema";

type Json = Record<string, unknown>;

export class SchemaImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaImportError";
  }
}

export interface ConvertedInput {
  schema: JsonSchemaObject;
  /** Top-level fields that are lists of media URLs upstream, offered as one file input each. */
  fileListFields: string[];
  /** Fields left out, and why (told to the operator by the import command). */
  dropped: Array<{ field: string; reason: string }>;
}

/** Formats ajv-formats knows and that mean something to a person filling the form. */
const KEPT_FORMATS = new Set(["date", "time", "date-time", "email", "uri", "uuid", "hostname", "ipv4", "ipv6"]);
/** Keywords copied as they are (after their values are checked below). */
const NUMERIC = ["minimum", "maximum", "multipleOf"] as const;
const COUNTS = ["minLength", "maxLength", "minItems", "maxItems"] as const;
const MAX_DEPTH = 8;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `#/components/schemas/aspect_ratio` → the schema it names in `document`. */
function resolveRef(ref: string, document: Json): Json {
  if (!ref.startsWith("#/")) throw new SchemaImportError(`the schema refers to ${ref}, outside its own document.`);
  let node: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = isObject(node) ? node[part] : undefined;
  }
  if (!isObject(node)) throw new SchemaImportError(`the schema refers to ${ref}, which it does not define.`);
  return node;
}

/**
 * The schema with `$ref` and single-item `allOf` merged in (the referring schema's own words win:
 * Replicate writes `{allOf: [{$ref: enum}], default, description, x-order}`).
 */
function flatten(schema: Json, document: Json, seen: Set<string> = new Set()): Json {
  let own = schema;
  if (typeof own.$ref === "string") {
    if (seen.has(own.$ref)) throw new SchemaImportError(`the schema refers to itself through ${own.$ref}.`);
    const target = flatten(resolveRef(own.$ref, document), document, new Set([...seen, own.$ref]));
    const { $ref: _ref, ...rest } = own;
    own = { ...withoutEnumWords(target), ...rest };
  }
  if (Array.isArray(own.allOf) && own.allOf.length >= 1 && own.allOf.every(isObject)) {
    const { allOf, ...rest } = own;
    let merged: Json = {};
    for (const part of allOf as Json[]) merged = { ...merged, ...withoutEnumWords(flatten(part, document, seen)) };
    own = { ...merged, ...rest };
  }
  return own;
}

/** An enum's own schema says "aspect_ratio" / "An enumeration.": words for a person come from the field. */
function withoutEnumWords(target: Json): Json {
  const { title: _title, description, ...rest } = target;
  return typeof description === "string" && !/^an enumeration\.?$/i.test(description.trim())
    ? { ...rest, description }
    : rest;
}

/** "num_inference_steps" → "Num inference steps". */
export function humanize(name: string): string {
  const words = name
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The property names in the provider's display order. */
function orderedNames(object: Json, properties: Json): string[] {
  const names = Object.keys(properties);
  const falOrder = object["x-fal-order-properties"];
  if (Array.isArray(falOrder)) {
    const listed = falOrder.filter((n): n is string => typeof n === "string" && names.includes(n));
    return [...listed, ...names.filter((n) => !listed.includes(n))];
  }
  const orderOf = (name: string) => {
    const order = (properties[name] as Json | undefined)?.["x-order"];
    return typeof order === "number" ? order : Number.POSITIVE_INFINITY;
  };
  return names
    .map((name, i) => ({ name, i }))
    .sort((a, b) => orderOf(a.name) - orderOf(b.name) || a.i - b.i)
    .map((x) => x.name);
}

/** `anyOf: [X, {type: "null"}]` (an optional field in pydantic's words) is X: leaving a field out says the same. */
function withoutNullBranch(schema: Json): Json {
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const kept = branches.filter((b) => !(isObject(b) && b.type === "null"));
    if (kept.length === branches.length) continue;
    const { [key]: _gone, ...rest } = schema;
    if (kept.length === 1 && isObject(kept[0])) return { ...(kept[0] as Json), ...rest };
    return { ...rest, [key]: kept };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  return schema;
}

/** What a media URL field takes, from its name, title and description; null when it cannot be told. */
export function guessMediaType(name: string, schema: Json): string | null {
  const words = `${name} ${String(schema.title ?? "")} ${String(schema.description ?? "")}`.toLowerCase();
  const nameWords = name.toLowerCase();
  const pick = (text: string) => {
    if (/video|movie|clip/.test(text)) return "video/*";
    if (/audio|sound|voice|speech|music|song|wav|mp3/.test(text)) return "audio/*";
    if (/image|img|mask|photo|picture|frame|face|pose|depth|canny|style|reference/.test(text)) return "image/*";
    return null;
  };
  return pick(nameWords) ?? pick(words);
}

function isMediaUrlField(name: string, schema: Json): boolean {
  if (schema.type !== "string") return false;
  if (schema.format === "uri" || schema.format === "url") return true;
  // fal names its URL inputs `image_url`, `audio_url`, `video_url`, `mask_url` (no format given).
  return /(^|_)urls?$/.test(name) && guessMediaType(name, schema) !== null;
}

interface Context {
  document: Json;
  depth: number;
}

/** A property's schema as JSON Schema 2020-12 (not a file input: those are decided by the caller). */
function convertValue(raw: Json, ctx: Context, where: string): JsonSchemaObject {
  if (ctx.depth > MAX_DEPTH) throw new SchemaImportError(`${where} nests deeper than ${MAX_DEPTH} levels.`);
  const schema = withoutNullBranch(flatten(raw, ctx.document));
  const out: JsonSchemaObject = {};
  if (typeof schema.title === "string" && schema.title.trim()) out.title = schema.title.trim();
  if (typeof schema.description === "string" && schema.description.trim()) out.description = schema.description.trim();

  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.every(isObject)) {
      // A choice of shapes (fal's image_size: a preset name or {width, height}). Defaults belong to
      // the field, never to a branch (Ajv ignores them there).
      out[key] = (branches as Json[]).map((b, i) => {
        const { title: _t, ...branch } = withoutDefaults(
          convertValue(b, { ...ctx, depth: ctx.depth + 1 }, `${where} (choice ${i + 1})`),
        );
        return branch;
      });
    }
  }

  const type = typeof schema.type === "string" || Array.isArray(schema.type) ? schema.type : undefined;
  if (type !== undefined) out.type = type as string | string[];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) out.enum = schema.enum.filter((v) => v !== null);
  if (typeof schema.pattern === "string") {
    try {
      new RegExp(schema.pattern, "u");
      out.pattern = schema.pattern;
    } catch {
      // A pattern in another regex dialect would refuse every value: leave it to the provider.
    }
  }
  if (typeof schema.format === "string" && KEPT_FORMATS.has(schema.format)) out.format = schema.format;
  for (const key of [...NUMERIC, ...COUNTS]) {
    if (typeof schema[key] === "number" && Number.isFinite(schema[key])) out[key] = schema[key];
  }
  // OpenAPI 3.0: a boolean beside minimum/maximum; 3.1 and JSON Schema: the bound itself.
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    const value = schema[exclusive];
    if (typeof value === "number") out[exclusive] = value;
    else if (value === true && typeof out[bound] === "number") {
      out[exclusive] = out[bound];
      delete out[bound];
    }
  }

  // An integer's exclusive bound is an inclusive one (forms and messages speak of those).
  if (out.type === "integer") {
    if (typeof out.exclusiveMinimum === "number") {
      out.minimum = Math.max(
        Math.floor(out.exclusiveMinimum) + 1,
        typeof out.minimum === "number" ? out.minimum : -Infinity,
      );
      delete out.exclusiveMinimum;
    }
    if (typeof out.exclusiveMaximum === "number") {
      out.maximum = Math.min(
        Math.ceil(out.exclusiveMaximum) - 1,
        typeof out.maximum === "number" ? out.maximum : Infinity,
      );
      delete out.exclusiveMaximum;
    }
  }

  const isObjectType = type === "object" || (type === undefined && isObject(schema.properties));
  if (isObjectType) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    out.type = "object";
    out.properties = {};
    const required = Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === "string")
      : [];
    for (const name of orderedNames(schema, properties)) {
      const prop = properties[name];
      if (!isObject(prop)) continue;
      out.properties[name] = withTitle(convertValue(prop, { ...ctx, depth: ctx.depth + 1 }, `${where}.${name}`), name);
    }
    const kept = required.filter((r) => Object.hasOwn(out.properties!, r));
    if (kept.length > 0) out.required = kept;
    out.additionalProperties = false;
  }
  if ((type === "array" || isObject(schema.items)) && isObject(schema.items)) {
    out.type ??= "array";
    out.items = convertValue(schema.items, { ...ctx, depth: ctx.depth + 1 }, `${where}[]`);
  }
  if (Array.isArray(schema.examples)) out.examples = schema.examples.slice(0, 3);
  else if (schema.example !== undefined) out.examples = [schema.example];
  if (schema.default !== undefined && schema.default !== null) out.default = schema.default;
  return out;
}

/** The schema with no `default` at any depth: Ajv (strict) refuses them where it cannot apply them. */
function withoutDefaults(schema: JsonSchemaObject): JsonSchemaObject {
  const { default: _d, ...rest } = schema;
  const out: JsonSchemaObject = { ...rest };
  if (rest.properties)
    out.properties = Object.fromEntries(Object.entries(rest.properties).map(([k, v]) => [k, withoutDefaults(v)]));
  if (rest.items) out.items = withoutDefaults(rest.items);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(rest[key])) out[key] = (rest[key] as JsonSchemaObject[]).map(withoutDefaults);
  }
  return out;
}

function withTitle(schema: JsonSchemaObject, name: string): JsonSchemaObject {
  if (schema.title) return schema;
  const { description, ...rest } = schema;
  return { title: humanize(name), ...(description !== undefined ? { description } : {}), ...rest };
}

function fileField(name: string, prop: Json, mediaType: string, list: boolean): JsonSchemaObject {
  const title = typeof prop.title === "string" && prop.title.trim() ? prop.title.trim() : humanize(name);
  const upstream = typeof prop.description === "string" ? prop.description.trim() : "";
  const description = `${upstream ? `${upstream} ` : ""}A file ID (file_…) of type ${mediaType}${list ? "; sent as a one-item list" : ""}.`;
  return fileInputField(mediaType, title, description);
}

/**
 * The input schema of a provider's model as a catalog entry's `input_schema`. `input` is the
 * OpenAPI schema of the input object (or a `$ref` to it); `document` the OpenAPI document it
 * lives in. Throws SchemaImportError when a required field cannot be offered.
 */
export function convertOpenApiInput(input: Json, document: Json): ConvertedInput {
  const root = withoutNullBranch(flatten(input, document));
  const properties = isObject(root.properties) ? root.properties : null;
  if (!properties) throw new SchemaImportError("the input schema is not an object with properties.");
  const required = new Set(
    Array.isArray(root.required) ? root.required.filter((r): r is string => typeof r === "string") : [],
  );
  const ctx: Context = { document, depth: 1 };
  const out: Record<string, JsonSchemaObject> = {};
  const fileListFields: string[] = [];
  const dropped: ConvertedInput["dropped"] = [];

  for (const name of orderedNames(root, properties)) {
    const raw = properties[name];
    if (!isObject(raw)) continue;
    const prop = withoutNullBranch(flatten(raw, document));
    const items = isObject(prop.items) ? withoutNullBranch(flatten(prop.items, document)) : null;
    const listOfUrls =
      prop.type === "array" &&
      items !== null &&
      isMediaUrlField(name.replace(/s$/, ""), { ...items, title: prop.title, description: prop.description });
    if (isMediaUrlField(name, prop) || listOfUrls) {
      const mediaType = guessMediaType(name, prop);
      if (!mediaType) {
        if (required.has(name))
          throw new SchemaImportError(
            `the required input ${name} takes a URL of unknown media; it cannot be offered as a file input.`,
          );
        dropped.push({ field: name, reason: "a URL of unknown media (Atelier takes files, not URLs)" });
        continue;
      }
      out[name] = fileField(name, prop, mediaType, listOfUrls);
      if (listOfUrls) fileListFields.push(name);
      continue;
    }
    out[name] = withTitle(convertValue(raw, ctx, name), name);
  }
  const schema: JsonSchemaObject = {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: out,
    ...(required.size > 0 ? { required: [...required].filter((r) => Object.hasOwn(out, r)) } : {}),
    additionalProperties: false,
  };
  if (schema.required?.length === 0) delete schema.required;
  return { schema, fileListFields, dropped };
}
