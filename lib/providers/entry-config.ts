// One `entries[]` item of the providers file: a catalog entry that a provider serves. Its schema
// must compile under the same Ajv 2020 settings the server validates input with, and its pricing
// may only name fields its schema has (a misspelt driver would silently count as one unit). Its
// optional `cost` (what a run costs the operators upstream; ops-only) is read by the same rules,
// and its optional `examples` must each be an input the server would run.
import type Ajv2020 from "ajv/dist/2020";
import { MODEL_ID_MAX_LENGTH, MODEL_ID_PATTERN } from "../core/catalog/catalog";
import { validateModelInput } from "../core/catalog/input-validation";
import { ApiError } from "../primitives/errors";
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../primitives/json-schema";
import { parseUsd } from "../primitives/money";
import type {
  Modality,
  ModelExample,
  ModelLifecycle,
  ModelPricing,
  PriceOverride,
  ProviderCost,
} from "../core/catalog/model-definition";
import {
  arrayAt,
  checkPlainDocument,
  describe,
  fail,
  isCalendarDate,
  objectAt,
  ProvidersFileError,
  stringAt,
  type JsonObject,
} from "./common/json-fields";
import type { ParseContext, ProviderKind } from "./common/kind";
import type { RemoteEntryConfig } from "./common/types";
import { parseRoutes } from "./entry-routes";

const ENTRY_FIELDS = [
  "id",
  "upstream_model",
  "name",
  "creator",
  "description",
  "modality",
  "tasks",
  "revision",
  "status",
  "lifecycle",
  "input_schema",
  "pricing",
  "cost",
  "examples",
  "routes",
] as const;

/** The model page's "Try an example" offers them all: a few, each titled in one short line. */
const MAX_EXAMPLES = 6;
const EXAMPLE_TITLE_MAX_LENGTH = 100;

/** Revision of an entry whose file gives none: the date this adapter protocol was settled. */
export const DEFAULT_REVISION = "2026-11-22";

const TASK_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function parseId(entry: JsonObject, path: string): string {
  const id = stringAt(entry, "id", path, {
    maxLength: MODEL_ID_MAX_LENGTH,
    pattern: MODEL_ID_PATTERN,
    patternText: '"<creator>/<name>" in lower-case letters, digits, dashes and dots, such as "acme/image-1"',
  });
  if (id.includes("@")) fail(`${path}.id`, `must not carry an @version (versions are for presets); got "${id}".`);
  if (id.startsWith("atelier/"))
    fail(`${path}.id`, `must not start with "atelier/", which is kept for the built-in models; got "${id}".`);
  return id;
}

function parseTasks(entry: JsonObject, path: string): string[] {
  return arrayAt(entry.tasks, `${path}.tasks`, { min: 1 }).map((task, i) => {
    if (typeof task !== "string" || !TASK_PATTERN.test(task)) {
      fail(
        `${path}.tasks[${i}]`,
        `must be a task name in lower-case words joined by dashes, such as "text-to-image"; got ${describe(task)}.`,
      );
    }
    return task;
  });
}

function parseLifecycle(value: unknown, path: string): ModelLifecycle | null {
  if (value === undefined || value === null) return null;
  const lifecycle = objectAt(value, path, ["deprecated_at", "sunset_at", "replaced_by"]);
  const time = (key: string) => {
    const text = stringAt(lifecycle, key, path, {
      pattern: ISO_TIME,
      patternText: "an ISO 8601 time such as 2027-01-31T00:00:00Z",
    });
    if (Number.isNaN(Date.parse(text))) fail(`${path}.${key}`, `is not a real time; got "${text}".`);
    return new Date(text).toISOString();
  };
  const deprecated_at = time("deprecated_at");
  const sunset_at = time("sunset_at");
  if (sunset_at < deprecated_at) fail(`${path}.sunset_at`, "must not be before deprecated_at.");
  const replaced = lifecycle.replaced_by;
  if (
    replaced !== undefined &&
    replaced !== null &&
    (typeof replaced !== "string" || !MODEL_ID_PATTERN.test(replaced))
  ) {
    fail(`${path}.replaced_by`, `must be a catalog id or null; got ${describe(replaced)}.`);
  }
  return { deprecated_at, sunset_at, replaced_by: (replaced as string | null | undefined) ?? null };
}

