// The catalog: built-in model modules as public entries, their lifecycle, and lookups.
import { BUILT_IN_MODELS } from "../models";
import type { ModelDefinition, ModelLifecycle, ModelPricing } from "../models/types";
import type { JsonSchemaObject } from "./json-schema";
import { requireScope, type Ctx } from "./context";
import { ApiError } from "./errors";
import { closestMatch } from "./closest-match";
import { LIMITS } from "./limits";
import { activePauses, availabilityOf, type Availability, type PauseMap } from "./model-availability";
import type { Db } from "../store/database";

export interface Model {
  id: string;
  object: "model";
  type: "model" | "preset";
  name: string;
  creator: string;
  modality: string;
  tasks: string[];
  description: string;
  revision: string;
  version: string | null;
  latest: boolean;
  status: string;
  deprecation: ModelLifecycle | null;
  pricing: ModelPricing;
  /** Whether it takes runs now; when out of service, quotes and runs answer 503. */
  availability: Availability;
}

export interface ModelWithSchema extends Model {
  input_schema: JsonSchemaObject;
}

export interface ModelList {
  object: "list";
  data: Model[];
}

export const MODEL_ID_PATTERN = /^[a-z0-9-]+\/[a-z0-9.-]+(@[1-9]\d{0,3})?$/;
export const MODEL_ID_MAX_LENGTH = LIMITS.modelIdLength;

/** "atelier/poster@2" → { base: "atelier/poster", version: 2 }. */
export function splitModelId(id: string): { base: string; version: number | null } {
  const at = id.indexOf("@");
  return at < 0 ? { base: id, version: null } : { base: id.slice(0, at), version: Number(id.slice(at + 1)) };
}

interface CatalogEntry {
  definition: ModelDefinition;
  /** The public entry as it is when available; `withAvailability` gives the live one. */
  model: ModelWithSchema;
}

function buildCatalog(definitions: readonly ModelDefinition[]): Map<string, CatalogEntry> {
  const newestVersion = new Map<string, number>();
  for (const d of definitions) {
    const { base, version } = splitModelId(d.id);
    if (version !== null) newestVersion.set(base, Math.max(newestVersion.get(base) ?? 0, version));
  }
  const entries = new Map<string, CatalogEntry>();
  for (const d of definitions) {
    if (!MODEL_ID_PATTERN.test(d.id)) throw new Error(`catalog: bad model id ${d.id}`);
    const { base, version } = splitModelId(d.id);
    entries.set(d.id, {
      definition: d,
      model: {
        id: d.id,
        object: "model",
        type: d.type,
        name: d.name,
        creator: d.creator,
        modality: d.modality,
        tasks: d.tasks,
        description: d.description,
        revision: d.revision,
        version: version === null ? null : String(version),
        latest: version === null || newestVersion.get(base) === version,
        status: d.status,
        deprecation: d.lifecycle,
        pricing: d.pricing,
        availability: { status: "available", message: null, until: null },
        input_schema: d.input_schema,
      },
    });
  }
  return entries;
}

let CATALOG = buildCatalog(BUILT_IN_MODELS);

/**
 * Adds remote entries (lib/providers, from PROVIDERS_FILE) to the built-ins. Called once at start;
 * an id that is already taken is refused, so a providers file cannot shadow a built-in.
 */
export function registerRemoteModels(definitions: readonly ModelDefinition[]): void {
  for (const d of definitions) {
    if (CATALOG.has(d.id)) throw new Error(`catalog: ${d.id} is already in the catalog`);
  }
  CATALOG = buildCatalog([...[...CATALOG.values()].map((e) => e.definition), ...definitions]);
}

/** Every definition, retired ones included (the engine and ops tools look across all). */
export function allCatalogEntries(): ModelDefinition[] {
  return [...CATALOG.values()].map((e) => e.definition);
}

export function isRetired(lifecycle: ModelLifecycle | null, now = Date.now()): boolean {
  return lifecycle !== null && Date.parse(lifecycle.sunset_at) <= now;
}

function withoutSchema(model: ModelWithSchema): Model {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { input_schema, ...rest } = model;
  return rest;
}

function withAvailability(entry: CatalogEntry, pauses: PauseMap): ModelWithSchema {
  return { ...entry.model, availability: availabilityOf(entry.definition, pauses) };
}

