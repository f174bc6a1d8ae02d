// The catalog: built-in model modules as public entries, their lifecycle, and lookups.
import type { ModelDefinition, ModelLifecycle } from "./model-definition";
import { requireScope, type Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { closestMatch } from "../../primitives/closest-match";
import { LIMITS } from "../../primitives/limits";
import { activePauses, availabilityOf, type Availability, type PauseMap } from "./model-availability";
import type { Model, ModelList, ModelWithSchema } from "./model-shape";
import type { Db } from "../../store/database";

export type { Model, ModelList, ModelWithSchema };

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

let CATALOG = buildCatalog([]);
let BUILT_IN_IDS: ReadonlySet<string> = new Set();

/**
 * The built-in models (lib/models), handed in from above by boot (lib/boot/boot.ts) and the
 * Vitest setup, so the core never imports lib/models. Built-ins come first in every listing,
 * before the remote entries; a remote entry cannot take a built-in's id.
 */
export function installBuiltInModels(definitions: readonly ModelDefinition[]): void {
  const ids = new Set(definitions.map((d) => d.id));
  const remote = [...CATALOG.values()].map((e) => e.definition).filter((d) => !BUILT_IN_IDS.has(d.id));
  for (const d of remote) {
    if (ids.has(d.id)) throw new Error(`catalog: ${d.id} is already in the catalog`);
  }
  BUILT_IN_IDS = ids;
  CATALOG = buildCatalog([...definitions, ...remote]);
}

/** Whether `id` is one of the built-in models (installBuiltInModels), not a remote entry. */
export function isBuiltInModel(id: string): boolean {
  return BUILT_IN_IDS.has(id);
}

/**
 * Makes `definitions` the catalog's remote entries (lib/providers: the store's published entries),
 * replacing the ones before; the built-ins stay. A remote entry cannot take a built-in's id (the
 * store refuses it when written; here it is a bug).
 */
export function registerRemoteModels(definitions: readonly ModelDefinition[]): void {
  const ids = new Set<string>();
  for (const d of definitions) {
    if (BUILT_IN_IDS.has(d.id) || ids.has(d.id)) throw new Error(`catalog: ${d.id} is already in the catalog`);
    ids.add(d.id);
  }
  const builtIns = [...CATALOG.values()].map((e) => e.definition).filter((d) => BUILT_IN_IDS.has(d.id));
  CATALOG = buildCatalog([...builtIns, ...definitions]);
}

/** The definition of a remote entry at an earlier revision than the catalog's, or null; set by lib/providers. */
export type RevisionResolver = (db: Db, id: string, revision: string) => Promise<ModelDefinition | null>;
let revisionResolver: RevisionResolver | null = null;

export function setRevisionResolver(resolver: RevisionResolver | null): void {
  revisionResolver = resolver;
}

/**
 * What a run created at `revision` runs: the catalog's entry when it is that revision (or a
 * built-in), else the entry as it was then (a remote entry edited after the run was queued), else
 * the current one. Retired → 410, as findCatalogEntry.
 */
export async function definitionAtRevision(db: Db, id: string, revision: string): Promise<ModelDefinition> {
  const { definition } = findCatalogEntry(id);
  if (definition.revision === revision || BUILT_IN_IDS.has(definition.id) || !revisionResolver) return definition;
  return (await revisionResolver(db, definition.id, revision)) ?? definition;
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

type Listed = Array<{ entry: CatalogEntry; availability: Availability }>;

/** Whether an entry's availability can change with no pause changing: a remote provider's health as this process sees it. */
function changesByItself(definition: ModelDefinition): boolean {
  return definition.unavailableReason !== undefined || (definition.steps ?? []).some(changesByItself);
}

/** What one listing was made from, and the listing; its JSON bytes once asked for. */
interface Listing {
  catalog: typeof CATALOG;
  pauses: PauseMap;
  /** When the next listed entry retires (ms): the listing is made again then. */
  before: number;
  /** The availability of the entries that change by themselves, as it was. */
  changing: string;
  listed: Listed;
  json: Buffer<ArrayBuffer> | null;
}

let lastListing: Listing | null = null;

function changingAvailability(listed: Listed, pauses: PauseMap): string {
  let key = "";
  for (const { entry } of listed)
    if (changesByItself(entry.definition))
      key += `${entry.model.id}\u0000${JSON.stringify(availabilityOf(entry.definition, pauses))}\u0001`;
  return key;
}

/**
 * The entries a listing shows (retired ones left out), each with whether it is in service now.
 * Building them and their JSON is most of a listing's work, yet they change only when the pauses do
 * (activePauses gives the same map until then), an entry retires, or a remote provider's health
 * changes: the last listing is kept until one of those happens.
 */
async function currentListing(db: Db): Promise<Listing> {
  const pauses = await activePauses(db);
  const now = Date.now();
  const last = lastListing;
  if (
    last &&
    last.catalog === CATALOG &&
    last.pauses === pauses &&
    now < last.before &&
    last.changing === changingAvailability(last.listed, pauses)
  )
    return last;
  const listed = [...CATALOG.values()]
    .filter((e) => !isRetired(e.definition.lifecycle, now))
    .map((entry) => ({ entry, availability: availabilityOf(entry.definition, pauses) }));
  const sunsets = listed.map(({ entry }) =>
    entry.definition.lifecycle ? Date.parse(entry.definition.lifecycle.sunset_at) : Infinity,
  );
  const listing: Listing = {
    catalog: CATALOG,
    pauses,
    before: Math.min(Infinity, ...sunsets),
    changing: changingAvailability(listed, pauses),
    listed,
    json: null,
  };
  lastListing = listing;
  return listing;
}

function listOf(listed: Listed): ModelList {
  return {
    object: "list",
    data: listed.map(({ entry, availability }) => withoutSchema({ ...entry.model, availability })),
  };
}

/** Every model and preset that can run, retired ones left out, each saying whether it is in service now. */
export async function listCatalog(db: Db): Promise<ModelList> {
  return listOf((await currentListing(db)).listed);
}

/** listCatalog as UTF-8 JSON, for the API's listings: made once per listing (currentListing), not encoded again per answer. */
export async function listCatalogJson(db: Db): Promise<Buffer<ArrayBuffer>> {
  const listing = await currentListing(db);
  listing.json ??= Buffer.from(JSON.stringify(listOf(listing.listed)), "utf8");
  return listing.json;
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
    entry = [...CATALOG.values()].find(
      (e) => e.model.latest && splitModelId(e.model.id).base === id && e.model.version !== null,
    );
  }
  if (!entry) {
    const suggestion = closestMatch(
      id,
      [...CATALOG.values()].filter((e) => !isRetired(e.definition.lifecycle)).map((e) => e.model.id),
    );
    const message = `No model or preset "${id}" in the catalog.${suggestion ? ` Did you mean "${suggestion}"?` : ""} GET /v1/models lists them all.`;
    throw param === null
      ? new ApiError("resource_not_found", message)
      : new ApiError("invalid_parameter", message, { param });
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

/** GET /v1/models's bytes (listCatalogJson). */
export function listModelsJson(ctx: Ctx): Promise<Buffer<ArrayBuffer>> {
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