function parseInputSchema(value: unknown, path: string, ajv: Ajv2020): JsonSchemaObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(path, `must be a JSON Schema object; got ${describe(value)}.`);
  const schema = value as JsonSchemaObject;
  if (schema.$schema !== undefined && schema.$schema !== JSON_SCHEMA_2020)
    fail(`${path}.$schema`, `must be "${JSON_SCHEMA_2020}" or left out.`);
  if (schema.type !== "object") fail(`${path}.type`, `must be "object"; got ${describe(schema.type)}.`);
  if (schema.additionalProperties !== false)
    fail(`${path}.additionalProperties`, "must be false, so that unknown input fields are refused.");
  refuseIds(schema, path);
  try {
    ajv.compile(schema);
  } catch (err) {
    fail(path, `is not a valid JSON Schema 2020-12 (strict mode): ${(err as Error).message}`);
  }
  return { $schema: JSON_SCHEMA_2020, ...schema };
}

/** Keywords whose value maps names (input fields, definitions) to schemas, not keywords to values. */
const NAMED_SCHEMAS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * No `$id` anywhere: the server's one validator keys schemas by their `$id`, so a second copy of
 * the entry (the next catalog reload, a new revision) would be refused as "already exists" at run
 * time. The entry id names the schema; refer within it with "#/$defs/…".
 */
function refuseIds(node: unknown, path: string): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach((item, i) => refuseIds(item, `${path}[${i}]`));
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id")
      fail(`${path}.$id`, 'is not allowed: the entry\'s id names its schema (refer within it with "#/$defs/…").');
    if (NAMED_SCHEMAS.has(key) && value && typeof value === "object" && !Array.isArray(value))
      for (const [name, schema] of Object.entries(value)) refuseIds(schema, `${path}.${key}.${name}`);
    else refuseIds(value, `${path}.${key}`);
  }
}

function parseUsdAt(obj: JsonObject, path: string, key = "usd"): string {
  const usd = obj[key];
  if (typeof usd !== "string" || parseUsd(usd) === null) {
    fail(`${path}.${key}`, `must be a decimal string of at most 6 places, such as "0.04"; got ${describe(usd)}.`);
  }
  return usd;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function parsePricing(value: unknown, path: string, schema: JsonSchemaObject): ModelPricing {
  const pricing = objectAt(value, path, ["unit", "usd", "drivers", "overrides"]);
  const fields = Object.keys(schema.properties ?? {});
  const knownField = (name: unknown, at: string): string => {
    if (typeof name !== "string" || !fields.includes(name)) {
      fail(at, `must name a field of input_schema (${fields.join(", ")}); got ${describe(name)}.`);
    }
    return name;
  };
  const unit = stringAt(pricing, "unit", path, {
    maxLength: 40,
    pattern: /^\P{Cc}+$/u,
    patternText: 'a word such as "image", without control characters',
  });
  const usd = parseUsdAt(pricing, path);
  const drivers = arrayAt(pricing.drivers ?? [], `${path}.drivers`).map((d, i) =>
    knownField(d, `${path}.drivers[${i}]`),
  );
  const overrides = arrayAt(pricing.overrides ?? [], `${path}.overrides`).map((item, i): PriceOverride => {
    const at = `${path}.overrides[${i}]`;
    const override = objectAt(item, at, ["when", "usd"]);
    const when = objectAt(override.when, `${at}.when`, fields);
    for (const [field, expected] of Object.entries(when)) {
      if (!isScalar(expected) && !(Array.isArray(expected) && expected.length > 0 && expected.every(isScalar))) {
        fail(
          `${at}.when.${field}`,
          `must be a string, number or boolean, or a list of them; got ${describe(expected)}.`,
        );
      }
    }
    if (Object.keys(when).length === 0) fail(`${at}.when`, "must name at least one field.");
    return { when: when as PriceOverride["when"], usd: parseUsdAt(override, at) };
  });
  return { unit, usd, drivers, overrides };
}

/**
 * `cost`: per unit, in the very shape of `pricing` (its parser, so the same rules), or
 * `{"per_second_usd": "…"}` for provider time. Which one is told by `per_second_usd`; both at once
 * is refused rather than one silently winning.
 */
export function parseCost(value: unknown, path: string, schema: JsonSchemaObject): ProviderCost | null {
  if (value === undefined || value === null) return null;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "per_second_usd" in value) {
    const mixed = Object.keys(value).filter((key) => key !== "per_second_usd");
    if (mixed.length > 0)
      fail(
        `${path}.${mixed[0]}`,
        'is not a field of a per-second cost: a cost is either {"unit", "usd", "drivers", "overrides"} (per unit, like pricing) or {"per_second_usd"} (provider time), not both.',
      );
    return { per: "second", usd: parseUsdAt(value as JsonObject, path, "per_second_usd") };
  }
  return { per: "unit", pricing: parsePricing(value, path, schema) };
}

