// The verbs of the remote catalog in the store: providers added, edited and removed here, entries
// in entry-verbs.ts; and what every verb shares: its context, the presenters, one change's
// transaction. The one place each rule lives: every door (the admin CLI now, the studio's
// Providers pages later, the providers file's apply) goes through them. Each checks its document
// with the providers file's parser, writes in one transaction with its audit event, and then
// tells every process (catalogChanged).
import { ApiError } from "../../primitives/errors";
import { sealSecret } from "../../primitives/secret-box";
import { isUniqueViolation } from "../../store/dialects";
import type { Db } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { nowIso } from "../../core/context";
import { CLI_AUDIT, recordAudit, type AuditBy } from "../../core/audit/audit-writer";
import { opsAuditBy, type OpsCtx } from "../../core/ops/ops-principal";
import {
  deleteProviderRow,
  insertProviderRow,
  lockCatalog,
  readRemoteEntries,
  readRemoteProvider,
  readRemoteProviders,
  remoteCatalogChanged,
  updateProviderRow,
  type RemoteEntryRow,
  type RemoteProviderRow,
} from "../../core/catalog/remote-store";
import type { JsonObject } from "../common/json-fields";
import { checkProviderDocument, credentialOf } from "./documents";
import { providerAudit } from "./catalog-audit";

/**
 * Who asks, and what checking a document needs: the store, SECRET_KEY, the environment for
 * `api_key_env`. Only an operator may read or change the remote catalog: the studio passes the
 * OpsCtx only opsPrincipal() makes (a page that did not ask for one does not compile); the admin
 * CLI, and the providers file's apply at start, act as "cli".
 */
export interface CatalogCtx {
  db: Db;
  secretKey: string;
  env: Record<string, string | undefined>;
  actingAs: OpsCtx | "cli";
  /** Where paths in a document (a ComfyUI workflow file) are read from; the process's folder by default. */
  baseDir?: string;
}

/** A provider as every read shows it: its settings and how its key is given, never the key. */
export interface StoredProvider {
  object: "provider";
  id: string;
  kind: string;
  settings: JsonObject;
  credential: string;
  source: "file" | "ops";
  entries: number;
  created_at: string;
  updated_at: string;
}

export interface StoredEntry {
  object: "catalog_entry";
  id: string;
  provider: string;
  state: "draft" | "published";
  revision: string;
  source: "file" | "ops";
  document: JsonObject;
  created_at: string;
  updated_at: string;
}

/** Who the audit events of a change name: the ops user (and their address), or the CLI. */
export function catalogAuditBy(ctx: Pick<CatalogCtx, "actingAs">): AuditBy {
  return ctx.actingAs === "cli" ? CLI_AUDIT : opsAuditBy(ctx.actingAs);
}

export function providerSecretPurpose(providerId: string): string {
  return `provider:${providerId}`;
}

