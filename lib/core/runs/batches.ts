// Batches: up to 50 runs priced and held together in one transaction; all start or none do.
import { requireScope, type Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { presentRuns } from "./generation-view";
import { LANES, queuedRow, recordHoldFor, startIdempotently } from "./generations";
import { validateIdempotencyKey } from "./idempotency";
import { hasIdPrefix, newId } from "../../primitives/ids";
import { LIMITS } from "../../primitives/limits";
import { traced } from "../../primitives/tracing";
import { priceRunRequest, type PricedRun } from "./quotes";
import { refuseUnknownFields, requireObject } from "./run-request";
import { moveHeldFromAvailable } from "../credits/credits";
import { budgetSpendWrite } from "../budgets/budget-spend";
import type { Compilable } from "kysely";
import type { GenerationsTable } from "../../store/database";
import { insertRow } from "../../store/reused-sql";
import { queueOrderLock } from "./queue-positions";
import type { Batch } from "./generation-shape";

export type { Batch };

async function priceBatch(ctx: Ctx, body: unknown): Promise<PricedRun[]> {
  const object = requireObject(body, null);
  refuseUnknownFields(object, ["requests"]);
  const { requests } = object;
  const { min, max } = LIMITS.batchSize;
  if (!Array.isArray(requests) || requests.length < min || requests.length > max) {
    throw new ApiError("invalid_parameter", `requests must be an array of ${min} to ${max} run requests.`, {
      param: "requests",
    });
  }
  const priced: PricedRun[] = [];
  for (const [i, item] of requests.entries()) priced.push(await priceRunRequest(ctx, item, `requests[${i}].`));
  return priced;
}

async function readBatch(ctx: Ctx, id: string): Promise<Batch> {
  const batch = hasIdPrefix("batch", id)
    ? await ctx.db
        .selectFrom("batches")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!batch) throw new ApiError("resource_not_found", `No batch ${id} in this workspace.`);
  const rows = await ctx.db
    .selectFrom("generations")
    .selectAll()
    .where("workspace_id", "=", ctx.workspaceId)
    .where("batch_id", "=", id)
    .orderBy("batch_index")
    .execute();
  return {
    id: batch.id,
    object: "batch",
    data: await presentRuns(ctx.db, ctx.services, rows),
    created_at: batch.created_at,
  };
}

/** POST /v1/batches: in the span `batch.create`, whose trace each run's execution continues. */
export function createBatch(
  ctx: Ctx,
  body: unknown,
  options: { idempotencyKey?: string } = {},
): Promise<{ batch: Batch; replayed: boolean }> {
  return traced("batch.create", () => startBatch(ctx, body, options), {
    attributes: () => ({ "atelier.workspace.id": ctx.workspaceId, "atelier.source": ctx.source }),
  });
}

async function startBatch(
  ctx: Ctx,
  body: unknown,
  options: { idempotencyKey?: string },
): Promise<{ batch: Batch; replayed: boolean }> {
  requireScope(ctx, "generations:write");
  const key = validateIdempotencyKey(options.idempotencyKey);
  const outcome = await startIdempotently(
    ctx,
    { key, endpoint: "batches", body, resource: "batch" },
    () => priceBatch(ctx, body),
    (db, priced, batchId, now) => {
      const writes: Compilable[] = [
        ...queueOrderLock(db),
        insertRow(db, "batches", { id: batchId, workspace_id: ctx.workspaceId, source: ctx.source, created_at: now }),
      ];
      const rows: GenerationsTable[] = [];
      // Each run holds its own price, so each settles on its own; one transaction makes it all or none.
      for (const [index, run] of priced.entries()) {
        const hold = recordHoldFor(db, ctx.workspaceId, run.holdMicros, now);
        const row = queuedRow(ctx, run, {
          id: newId("generation"),
          holdId: hold.holdId,
          batch: { id: batchId, index },
          now,
          lane: LANES.bulk,
        });
        writes.push(...hold.writes, insertRow(db, "generations", row));
        rows.push(row);
      }
      const total = priced.reduce((sum, run) => sum + run.holdMicros, 0);
      if (total === 0) return { writes, hold: null, rows, createdAt: now };
      // The balance last, for every run at once (lib/core/credits/credits.ts: moveHeldFromAvailable says why).
      // Then the budgets' counters, for every run at once: one over a cap refuses them all.
      const spent = { workspaceId: ctx.workspaceId, creatorId: ctx.actor.id, amountMicros: total, at: now };
      writes.push(
        moveHeldFromAvailable(db, { workspaceId: ctx.workspaceId, amountMicros: total }),
        budgetSpendWrite(db, spent),
      );
      const hold = {
        workspaceId: ctx.workspaceId,
        neededMicros: total,
        needs: `These ${priced.length} runs need`,
        advice: "Nothing was started; add credit and try again.",
        budget: spent,
      };
      return { writes, hold, rows, createdAt: now };
    },
  );
  if (outcome.replayed) return { batch: await readBatch(ctx, outcome.id), replayed: true };
  ctx.services.signals.runQueued();
  // A new batch is answered as created (every run queued); a replay (above) as it is now.
  const { rows, createdAt } = outcome.started;
  return {
    batch: {
      id: outcome.id,
      object: "batch",
      data: await presentRuns(ctx.db, ctx.services, rows),
      created_at: createdAt,
    },
    replayed: false,
  };
}

/** GET /v1/batches/{id}: the batch with its runs as they are now. */
export async function getBatch(ctx: Ctx, input: { id: string }): Promise<Batch> {
  requireScope(ctx, "generations:read");
  return readBatch(ctx, input.id);
}
