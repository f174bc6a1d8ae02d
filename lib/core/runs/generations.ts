// Runs: start (price held, idempotent), read (optionally waiting), list (cursor paged), cancel.
import {
  applyHoldingWrites,
  moveHeldFromAvailable,
  holdWrites,
  settleHoldAmount,
  type HoldNeed,
} from "../credits/credits";
import { deprecationHeaders, findCatalogEntry, MODEL_ID_PATTERN, splitModelId } from "../catalog/catalog";
import { nowIso, requireScope, SOURCES, type Ctx } from "../context";
import { observeRunEnded } from "../../primitives/metrics";
import { ApiError } from "../../primitives/errors";
import { presentGeneration, presentRun, presentRuns, type Generation, type StoredOutput } from "./generation-view";
import type { GenerationList } from "./generation-shape";
import { positionOf, positionsQuery, queueOrderLock } from "./queue-positions";
import { FINAL_STATUSES, GENERATION_STATUSES, isFinal } from "./run-states";
import { findIdempotentReplay, recordIdempotencyKey, requestHash, validateIdempotencyKey } from "./idempotency";
import { newId, hasIdPrefix, ID_PREFIXES, isPossibleId, type IdKind } from "../../primitives/ids";
import { LIMITS } from "../../primitives/limits";
import { currentTraceparent, traced } from "../../primitives/tracing";
import { keysetPage } from "../../primitives/paging";
import { historyPage, type PromptSearch } from "./history-query";
import { priceRunRequest, type PricedRun } from "./quotes";
import { appendRunEndedEvent } from "../webhooks/run-events";
import type { Db, GenerationsTable } from "../../store/database";
import { isUniqueViolation } from "../../store/dialects";
import type { Compilable } from "kysely";
import { withTransaction, type ListRead } from "../../store/writes";
import { insertRow } from "../../store/reused-sql";
import { budgetReleaseWrite, budgetSpendWrite } from "../budgets/budget-spend";

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
  return db
    .selectFrom("generations")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** A run of ctx's workspace, or the one "not found" every read answers (another workspace's ID included). */
export async function requireRow(ctx: Ctx, id: string): Promise<GenerationsTable> {
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

/**
 * The queue's lanes (migration 030): someone is waiting on an interactive run (the studio, an
 * agent over MCP, a create with `Prefer: wait`), so it starts before bulk work (batches, plain
 * API creates that are polled or told by webhook).
 */
export const LANES = { interactive: 0, bulk: 1 } as const;

/** The lane of a single create: interactive when someone waits on it. */
export function laneOf(ctx: Pick<Ctx, "source">, waitSeconds: number | null | undefined): number {
  return ctx.source !== "api" || (waitSeconds ?? 0) > 0 ? LANES.interactive : LANES.bulk;
}

/** A run row ready to insert, queued, for a priced request. */
export function queuedRow(
  ctx: Ctx,
  priced: PricedRun,
  extra: {
    id: string;
    holdId: string | null;
    batch: { id: string; index: number } | null;
    now: string;
    lane: number;
  },
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
    lane: extra.lane,
    // The create's span, which the run's execution continues in whichever process claims it.
    traceparent: currentTraceparent(),
  };
}

/** The hold's writes for a price (none for a free run); the balance moves last (moveHeldFromAvailable). */
export function recordHoldFor(
  db: Db,
  workspaceId: string,
  micros: number,
  now: string,
): { holdId: string | null; writes: Compilable[] } {
  return micros > 0 ? holdWrites(db, { workspaceId, amountMicros: micros, now }) : { holdId: null, writes: [] };
}

/** What `start` gives startIdempotently: the writes, the credit they hold, and a read to run right after. */
type StartWrites = { writes: Compilable[]; hold: HoldNeed | null; read?: ListRead<{ id: string }> };

/** A create's own writes: the queue's order lock, the hold with its ledger entry, the queued run row, then the balance. */
export function writeQueuedRun(
  db: Db,
  ctx: Ctx,
  priced: PricedRun,
  runId: string,
  now: string,
  lane: number,
): { row: GenerationsTable; writes: Compilable[]; hold: HoldNeed | null } {
  const hold = recordHoldFor(db, ctx.workspaceId, priced.holdMicros, now);
  const row = queuedRow(ctx, priced, { id: runId, holdId: hold.holdId, batch: null, now, lane });
  const writes = [...queueOrderLock(db), ...hold.writes, insertRow(db, "generations", row)];
  if (!hold.holdId) return { row, writes, hold: null };
  const spent = { workspaceId: ctx.workspaceId, creatorId: ctx.actor.id, amountMicros: priced.holdMicros, at: now };
  // The budgets' counters after the balance (lib/core/budgets/budget-spend.ts says why).
  writes.push(
    moveHeldFromAvailable(db, { workspaceId: ctx.workspaceId, amountMicros: priced.holdMicros }),
    budgetSpendWrite(db, spent),
  );
  return {
    row,
    writes,
    hold: {
      workspaceId: ctx.workspaceId,
      neededMicros: priced.holdMicros,
      needs: "This needs",
      advice: "Add credit and try again.",
      budget: spent,
    },
  };
}

