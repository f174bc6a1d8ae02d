// Checking a stored document with the providers file's own parser (providers-file.ts), and the
// small rules every stored-catalog verb shares: the size limit, what counts as a new revision,
// how a revision is named, and the JSON compared across applies.
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";
import { isBuiltInModel } from "../../core/catalog/catalog";
import { checkPlainDocument, ProvidersFileError } from "../common/json-fields";
import type { JsonObject } from "../common/json-fields";
import type { ParseContext, RouteProvider } from "../common/kind";
import type { Db } from "../../store/database";
import { readRemoteProviders } from "../../core/catalog/remote-store";
import { PROVIDER_KINDS } from "../kinds";
import { parseEntryDocument, parseProviderDocument } from "../providers-file";
import type { ProviderConfig, RemoteEntryConfig } from "../common/types";

/** A refusal of the file's parser as the API's error: invalid_parameter naming the field's path. */
export function asApiError(err: unknown): unknown {
  if (!(err instanceof ProvidersFileError)) return err;
  const param = err.message.split(" ", 1)[0]!;
  return new ApiError("invalid_parameter", err.message, { param });
}

function withinSize(document: unknown, what: "provider" | "entry"): string {
  let text: string;
  try {
    text = JSON.stringify(document);
  } catch {
    throw new ApiError("invalid_parameter", `${what} must be a JSON document.`, { param: what });
  }
  const limit = LIMITS.catalogDocumentBytes[what];
  if (text === undefined || Buffer.byteLength(text, "utf8") > limit)
    throw new ApiError(
      "invalid_parameter",
      `${what} must be a JSON document of at most ${limit} bytes; got ${text === undefined ? "nothing" : `${Buffer.byteLength(text, "utf8")} bytes`}.`,
      { param: what },
    );
  return text;
}

/** A provider's settings, checked by the file's rules (no `entries`); its id and kind. */
export function checkProviderDocument(
  document: unknown,
  ctx: ParseContext,
  storedKey: string | null,
): Omit<ProviderConfig, "entries"> {
  withinSize(document, "provider");
  try {
    const provider = parseProviderDocument(
      document,
      { ...ctx, keysRequired: ctx.keysRequired ?? false },
      { storedKey },
    );
    // What the parser reads field by field it has checked; the rest (a schema's words) here.
    checkPlainDocument(document, "provider");
    return provider;
  } catch (err) {
    throw asApiError(err);
  }
}

/**
 * The providers an entry's `routes` may name, by id with their kind and settings: stored rows
 * (`settings_json`) and the file's documents (`settings`).
 */
export function routeProviders(
  rows: ReadonlyArray<{ id: string; kind: string; settings_json?: string; settings?: JsonObject }>,
): Map<string, RouteProvider> {
  const providers = new Map<string, RouteProvider>();
  for (const row of rows) {
    const kind = Object.hasOwn(PROVIDER_KINDS, row.kind) ? PROVIDER_KINDS[row.kind] : undefined;
    if (kind) providers.set(row.id, { kind, settings: row.settings ?? settingsOf(row.settings_json) });
  }
  return providers;
}

function settingsOf(json: string | undefined): JsonObject {
  try {
    const settings: unknown = json === undefined ? {} : JSON.parse(json);
    return settings && typeof settings === "object" && !Array.isArray(settings) ? (settings as JsonObject) : {};
  } catch {
    return {};
  }
}

/** The store's providers, for an entry's `routes`. */
export async function storedRouteProviders(db: Db): Promise<Map<string, RouteProvider>> {
  return routeProviders(await readRemoteProviders(db));
}

/**
 * An entry of `provider`, checked by the file's rules, and the document to store: what the file
 * names by path (a workflow file, read from ctx.baseDir) put inline. A built-in's id is refused.
 */
export function checkEntryDocument(
  document: unknown,
  provider: { id: string; kind: string },
  ctx: ParseContext,
): { parsed: RemoteEntryConfig; stored: JsonObject } {
  withinSize(document, "entry");
  let parsed: RemoteEntryConfig;
  try {
    parsed = parseEntryDocument(document, provider, ctx);
    checkPlainDocument(document, "entry");
  } catch (err) {
    throw asApiError(err);
  }
  if (isBuiltInModel(parsed.id))
    throw new ApiError("invalid_parameter", `entry.id "${parsed.id}" is a built-in model's id; choose another.`, {
      param: "entry.id",
    });
  const kind = PROVIDER_KINDS[provider.kind]!;
  const stored = kind.inlineEntry ? kind.inlineEntry(document as JsonObject, parsed.options) : (document as JsonObject);
  withinSize(stored, "entry");
  return { parsed, stored };
}

/** JSON with every object's keys sorted: two documents that say the same compare equal. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/**
 * Fields whose change leaves what a run does, and costs, as it was: no new revision for them.
 * `examples` only fill the model page's form; each is checked against the schema of the moment.
 */
const PRESENTATION_FIELDS = new Set([
  "name",
  "creator",
  "description",
  "tasks",
  "status",
  "lifecycle",
  "revision",
  "examples",
]);

/**
 * Whether an edit changes what a run does or costs (its input schema, pricing, cost, upstream
 * model, a kind's fields such as a ComfyUI workflow and bindings): a published entry then gets a
 * new revision, and runs queued before keep the old one.
 */
export function changesRuns(before: JsonObject, after: JsonObject): boolean {
  const material = (doc: JsonObject) =>
    stableJson(Object.fromEntries(Object.entries(doc).filter(([key]) => !PRESENTATION_FIELDS.has(key))));
  return material(before) !== material(after);
}

/**
 * The revision an edit gets: the day's date (UTC, "2026-11-29"), or when the entry already had a
 * revision of that day, the date and a counter ("2026-11-29.2", ".3", …).
 */
export function nextRevision(taken: readonly string[], now = new Date()): string {
  const day = now.toISOString().slice(0, 10);
  if (!taken.includes(day)) return day;
  for (let n = 2; ; n++) if (!taken.includes(`${day}.${n}`)) return `${day}.${n}`;
}

/** How a provider's key is given, as lists and the audit log say it: never the key. */
export function credentialOf(settings: JsonObject, secret: string | null): string {
  if (secret !== null) return "secret set";
  if (typeof settings.api_key_env === "string") return `environment variable ${settings.api_key_env}`;
  return "none";
}
