// Runs: start (price held, idempotent), read (optionally waiting), list (cursor paged), cancel.
import { settleHold, holdCredit } from "./credits";
import { deprecationHeaders, findCatalogEntry, MODEL_ID_PATTERN, splitModelId } from "./catalog";
import { nowIso, requireScope, SOURCES, type Ctx } from "./context";
import { ApiError } from "./errors";
import { presentGeneration, type Generation, type StoredOutput } from "./generation-view";
import { FINAL_STATUSES, GENERATION_STATUSES, isFinal } from "./run-states";
import { findIdempotentReplay, recordIdempotencyKey, requestHash, validateIdempotencyKey } from "./idempotency";
import { newId, hasIdPrefix, ID_PREFIXES } from "./ids";
import { LIMITS } from "./limits";
import { afterPosition, keysetPage } from "./paging";
import { priceRunRequest, type PricedRun } from "./quotes";
import { appendRunEndedEvent } from "./run-events";
import type { Db, GenerationsTable } from "../store/database";
import { isUniqueViolation } from "../store/dialects";
import { withTransaction } from "../store/store";

export { GENERATION_STATUSES };

export interface GenerationAnswer {
  generation: Generation;
  replayed: boolean;
  /** Deprecation headers of the run's model; {} when not deprecated. */
  headers: Record<string, string>;
}

/** Deprecation headers for a stored run's model, without failing when it has since retired. */
function headersForModel(modelId: string): Record<string, string> {
  try {
    return deprecationHeaders(findCatalogEntry(modelId).model);
  } catch {
    return {};
  }
}

async function findRow(db: Db, workspaceId: string, id: string): Promise<GenerationsTable | undefined> {
  return db.selectFrom("generations").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
}

async function requireRow(ctx: Ctx, id: string): Promise<GenerationsTable> {
  const row = hasIdPrefix("generation", id) ? await findRow(ctx.db, ctx.workspaceId, id) : undefined;
  if (!row) throw new ApiError("resource_not_found", `No generation ${id} in this workspace.`);
  return row;
}

/** What a run of this workspace keeps of its outputs (blob keys included), for doors that carry the bytes. */
export async function readRunOutputs(ctx: Ctx, input: { id: string }): Promise<StoredOutput[]> {
  requireScope(ctx, "generations:read");
  const row = await requireRow(ctx, input.id);
  return JSON.parse(row.output_json) as StoredOutput[];
}

/** A run row ready to insert, queued, for a priced request. */
export function queuedRow(
  ctx: Ctx,
  priced: PricedRun,
  extra: { id: string; holdId: string | null; batch: { id: string; index: number } | null; now: string },
): GenerationsTable {
  return {
    id: extra.id,
    workspace_id: ctx.workspaceId,
    model: priced.modelId,
    model_base: splitModelId(priced.modelId).base,
    modality: priced.definition.modality,
    revision: priced.definition.revision,
    status: "queued",
    provider: null,
    input_json: JSON.stringify(priced.input),
    output_json: "[]",
    preview_json: null,
    uncancelable_reason: null,
    error_message: null,
    price_micros: priced.costMicros,
    charged_micros: null,
    hold_id: extra.holdId,
    source: ctx.source,
    batch_id: extra.batch?.id ?? null,
    batch_index: extra.batch?.index ?? null,
    webhook: priced.request.webhook,
    created_by: ctx.actor.id,
    created_at: extra.now,
    started_at: null,
    completed_at: null,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
  };
}

/** Holds the price (none for a free run) inside the caller's transaction. */
export async function holdFor(db: Db, workspaceId: string, micros: number): Promise<string | null> {
  return micros > 0 ? holdCredit(db, { workspaceId, amountMicros: micros }) : null;
}

/**
 * Starts something once per idempotency key: a replay returns what the key already started;
 * otherwise `prepare` validates and prices (outside the transaction), and `start` writes in one
 * transaction that records the key first, so two concurrent requests with one key start exactly
 * one thing and the loser replays the winner's result.
 */