function presentProvider(row: RemoteProviderRow, entries: number): StoredProvider {
  const settings = JSON.parse(row.settings_json) as JsonObject;
  return {
    object: "provider",
    id: row.id,
    kind: row.kind,
    settings,
    credential: credentialOf(settings, row.secret_ciphertext),
    source: row.source,
    entries,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentEntry(row: RemoteEntryRow): StoredEntry {
  return {
    object: "catalog_entry",
    id: row.id,
    provider: row.provider_id,
    state: row.state,
    revision: row.revision,
    source: row.source,
    document: JSON.parse(row.document_json) as JsonObject,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function parseCtx(ctx: CatalogCtx) {
  return { baseDir: ctx.baseDir ?? process.cwd(), env: ctx.env };
}

export function notFound(what: "provider" | "entry", id: string): ApiError {
  return new ApiError("resource_not_found", `No ${what} "${id}" in the stored catalog. "${what} list" shows them.`, {
    param: what,
  });
}

function sealedKey(ctx: CatalogCtx, providerId: string, apiKey: string | null | undefined): string | null {
  if (apiKey === undefined || apiKey === null) return null;
  // eslint-disable-next-line no-control-regex -- a key is one line of printable text
  if (apiKey.trim() === "" || /[\u0000-\u001f\u007f]/.test(apiKey.trim()))
    throw new ApiError("invalid_parameter", "The API key must be one line of text.", { param: "api_key" });
  return sealSecret(ctx.secretKey, providerSecretPurpose(providerId), apiKey.trim());
}

/** Runs a change in one transaction with the catalog locked, then tells every process. */
export async function change<T>(ctx: CatalogCtx, fn: (trx: Db) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await withTransaction(ctx.db, async (trx) => {
      await lockCatalog(trx);
      return fn(trx);
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError("conflict", "Another change to the catalog took that id meanwhile; list and try again.");
    throw err;
  }
  remoteCatalogChanged(ctx.db);
  return result;
}

export async function listStoredProviders(ctx: Pick<CatalogCtx, "db" | "actingAs">): Promise<StoredProvider[]> {
  const [rows, entries] = await Promise.all([readRemoteProviders(ctx.db), readRemoteEntries(ctx.db)]);
  return rows.map((row) => presentProvider(row, entries.filter((e) => e.provider_id === row.id).length));
}

export async function listStoredEntries(
  ctx: Pick<CatalogCtx, "db" | "actingAs">,
  filter: { providerId?: string; state?: "draft" | "published" } = {},
): Promise<StoredEntry[]> {
  return (await readRemoteEntries(ctx.db, filter)).map(presentEntry);
}

/** Adds a provider (no entries yet). `apiKey`: a pasted key, stored encrypted, instead of `api_key_env`. */
export async function addProvider(
  ctx: CatalogCtx,
  input: { document: unknown; apiKey?: string | null },
): Promise<StoredProvider> {
  const provider = checkProviderDocument(input.document, parseCtx(ctx), input.apiKey ?? null);
  const secret = sealedKey(ctx, provider.id, input.apiKey);
  const settings = input.document as JsonObject;
  const now = nowIso();
  const row: RemoteProviderRow = {
    id: provider.id,
    kind: provider.kind,
    settings_json: JSON.stringify(settings),
    secret_ciphertext: secret,
    source: "ops",
    file_json: null,
    created_at: now,
    updated_at: now,
  };
  return change(ctx, async (trx) => {
    if (await readRemoteProvider(trx, provider.id))
      throw new ApiError("conflict", `A provider "${provider.id}" is already stored; edit it instead.`, {
        param: "provider.id",
      });
    await insertProviderRow(trx, row);
    await recordAudit(trx, catalogAuditBy(ctx), providerAudit("provider.added", provider.id, null, row));
    return presentProvider(row, 0);
  });
}

/**
 * Replaces a provider's settings. `apiKey`: undefined keeps the stored key, null removes it, a
 * string replaces it. Its kind cannot change (its entries were checked against it).
 */
export async function editProvider(
  ctx: CatalogCtx,
  input: { id: string; document: unknown; apiKey?: string | null },
): Promise<StoredProvider> {
  return change(ctx, async (trx) => {
    const before = await readRemoteProvider(trx, input.id);
    if (!before) throw notFound("provider", input.id);
    const next = await providerEdit(ctx, before, input.document, input.apiKey);
    await updateProviderRow(trx, before.id, next);
    const after = { ...before, ...next };
    await recordAudit(trx, catalogAuditBy(ctx), providerAudit("provider.edited", before.id, before, after));
    const entries = await readRemoteEntries(trx, { providerId: before.id });
    return presentProvider(after, entries.length);
  });
}

/** The columns an edit of `before` writes: the settings checked, the key kept, replaced or removed. */
export async function providerEdit(
  ctx: CatalogCtx,
  before: RemoteProviderRow,
  document: unknown,
  apiKey: string | null | undefined,
  options: { fileJson?: string | null } = {},
): Promise<Pick<RemoteProviderRow, "settings_json" | "secret_ciphertext" | "updated_at"> & Partial<RemoteProviderRow>> {
  const settings = document as JsonObject;
  // A stored key stays unless replaced, except when the settings now name a variable instead.
  const keepSecret =
    apiKey === undefined &&
    before.secret_ciphertext !== null &&
    (settings === null || typeof settings !== "object" || settings.api_key_env === undefined);
  const provider = checkProviderDocument(document, parseCtx(ctx), apiKey ?? (keepSecret ? "(stored)" : null));
  if (provider.id !== before.id)
    throw new ApiError("invalid_parameter", `provider.id must stay "${before.id}"; got "${provider.id}".`, {
      param: "provider.id",
    });
  if (provider.kind !== before.kind)
    throw new ApiError(
      "invalid_parameter",
      `provider.kind must stay "${before.kind}": its entries were written for it. Add a new provider instead.`,
      { param: "provider.kind" },
    );
  return {
    settings_json: JSON.stringify(settings),
    secret_ciphertext: keepSecret ? before.secret_ciphertext : sealedKey(ctx, before.id, apiKey),
    updated_at: nowIso(),
    ...(options.fileJson !== undefined ? { file_json: options.fileJson } : {}),
  };
}

/** Removes a provider with its entries; runs queued for them fail as an unknown model's would. */
/** Whether a stored entry's document names `providerId` among its route targets. */
function routesThrough(documentJson: string, providerId: string): boolean {
  const routes = (JSON.parse(documentJson) as { routes?: { targets?: unknown } }).routes;
  return (
    Array.isArray(routes?.targets) && routes.targets.some((t) => (t as { provider?: unknown })?.provider === providerId)
  );
}

export async function removeProvider(ctx: CatalogCtx, input: { id: string }): Promise<{ id: string; entries: number }> {
  return change(ctx, async (trx) => {
    const before = await readRemoteProvider(trx, input.id);
    if (!before) throw notFound("provider", input.id);
    const entries = await readRemoteEntries(trx, { providerId: before.id });
    // Another provider's entry that routes through it would no longer load: its routes go first.
    const routing = (await readRemoteEntries(trx))
      .filter((e) => e.provider_id !== before.id && routesThrough(e.document_json, before.id))
      .map((e) => e.id);
    if (routing.length > 0)
      throw new ApiError(
        "conflict",
        `${routing.join(", ")} ${routing.length === 1 ? "sends" : "send"} runs through ${before.id}: take it out of ${routing.length === 1 ? "its" : "their"} routes first.`,
        { param: "provider" },
      );
    await deleteProviderRow(trx, before.id);
    await recordAudit(trx, catalogAuditBy(ctx), {
      ...providerAudit("provider.removed", before.id, before, null),
    });
    return { id: before.id, entries: entries.length };
  });
}
