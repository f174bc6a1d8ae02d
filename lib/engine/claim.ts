// Claiming work from the runs table (the queue) with a lease, renewing it, and giving it back.
import { sql } from "kysely";
import { observeRunStarted } from "../primitives/metrics";
import type { Db, GenerationsTable } from "../store/database";
import type { DialectName } from "../store/dialects";

export const BUILT_IN_PROVIDER = "atelier";

/**
 * Takes the oldest runnable run: a queued one, or a running one whose lease lapsed (its worker
 * died). One statement: UPDATE … WHERE id = (oldest) RETURNING; on PostgreSQL the inner select
 * skips rows another worker is claiming (FOR UPDATE SKIP LOCKED).
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
  const runnable = (qb: Db) =>
    qb
      .selectFrom("generations")
      .select("id")
      .where((eb) =>
        eb.and([
          eb.or([
            eb("status", "=", "queued"),
            eb.and([eb("status", "=", "running"), eb("lease_expires_at", "<", nowIso)]),
          ]),
          ...(skip.length > 0 ? [eb("model", "not in", skip)] : []),
        ]),
      )
      // The queue's one order (migration 011; lib/core/runs/queue-positions.ts counts positions in it).
      .orderBy("queue_order")
      .limit(1);
  const candidate = dialect === "postgres" ? runnable(db).forUpdate().skipLocked() : runnable(db);
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
