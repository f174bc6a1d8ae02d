// Claiming work from the runs table (the queue) with a lease, renewing it, and giving it back.
import { sql, type ExpressionBuilder } from "kysely";
import { observeRunStarted } from "../primitives/metrics";
import type { Database, Db, GenerationsTable } from "../store/database";
import type { DialectName } from "../store/dialects";

export const BUILT_IN_PROVIDER = "atelier";

/**
 * Its workspace is under its cap of running runs (`max_running`, null for none): a capped
 * workspace's queued runs wait while others' start. Looked at per candidate in the claim itself
 * (a key lookup, and a count over the running runs only), so a run is never claimed past the cap
 * by one worker; two workers claiming at the same instant may each take one.
 */
function underCap(eb: ExpressionBuilder<Database, "generations">) {
  const cap = eb
    .selectFrom("workspaces as w")
    .select("w.max_running")
    .whereRef("w.id", "=", "generations.workspace_id");
  const running = eb
    .selectFrom("generations as r")
    .select(sql<number>`count(*)`.as("n"))
    .where("r.status", "=", "running")
    .whereRef("r.workspace_id", "=", "generations.workspace_id");
  return eb.or([eb(cap, "is", null), eb(cap, ">", running)]);
}

/**
 * Takes the first runnable run: a running one whose lease lapsed (its worker died), else the
 * first queued one in the fair order (lane, fair tag, queue order; migration 030). One
 * statement: UPDATE … WHERE id = coalesce(lapsed, first queued) RETURNING; each inner select
 * walks one index in order (the running runs, few; the queued runs' partial index) and stops at
 * its first match, and on PostgreSQL skips rows another worker is claiming (FOR UPDATE SKIP LOCKED).
 */
export async function claimNextRun(
  db: Db,
  dialect: DialectName,
  input: {
    owner: string;
    leaseMs: number;
    /** Out-of-service entries: their runs wait in the queue. */ skipModels?: readonly string[];
  },
): Promise<GenerationsTable | null> {
  const skip = input.skipModels ?? [];
  const now = new Date();
  const nowIso = now.toISOString();
  const locked = <Q extends { forUpdate(): { skipLocked(): Q } }>(q: Q): Q =>
    dialect === "postgres" ? q.forUpdate().skipLocked() : q;
  const lapsed = locked(
    db
      .selectFrom("generations")
      .select("id")
      .where("status", "=", "running")
      .where("lease_expires_at", "<", nowIso)
      .$if(skip.length > 0, (q) => q.where("model", "not in", skip))
      .orderBy("queue_order")
      .limit(1),
  );
  const queued = locked(
    db
      .selectFrom("generations")
      .select("id")
      // A literal, so that the planner can use the queued runs' partial index.
      .where("status", "=", sql.lit("queued"))
      .where(underCap)
      .$if(skip.length > 0, (q) => q.where("model", "not in", skip))
      // The queue's one order (migration 030; lib/core/runs/queue-positions.ts counts positions in it).
      .orderBy("lane")
      .orderBy("fair_tag")
      .orderBy("queue_order")
      .limit(1),
  );
  const candidate = sql<string>`coalesce((${lapsed}), (${queued}))`;
  const row = await db
    .updateTable("generations")
    .set({
      status: "running",
      provider: BUILT_IN_PROVIDER,
      started_at: sql<string>`coalesce(started_at, ${nowIso})`,
      lease_owner: input.owner,
      lease_expires_at: new Date(now.getTime() + input.leaseMs).toISOString(),
      attempts: sql<number>`attempts + 1`,
    })
    .where("id", "=", candidate)
    .where((eb) =>
      eb.or([eb("status", "=", "queued"), eb.and([eb("status", "=", "running"), eb("lease_expires_at", "<", nowIso)])]),
    )
    .returningAll()
    .executeTakeFirst();
  // Its wait in the queue, once: a run recovered from a lapsed lease keeps its first start.
  if (row?.started_at === nowIso) observeRunStarted(row);
  return row ?? null;
}

/** Extends a lease; false when the run is no longer ours to run (canceled, or the lease lapsed and was taken). */
export async function renewLease(db: Db, input: { id: string; owner: string; leaseMs: number }): Promise<boolean> {
  const result = await db
    .updateTable("generations")
    .set({ lease_expires_at: new Date(Date.now() + input.leaseMs).toISOString() })
    .where("id", "=", input.id)
    .where("lease_owner", "=", input.owner)
    .where("status", "=", "running")
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Puts a run back in the queue (graceful shutdown): another worker starts it afresh. It reads
 * as a queued run again (a queued run has no provider or start time; a preview of the
 * abandoned attempt is gone, so cancel works until the next attempt shows one). `attempts` stays.
 */
export async function releaseRun(db: Db, input: { id: string; owner: string }): Promise<void> {
  await db
    .updateTable("generations")
    .set({
      status: "queued",
      provider: null,
      started_at: null,
      preview_json: null,
      uncancelable_reason: null,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where("id", "=", input.id)
    .where("lease_owner", "=", input.owner)
    .where("status", "=", "running")
    .execute();
}