export async function startIdempotently<P>(
  ctx: Ctx,
  options: { key: string | null; endpoint: string; body: unknown; newResourceId: () => string },
  prepare: () => Promise<P>,
  start: (trx: Db, prepared: P, id: string, now: string) => Promise<void>,
): Promise<{ id: string; replayed: boolean }> {
  const hash = options.key ? requestHash(options.endpoint, options.body) : "";
  const lookup = () =>
    findIdempotentReplay(ctx.db, { workspaceId: ctx.workspaceId, key: options.key!, endpoint: options.endpoint, hash });
  if (options.key) {
    const existing = await lookup();
    if (existing) return { id: existing, replayed: true };
  }
  const prepared = await prepare();
  const id = options.newResourceId();
  try {
    await withTransaction(ctx.db, async (trx) => {
      const now = nowIso();
      if (options.key) {
        await recordIdempotencyKey(trx, { workspaceId: ctx.workspaceId, key: options.key, endpoint: options.endpoint, hash, resourceId: id, now });
      }
      await start(trx, prepared, id, now);
    });
  } catch (err) {
    if (options.key && isUniqueViolation(err)) {
      const existing = await lookup();
      if (existing) return { id: existing, replayed: true };
    }
    throw err;
  }
  return { id, replayed: false };
}

/** POST /v1/generations */
export async function createGeneration(
  ctx: Ctx,
  body: unknown,
  options: { idempotencyKey?: string; waitSeconds?: number | null } = {},
): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:write");
  const key = validateIdempotencyKey(options.idempotencyKey);
  let inserted: GenerationsTable | null = null;
  const { id, replayed } = await startIdempotently(
    ctx,
    { key, endpoint: "generations", body, newResourceId: () => newId("generation") },
    () => priceRunRequest(ctx, body),
    async (trx, priced, runId, now) => {
      const holdId = await holdFor(trx, ctx.workspaceId, priced.holdMicros);
      inserted = queuedRow(ctx, priced, { id: runId, holdId, batch: null, now });
      await trx.insertInto("generations").values(inserted).execute();
    },
  );
  if (!replayed) ctx.services.signals.runQueued();
  // A new run is answered as created (queued) unless the caller asked to wait; a replay as it is now.
  const row: GenerationsTable = inserted && !options.waitSeconds ? inserted : await readWaiting(ctx, id, options.waitSeconds);
  return { generation: presentGeneration(ctx.services, row), replayed, headers: headersForModel(row.model) };
}

/** Prefer: wait=N → N seconds (clipped to 60), or null when absent or malformed (RFC 7240). */
export function parsePreferWait(header: string | undefined): number | null {
  if (!header) return null;
  for (const preference of header.split(",")) {
    const match = /^\s*wait\s*=\s*"?(\d+)"?\s*$/i.exec(preference.split(";")[0] ?? "");
    if (match) return Math.min(Number(match[1]), LIMITS.preferWaitSeconds);
  }
  return null;
}

/**
 * Reads a run, holding the answer up to `waitSeconds` until it is final. Event-driven: one
 * listener on the run-finished signal, no store poll per waiter. Callers check scopes.
 */
async function readWaiting(ctx: Ctx, id: string, waitSeconds: number | null | undefined): Promise<GenerationsTable> {
  let row = await requireRow(ctx, id);
  if (waitSeconds && !isFinal(row.status)) {
    const stop = new AbortController();
    const finished = ctx.services.signals.waitForFinish(row.id, waitSeconds * 1000, stop.signal);
    // Read again after subscribing: a finish between the two reads is then not missed.
    row = await requireRow(ctx, id);
    if (isFinal(row.status)) stop.abort();
    await finished;
    row = await requireRow(ctx, id);
  }
  return row;
}

/** GET /v1/generations/{id}, optionally with Prefer: wait. */
export async function getGeneration(ctx: Ctx, input: { id: string; waitSeconds?: number | null }): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:read");
  const row = await readWaiting(ctx, input.id, input.waitSeconds);
  return { generation: presentGeneration(ctx.services, row), replayed: false, headers: headersForModel(row.model) };
}

function parseCommaList<T extends string>(value: string | undefined, allowed: readonly T[], param: string): T[] | null {
  if (value === undefined) return null;
  const items = value.split(",").map((s) => s.trim());
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new ApiError("invalid_parameter", `${param} takes a comma-separated list of ${allowed.join(", ")}; got "${item}".`, { param });
    }
  }
  return [...new Set(items as T[])].sort();
}

const BATCH_ID = new RegExp(`^${ID_PREFIXES.batch}[0-9A-Za-z]{1,60}$`);