/**
 * Starts something once per idempotency key: a replay returns what the key already started;
 * otherwise `prepare` validates and prices (outside the transaction), and `start` gives the
 * writes, applied all or none after the key's record (writeList), so two concurrent requests
 * with one key start exactly one thing and the loser replays the winner's result.
 */
export async function startIdempotently<P, S extends StartWrites>(
  ctx: Ctx,
  // The kind of ID to make, not a function making one: tsx names such a function anew on every call.
  options: { key: string | null; endpoint: string; body: unknown; resource: IdKind },
  prepare: () => Promise<P>,
  start: (db: Db, prepared: P, id: string, now: string) => S,
): Promise<{ id: string; replayed: true } | { id: string; replayed: false; started: S; read: unknown[] }> {
  const hash = options.key ? requestHash(options.endpoint, options.body) : "";
  // Not a named closure: tsx names one anew on every call, and every create passes here.
  const replay = { workspaceId: ctx.workspaceId, key: options.key ?? "", endpoint: options.endpoint, hash };
  if (options.key) {
    const existing = await findIdempotentReplay(ctx.db, replay);
    if (existing) return { id: existing, replayed: true };
  }
  const prepared = await prepare();
  const id = newId(options.resource);
  const now = nowIso();
  const started = start(ctx.db, prepared, id, now);
  const writes = options.key
    ? [
        recordIdempotencyKey(ctx.db, {
          workspaceId: ctx.workspaceId,
          key: options.key,
          endpoint: options.endpoint,
          hash,
          resourceId: id,
          now,
        }),
        ...started.writes,
      ]
    : started.writes;
  try {
    const read = await applyHoldingWrites(ctx.db, writes, started.hold, started.read);
    return { id, replayed: false, started, read };
  } catch (err) {
    if (options.key && isUniqueViolation(err)) {
      const existing = await findIdempotentReplay(ctx.db, replay);
      if (existing) return { id: existing, replayed: true };
    }
    throw err;
  }
}

/** POST /v1/generations: in the span `run.create`, whose trace the run's execution continues (queuedRow). */
export function createGeneration(
  ctx: Ctx,
  body: unknown,
  options: { idempotencyKey?: string; waitSeconds?: number | null } = {},
): Promise<GenerationAnswer> {
  return traced(
    "run.create",
    async (span) => {
      const answer = await startGeneration(ctx, body, options);
      span?.setAttributes({
        "atelier.run.id": answer.generation.id,
        "atelier.run.model": answer.generation.model,
        "atelier.run.replayed": answer.replayed,
      });
      return answer;
    },
    { attributes: () => ({ "atelier.workspace.id": ctx.workspaceId, "atelier.source": ctx.source }) },
  );
}

async function startGeneration(
  ctx: Ctx,
  body: unknown,
  options: { idempotencyKey?: string; waitSeconds?: number | null },
): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:write");
  const key = validateIdempotencyKey(options.idempotencyKey);
  const outcome = await startIdempotently(
    ctx,
    { key, endpoint: "generations", body, resource: "generation" },
    () => priceRunRequest(ctx, body),
    (db, priced, runId, now) => {
      const run = writeQueuedRun(db, ctx, priced, runId, now, laneOf(ctx, options.waitSeconds));
      // Its queue position is read right after the writes, in the same round trip on PostgreSQL.
      return options.waitSeconds ? run : { ...run, read: { ids: [runId], query: positionsQuery } };
    },
  );
  const { replayed } = outcome;
  if (!outcome.replayed) ctx.services.signals.runQueued();
  // A new run is answered as created (queued) unless the caller asked to wait; a replay as it is now.
  if (!outcome.replayed && !options.waitSeconds) {
    const { row } = outcome.started;
    return {
      generation: await presentGeneration(ctx.services, row, positionOf(outcome.read[0])),
      replayed,
      headers: headersForModel(row.model),
    };
  }
  const row = await readWaiting(ctx, outcome.id, options.waitSeconds);
  return { generation: await presentRun(ctx.db, ctx.services, row), replayed, headers: headersForModel(row.model) };
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
    const ended = await finished;
    // A run that ended in this process comes with its row as committed: not read again.
    row = ended && ended.id === id && ended.workspace_id === ctx.workspaceId ? ended : await requireRow(ctx, id);
  }
  return row;
}

