// The stored catalog's entry verbs: added (as drafts or published), edited, published,
// deprecated and retired. Each checks its document with the providers file's parser, writes in
// one transaction with its audit event, and then tells every process (catalog-verbs.ts, change).
import { ApiError } from "../../primitives/errors";
import type { Db } from "../../store/database";
import { nowIso } from "../../core/context";
import { recordAudit } from "../../core/audit/audit-writer";
import {
  insertEntryRow,
  keepEntryRevision,
  readRemoteEntry,
  readRemoteProvider,
  revisionsOf,
  updateEntryRow,
  type RemoteEntryRow,
  type RemoteProviderRow,
} from "../../core/catalog/remote-store";
import type { JsonObject } from "../common/json-fields";
import {
  catalogAuditBy,
  type CatalogCtx,
  change,
  notFound,
  parseCtx,
  presentEntry,
  type StoredEntry,
} from "./catalog-verbs";
import { changesRuns, checkEntryDocument, nextRevision, storedRouteProviders } from "./documents";
import type { RouteProvider } from "../common/kind";
import { entryAudit } from "./catalog-audit";

/** Adds an entry to a stored provider, as a draft (the default) or published at once. */
export async function addEntry(
  ctx: CatalogCtx,
  input: { providerId: string; document: unknown; publish?: boolean },
): Promise<StoredEntry> {
  return change(ctx, async (trx) => {
    const provider = await readRemoteProvider(trx, input.providerId);
    if (!provider) throw notFound("provider", input.providerId);
    const { parsed, stored } = checkEntryDocument(input.document, provider, {
      ...parseCtx(ctx),
      providers: await storedRouteProviders(trx),
    });
    if (await readRemoteEntry(trx, parsed.id))
      throw new ApiError("conflict", `An entry "${parsed.id}" is already stored; edit it instead.`, {
        param: "entry.id",
      });
    const now = nowIso();
    const row: RemoteEntryRow = {
      id: parsed.id,
      provider_id: provider.id,
      document_json: JSON.stringify(stored),
      state: input.publish ? "published" : "draft",
      revision: parsed.revision,
      source: "ops",
      file_json: null,
      created_at: now,
      updated_at: now,
    };
    await insertEntryRow(trx, row);
    if (input.publish) await recordAudit(trx, catalogAuditBy(ctx), entryAudit("entry.published", null, row));
    else await recordAudit(trx, catalogAuditBy(ctx), entryAudit("entry.edited", null, row));
    return presentEntry(row);
  });
}

/**
 * The columns an edit of `before` to `document` writes: a published entry whose edit changes what
 * its runs do (changesRuns) gets a new revision, its old document kept for the runs queued with it.
 */
export async function entryEdit(
  ctx: CatalogCtx,
  trx: Db,
  before: RemoteEntryRow,
  provider: RemoteProviderRow,
  document: unknown,
  /** What `routes` may name; default: the store's providers now. */
  providers?: Map<string, RouteProvider>,
): Promise<Pick<RemoteEntryRow, "document_json" | "revision" | "updated_at" | "provider_id">> {
  const { parsed, stored } = checkEntryDocument(document, provider, {
    ...parseCtx(ctx),
    providers: providers ?? (await storedRouteProviders(trx)),
  });
  if (parsed.id !== before.id)
    throw new ApiError("invalid_parameter", `entry.id must stay "${before.id}"; got "${parsed.id}".`, {
      param: "entry.id",
    });
  const previous = JSON.parse(before.document_json) as JsonObject;
  let revision = before.revision;
  if (before.state === "published" && (changesRuns(previous, stored) || provider.id !== before.provider_id)) {
    revision = nextRevision(await revisionsOf(trx, before.id));
    await keepEntryRevision(trx, {
      entry_id: before.id,
      revision: before.revision,
      document_json: before.document_json,
      created_at: nowIso(),
    });
  }
  return { document_json: JSON.stringify(stored), revision, updated_at: nowIso(), provider_id: provider.id };
}

/** Replaces an entry's document (its id stays); a draft stays a draft. */
export async function editEntry(ctx: CatalogCtx, input: { id: string; document: unknown }): Promise<StoredEntry> {
  return change(ctx, async (trx) => {
    const before = await readRemoteEntry(trx, input.id);
    if (!before) throw notFound("entry", input.id);
    const provider = (await readRemoteProvider(trx, before.provider_id))!;
    const next = await entryEdit(ctx, trx, before, provider, input.document);
    await updateEntryRow(trx, before.id, next);
    const after = { ...before, ...next };
    await recordAudit(trx, catalogAuditBy(ctx), entryAudit("entry.edited", before, after));
    return presentEntry(after);
  });
}

/** A draft goes into the catalog; publishing a published entry changes nothing. */
export async function publishEntry(ctx: CatalogCtx, input: { id: string }): Promise<StoredEntry> {
  return change(ctx, async (trx) => {
    const before = await readRemoteEntry(trx, input.id);
    if (!before) throw notFound("entry", input.id);
    if (before.state === "published") return presentEntry(before);
    const after = { ...before, state: "published" as const, updated_at: nowIso() };
    await updateEntryRow(trx, before.id, { state: after.state, updated_at: after.updated_at });
    await recordAudit(trx, catalogAuditBy(ctx), entryAudit("entry.published", before, after));
    return presentEntry(after);
  });
}

/** The entry's `lifecycle`, as the file's: set through the same parser, so the same rules. */
async function setLifecycle(
  ctx: CatalogCtx,
  input: { id: string; lifecycle: { deprecated_at: string; sunset_at: string; replaced_by: string | null } },
  action: "entry.deprecated" | "entry.retired",
): Promise<StoredEntry> {
  return change(ctx, async (trx) => {
    const before = await readRemoteEntry(trx, input.id);
    if (!before) throw notFound("entry", input.id);
    const provider = (await readRemoteProvider(trx, before.provider_id))!;
    const previous = JSON.parse(before.document_json) as JsonObject;
    const kept = previous.lifecycle as { deprecated_at?: string } | null | undefined;
    const lifecycle = { ...input.lifecycle, deprecated_at: kept?.deprecated_at ?? input.lifecycle.deprecated_at };
    if (lifecycle.deprecated_at > lifecycle.sunset_at) lifecycle.deprecated_at = lifecycle.sunset_at;
    const next = await entryEdit(ctx, trx, before, provider, { ...previous, lifecycle });
    await updateEntryRow(trx, before.id, next);
    const after = { ...before, ...next };
    await recordAudit(trx, catalogAuditBy(ctx), entryAudit(action, before, after));
    return presentEntry(after);
  });
}

/** Deprecated now, retired at `sunsetAt` (ISO 8601), pointing at `replacedBy` when given. */
export function deprecateEntry(
  ctx: CatalogCtx,
  input: { id: string; sunsetAt: string; replacedBy?: string | null },
): Promise<StoredEntry> {
  return setLifecycle(
    ctx,
    {
      id: input.id,
      lifecycle: { deprecated_at: nowIso(), sunset_at: input.sunsetAt, replaced_by: input.replacedBy ?? null },
    },
    "entry.deprecated",
  );
}

/** Retired now: 410 for new runs, out of the listing. */
export function retireEntry(ctx: CatalogCtx, input: { id: string; replacedBy?: string | null }): Promise<StoredEntry> {
  const now = nowIso();
  return setLifecycle(
    ctx,
    { id: input.id, lifecycle: { deprecated_at: now, sunset_at: now, replaced_by: input.replacedBy ?? null } },
    "entry.retired",
  );
}