export interface GenerationList {
  object: "list";
  url: string;
  data: Generation[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * GET /v1/generations: newest first, keyset paged on (created_at, id). `createdBy` (not a query
 * parameter: the studio's own runs of its signed-in user) narrows to one actor's runs.
 */
export async function listGenerations(
  ctx: Ctx,
  query: Record<string, string | undefined>,
  options: { createdBy?: string } = {},
): Promise<GenerationList> {
  requireScope(ctx, "generations:read");
  const model = query.model;
  if (model !== undefined && (model.length > LIMITS.modelIdLength || !MODEL_ID_PATTERN.test(model))) {
    throw new ApiError("invalid_parameter", `model must be a catalog ID such as "atelier/gradient", at most ${LIMITS.modelIdLength} characters.`, { param: "model" });
  }
  const batch = query.batch;
  if (batch !== undefined && !BATCH_ID.test(batch)) {
    throw new ApiError("invalid_parameter", `batch must be a batch ID such as "bat_…"; got "${batch.slice(0, 40)}".`, { param: "batch" });
  }
  const sources = parseCommaList(query.source, SOURCES, "source");
  const statuses = parseCommaList(query.status, GENERATION_STATUSES, "status");
  const createdBy = options.createdBy ?? null;
  // Cursors made before the batch and creator filters existed stay valid for the same list.
  const narrowed = batch !== undefined || createdBy !== null ? [batch ?? null, createdBy] : [];
  const filters = JSON.stringify([model ?? null, sources, statuses, ...narrowed]);
  const page = await keysetPage(
    { secret: ctx.services.secretKey, limit: query.limit, cursor: query.cursor, filters },
    (after, take) => {
      let q = ctx.db.selectFrom("generations").selectAll().where("workspace_id", "=", ctx.workspaceId);
      if (model !== undefined) q = model.includes("@") ? q.where("model", "=", model) : q.where("model_base", "=", model);
      if (sources) q = q.where("source", "in", sources);
      if (statuses) q = q.where("status", "in", statuses);
      if (batch !== undefined) q = q.where("batch_id", "=", batch);
      if (createdBy !== null) q = q.where("created_by", "=", createdBy);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
  return {
    object: "list",
    url: "/v1/generations",
    data: page.rows.map((row) => presentGeneration(ctx.services, row)),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

const UNCANCELABLE_MESSAGES: Record<string, string> = {
  preview: "This preset run has already shown its preview, so it can no longer be canceled. It goes on to its end and is charged only if it succeeds.",
  provider: "This run is at a provider that bills once it is submitted, so it can no longer be canceled. It goes on to its end and is charged only if it succeeds.",
};

/** POST /v1/generations/{id}/cancel: safe to repeat; a final run comes back as it is. */
export async function cancelGeneration(ctx: Ctx, input: { id: string }): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:write");
  const current = await requireRow(ctx, input.id);
  let canceled = false;
  if (!isFinal(current.status)) {
    canceled = await withTransaction(ctx.db, async (trx) => {
      const row = await findRow(trx, ctx.workspaceId, input.id);
      if (!row || isFinal(row.status)) return false;
      if (row.uncancelable_reason !== null) throw new ApiError("conflict", UNCANCELABLE_MESSAGES[row.uncancelable_reason] ?? UNCANCELABLE_MESSAGES.provider!);
      const now = nowIso();
      const ended = await trx
        .updateTable("generations")
        .set({ status: "canceled", completed_at: now, lease_owner: null, lease_expires_at: null })
        .where("id", "=", row.id)
        .where("status", "in", ["queued", "running"])
        // A worker may pass the cancel point between the read above and here (PostgreSQL).
        .where("uncancelable_reason", "is", null)
        .returningAll()
        .executeTakeFirst();
      if (!ended) {
        const now = await findRow(trx, ctx.workspaceId, input.id);
        if (now && !isFinal(now.status) && now.uncancelable_reason !== null) {
          throw new ApiError("conflict", UNCANCELABLE_MESSAGES[now.uncancelable_reason] ?? UNCANCELABLE_MESSAGES.provider!);
        }
        return false;
      }
      if (ended.hold_id) await settleHold(trx, { holdId: ended.hold_id, outcome: "release" });
      await appendRunEndedEvent(trx, ctx.services, ended);
      return true;
    });
  }
  if (canceled) ctx.services.signals.runFinished(input.id);
  const row = await requireRow(ctx, input.id);
  return { generation: presentGeneration(ctx.services, row), replayed: false, headers: headersForModel(row.model) };
}

export { FINAL_STATUSES };