/** The entries a listing shows (retired ones left out), each with whether it is in service now. */
async function listedEntries(db: Db): Promise<Array<{ entry: CatalogEntry; availability: Availability }>> {
  const pauses = await activePauses(db);
  return [...CATALOG.values()].filter((e) => !isRetired(e.definition.lifecycle)).map((entry) => ({ entry, availability: availabilityOf(entry.definition, pauses) }));
}

function listOf(listed: Array<{ entry: CatalogEntry; availability: Availability }>): ModelList {
  return { object: "list", data: listed.map(({ entry, availability }) => withoutSchema({ ...entry.model, availability })) };
}

/** Every model and preset that can run, retired ones left out, each saying whether it is in service now. */
export async function listCatalog(db: Db): Promise<ModelList> {
  return listOf(await listedEntries(db));
}

let lastListing: { key: string; json: string } | null = null;

/**
 * listCatalog as JSON text, for the API's listings. Building the entries and serialising them was
 * a third of GET /v1/models (bench profile), yet they change only in which are listed and their
 * availability: the text is kept until one of those changes.
 */
export async function listCatalogJson(db: Db): Promise<string> {
  const listed = await listedEntries(db);
  const key = listed.map(({ entry, availability }) => `${entry.model.id}\u0000${availability.status === "available" ? "" : JSON.stringify(availability)}`).join("\u0001");
  if (lastListing?.key !== key) lastListing = { key, json: JSON.stringify(listOf(listed)) };
  return lastListing.json;
}

/**
 * The entry for an ID; a preset ID without a version means its latest version. Retired → 410
 * naming the replacement. Unknown → 404 resource_not_found when the ID came in the path, or 400
 * invalid_parameter on `param` when it came in a request body.
 */
/** The model's input field order and titles, for a run's readable input; null when it can no longer run. */
export function inputFieldHints(model: string): { order: string[]; titles: Record<string, string> } | null {
  try {
    const properties = findCatalogEntry(model).model.input_schema.properties ?? {};
    const titles: Record<string, string> = {};
    for (const [key, p] of Object.entries(properties)) if (typeof p.title === "string") titles[key] = p.title;
    return { order: Object.keys(properties), titles };
  } catch {
    return null;
  }
}

export function findCatalogEntry(id: string, param: string | null = null): CatalogEntry {
  let entry = CATALOG.get(id);
  if (!entry && !id.includes("@")) {
    entry = [...CATALOG.values()].find((e) => e.model.latest && splitModelId(e.model.id).base === id && e.model.version !== null);
  }
  if (!entry) {
    const suggestion = closestMatch(id, [...CATALOG.values()].filter((e) => !isRetired(e.definition.lifecycle)).map((e) => e.model.id));
    const message = `No model or preset "${id}" in the catalog.${suggestion ? ` Did you mean "${suggestion}"?` : ""} GET /v1/models lists them all.`;
    throw param === null ? new ApiError("resource_not_found", message) : new ApiError("invalid_parameter", message, { param });
  }
  const lifecycle = entry.definition.lifecycle;
  if (isRetired(lifecycle)) {
    throw new ApiError(
      "gone",
      `${entry.model.id} was retired on ${lifecycle!.sunset_at.slice(0, 10)}.${lifecycle!.replaced_by ? ` Use ${lifecycle!.replaced_by} instead.` : ""}`,
      { headers: deprecationHeaders(entry.model) },
    );
  }
  return entry;
}

export function listModels(ctx: Ctx): Promise<ModelList> {
  requireScope(ctx, "generations:read");
  return listCatalog(ctx.db);
}

/** GET /v1/models's text (listCatalogJson). */
export function listModelsJson(ctx: Ctx): Promise<string> {
  requireScope(ctx, "generations:read");
  return listCatalogJson(ctx.db);
}

export function getModel(ctx: Ctx, input: { id: string }): Promise<ModelWithSchema> {
  requireScope(ctx, "generations:read");
  return getPublicModel(ctx.db, input);
}

export async function getPublicModel(db: Db, input: { id: string }): Promise<ModelWithSchema> {
  const entry = findCatalogEntry(input.id);
  return withAvailability(entry, await activePauses(db));
}

/** The IETF Deprecation, Sunset and successor Link headers for a deprecated entry; {} otherwise. */
export function deprecationHeaders(model: Pick<Model, "deprecation">): Record<string, string> {
  const d = model.deprecation;
  if (!d) return {};
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(Date.parse(d.deprecated_at) / 1000)}`,
    Sunset: new Date(d.sunset_at).toUTCString(),
  };
  if (d.replaced_by) headers.Link = `</v1/models/${d.replaced_by}>; rel="successor-version"`;
  return headers;
}