/** GET /v1/generations/{id}, optionally with Prefer: wait. */
export async function getGeneration(
  ctx: Ctx,
  input: { id: string; waitSeconds?: number | null },
): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:read");
  const row = await readWaiting(ctx, input.id, input.waitSeconds);
  return {
    generation: await presentRun(ctx.db, ctx.services, row),
    replayed: false,
    headers: headersForModel(row.model),
  };
}

function parseCommaList<T extends string>(value: string | undefined, allowed: readonly T[], param: string): T[] | null {
  if (value === undefined) return null;
  const items = value.split(",").map((s) => s.trim());
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new ApiError(
        "invalid_parameter",
        `${param} takes a comma-separated list of ${allowed.join(", ")}; got "${item}".`,
        { param },
      );
    }
  }
  return [...new Set(items as T[])].sort();
}

const BATCH_ID = new RegExp(`^${ID_PREFIXES.batch}[0-9A-Za-z]{1,60}$`);

export type { GenerationList };

/** The longest prompt search the studio's history takes. */
export const PROMPT_SEARCH_MAX = 200;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "2026-05-01" → the ISO instant that day starts (UTC); anything else is refused. */
function dayStart(value: string, param: string): string {
  const match = DAY.exec(value);
  const at = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!match || !at || Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value) {
    throw new ApiError(
      "invalid_parameter",
      `${param} must be a day such as "2026-05-01"; got "${value.slice(0, 40)}".`,
      { param },
    );
  }
  return at.toISOString();
}

/**
 * A prompt search: the words as they are written inside the stored input JSON (quotes and
 * backslashes JSON-escaped), lower-cased — what the text index matches — and the LIKE pattern of
 * them, with LIKE's wildcards and the escape character itself escaped, so "%" or "_" match only
 * themselves — the final check on every run found.
 */