/**
 * `examples`: inputs the model page opens its form with, each a title and an input that the
 * server's own validator (the one a run's input goes through) takes as it is, so an example never
 * shows something the entry would refuse. Absent: none.
 */
function parseExamples(value: unknown, path: string, id: string, schema: JsonSchemaObject): ModelExample[] {
  if (value === undefined) return [];
  const titles = new Set<string>();
  return arrayAt(value, path, { max: MAX_EXAMPLES }).map((item, i) => {
    const at = `${path}[${i}]`;
    const example = objectAt(item, at, ["title", "input"]);
    const title = stringAt(example, "title", at, {
      maxLength: EXAMPLE_TITLE_MAX_LENGTH,
      pattern: /^\P{Cc}+$/u,
      patternText: 'a short title such as "Neon city at night", without control characters',
    });
    // The model page offers them by title: two alike could not be told apart.
    if (titles.has(title))
      fail(`${at}.title`, `must differ from the other examples' titles; "${title}" is given twice.`);
    titles.add(title);
    const input = example.input;
    if (input === undefined) fail(`${at}.input`, "is required.");
    if (input === null || typeof input !== "object" || Array.isArray(input))
      fail(`${at}.input`, `must be an object; got ${describe(input)}.`);
    // A prototype name would reach the form's objects; the store refuses it anywhere, the file here.
    checkPlainDocument(input, `${at}.input`);
    try {
      validateModelInput(schema, input, { modelId: id, paramPrefix: `${at}.input` });
    } catch (err) {
      // Its message starts with the field's path, as the file's refusals do.
      if (err instanceof ApiError) throw new ProvidersFileError(err.message);
      throw err;
    }
    return { title, input: input as Record<string, unknown> };
  });
}

export function parseEntry(
  value: unknown,
  path: string,
  provider: { id: string; kind: ProviderKind; settings?: JsonObject },
  ajv: Ajv2020,
  ctx: ParseContext,
): RemoteEntryConfig {
  const { kind } = provider;
  const entry = objectAt(value, path, [...ENTRY_FIELDS, ...kind.entryFields]);
  const id = parseId(entry, path);
  const modality = stringAt(entry, "modality", path, { oneOf: kind.modalities }) as Modality;
  // The provider itself may make less than its kind (an AI SDK package): in the file, and for an
  // entry stored later under a provider of the store (its settings among ctx.providers).
  const settings = provider.settings ?? ctx.providers?.get(provider.id)?.settings;
  const own = settings ? kind.modalitiesOf?.(settings) : null;
  if (own && !own.modalities.includes(modality)) {
    fail(
      `${path}.modality`,
      `must be one of ${own.modalities.map((m) => `"${m}"`).join(", ")}: ${own.says}; got "${modality}".`,
    );
  }
  const revision = stringAt(entry, "revision", path, { fallback: DEFAULT_REVISION });
  if (!isCalendarDate(revision)) fail(`${path}.revision`, `must be a date such as 2026-11-22; got "${revision}".`);
  const inputSchema = parseInputSchema(entry.input_schema, `${path}.input_schema`, ajv);
  const options = kind.parseEntry?.(entry, path, inputSchema, ctx) ?? {};
  const config: RemoteEntryConfig = {
    id,
    upstreamModel: kind.upstreamModelRequired
      ? stringAt(entry, "upstream_model", path, { maxLength: 200 })
      : stringAt(entry, "upstream_model", path, { maxLength: 200, fallback: "" }),
    name: stringAt(entry, "name", path, { maxLength: 100 }),
    creator: stringAt(entry, "creator", path, { fallback: provider.id, maxLength: 100 }),
    description: stringAt(entry, "description", path, { maxLength: 1000 }),
    modality,
    tasks: parseTasks(entry, path),
    revision,
    status: stringAt(entry, "status", path, {
      fallback: "stable",
      oneOf: ["stable", "beta"],
    }) as RemoteEntryConfig["status"],
    lifecycle: parseLifecycle(entry.lifecycle, `${path}.lifecycle`),
    inputSchema,
    pricing: parsePricing(entry.pricing, `${path}.pricing`, inputSchema),
    cost: parseCost(entry.cost, `${path}.cost`, inputSchema),
    options,
  };
  const examples = parseExamples(entry.examples, `${path}.examples`, id, inputSchema);
  const routes = parseRoutes(
    entry.routes,
    `${path}.routes`,
    { providerId: provider.id, modality, schema: inputSchema, parseCost },
    ctx,
  );
  return { ...config, ...(examples.length > 0 ? { examples } : {}), ...(routes ? { routes } : {}) };
}