export function promptSearch(text: string): PromptSearch {
  if (text.includes("\u0000"))
    throw new ApiError("invalid_parameter", "The search text cannot contain a NUL character.", { param: "q" });
  if (text.length > PROMPT_SEARCH_MAX) {
    throw new ApiError("invalid_parameter", `The search text is at most ${PROMPT_SEARCH_MAX} characters.`, {
      param: "q",
    });
  }
  const stored = JSON.stringify(text.toLowerCase()).slice(1, -1);
  return { stored, pattern: `%${stored.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
}

/** The studio's own list filters (not query parameters of the API). */
export interface StudioListFilters {
  /** One actor's runs: a member (usr_…, their studio runs) or an API key (key_…, its API and MCP runs). */
  createdBy?: string;
  /** Case-insensitive words to find in the run's input (its prompt and other text). */
  prompt?: string;
  /** Runs created on or after this day (UTC, "YYYY-MM-DD"). */
  from?: string;
  /** Runs created on or before this day (UTC, "YYYY-MM-DD"). */
  to?: string;
}

/**
 * GET /v1/generations: newest first, keyset paged on (created_at, id). The options are the
 * studio's filters (not query parameters); cursors are bound to them like to the others.
 */
export async function listGenerations(
  ctx: Ctx,
  query: Record<string, string | undefined>,
  options: StudioListFilters = {},
): Promise<GenerationList> {
  requireScope(ctx, "generations:read");
  const model = query.model;
  if (model !== undefined && (model.length > LIMITS.modelIdLength || !MODEL_ID_PATTERN.test(model))) {
    throw new ApiError(
      "invalid_parameter",
      `model must be a catalog ID such as "atelier/gradient", at most ${LIMITS.modelIdLength} characters.`,
      { param: "model" },
    );
  }
  const batch = query.batch;
  if (batch !== undefined && !BATCH_ID.test(batch)) {
    throw new ApiError("invalid_parameter", `batch must be a batch ID such as "bat_…"; got "${batch.slice(0, 40)}".`, {
      param: "batch",
    });
  }
  const sources = parseCommaList(query.source, SOURCES, "source");
  const statuses = parseCommaList(query.status, GENERATION_STATUSES, "status");
  const createdBy = options.createdBy ?? null;
  if (
    createdBy !== null &&
    !(isPossibleId(createdBy) && (hasIdPrefix("user", createdBy) || hasIdPrefix("apiKey", createdBy)))
  ) {
    throw new ApiError("invalid_parameter", "Started by is a member (usr_…) or an API key (key_…).", { param: "by" });
  }
  const prompt = options.prompt?.trim() ? options.prompt.trim() : null;
  const search = prompt === null ? null : promptSearch(prompt);
  const from = options.from ? dayStart(options.from, "from") : null;
  // "to" is a whole day: runs before the next day starts.
  const before = options.to ? new Date(Date.parse(dayStart(options.to, "to")) + 86_400_000).toISOString() : null;
  if (from !== null && before !== null && from >= before) {
    throw new ApiError("invalid_parameter", "The first day of the range must not be after the last.", {
      param: "from",
    });
  }
  // Cursors made before the batch, creator and studio filters existed stay valid for the same list.
  const studio = prompt !== null || from !== null || before !== null ? [prompt, from, before] : [];
  const narrowed =
    batch !== undefined || createdBy !== null || studio.length ? [batch ?? null, createdBy, ...studio] : [];
  const filters = JSON.stringify([model ?? null, sources, statuses, ...narrowed]);
  const page = await keysetPage(
    { secret: ctx.services.secretKey, limit: query.limit, cursor: query.cursor, filters },
    (after, take) =>
      historyPage(
        ctx.services.historyReads ?? ctx.db,
        { workspaceId: ctx.workspaceId, model, sources, statuses, batch, createdBy, search, from, before },
        after,
        take,
      ),
  );
  return {
    object: "list",
    url: "/v1/generations",
    data: await presentRuns(ctx.db, ctx.services, page.rows),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** How many runs each of these batches has in this workspace (the history's batch groups); one query. */
export async function countBatchRuns(ctx: Ctx, batchIds: readonly string[]): Promise<Map<string, number>> {
  requireScope(ctx, "generations:read");
  const ids = [...new Set(batchIds)].filter((id) => BATCH_ID.test(id));
  if (!ids.length) return new Map();
  const rows = await ctx.db
    .selectFrom("generations")
    .select(["batch_id", (eb) => eb.fn.countAll<string | number>().as("n")])
    .where("workspace_id", "=", ctx.workspaceId)
    .where("batch_id", "in", ids)
    .groupBy("batch_id")
    .execute();
  return new Map(rows.map((r) => [r.batch_id!, Number(r.n)]));
}

const UNCANCELABLE_MESSAGES: Record<string, string> = {
  preview:
    "This preset run has already shown its preview, so it can no longer be canceled. It goes on to its end and is charged only if it succeeds.",
  provider:
    "This run is at a provider that bills once it is submitted, so it can no longer be canceled. It goes on to its end and is charged only if it succeeds.",
};

/** A canceled run's released hold, given back to its budgets' counters of the day and month it started. */
async function releaseBudgets(trx: Db, run: GenerationsTable, amountMicros: number): Promise<void> {
  if (!run.created_by) return;
  const write = budgetReleaseWrite(trx, {
    workspaceId: run.workspace_id,
    creatorId: run.created_by,
    amountMicros,
    at: run.created_at,
  });
  await trx.executeQuery(write.compile());
}

/** POST /v1/generations/{id}/cancel: safe to repeat; a final run comes back as it is. */
export function cancelGeneration(ctx: Ctx, input: { id: string }): Promise<GenerationAnswer> {
  return traced("run.cancel", () => cancelRun(ctx, input), {
    attributes: () => ({ "atelier.workspace.id": ctx.workspaceId, "atelier.run.id": input.id }),
  });
}

async function cancelRun(ctx: Ctx, input: { id: string }): Promise<GenerationAnswer> {
  requireScope(ctx, "generations:write");
  const current = await requireRow(ctx, input.id);
  let canceled: GenerationsTable | null = null;
  if (!isFinal(current.status)) {
    canceled = await withTransaction(ctx.db, async (trx) => {
      const row = await findRow(trx, ctx.workspaceId, input.id);
      if (!row || isFinal(row.status)) return null;
      if (row.uncancelable_reason !== null)
        throw new ApiError(
          "conflict",
          UNCANCELABLE_MESSAGES[row.uncancelable_reason] ?? UNCANCELABLE_MESSAGES.provider!,
        );
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
          throw new ApiError(
            "conflict",
            UNCANCELABLE_MESSAGES[now.uncancelable_reason] ?? UNCANCELABLE_MESSAGES.provider!,
          );
        }
        return null;
      }
      const released = ended.hold_id
        ? await settleHoldAmount(trx, { holdId: ended.hold_id, outcome: "release" })
        : null;
      if (released !== null) await releaseBudgets(trx, ended, released);
      // The event (and its webhook) carries the API's absolute links, also for a studio cancel.
      await appendRunEndedEvent(trx, { ...ctx.services, studioLinks: false }, ended);
      return ended;
    });
  }
  if (canceled) {
    observeRunEnded(canceled);
    ctx.services.signals.runFinished(input.id, canceled);
  }
  const row = await requireRow(ctx, input.id);
  return {
    generation: await presentRun(ctx.db, ctx.services, row),
    replayed: false,
    headers: headersForModel(row.model),
  };
}

export { FINAL_STATUSES };
