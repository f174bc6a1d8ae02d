// Where queued runs stand in the one queue (every workspace's runs): 1 for the next to start.
// Workers take queued runs in the order they were inserted (`queue_order`, migration 011;
// lib/engine/claim.ts), a batch's in request order. A run's position counts the queued runs
// before it in that order; runs queued later never count, so a position only goes down.
import { sql, type ExpressionBuilder } from "kysely";
import type { Database, Db, GenerationsTable } from "../store/database";

/** IDs per query: keeps the IN list well under both stores' parameter limits. */
const CHUNK = 500;

/** A column "ahead" of a query on `generations as g`: how many queued runs come before g in the queue. */
export function queuedAhead(eb: ExpressionBuilder<Database & { g: GenerationsTable }, "g">) {
  return eb
    .selectFrom("generations as q")
    .select(sql<number>`count(*)`.as("ahead"))
    .where("q.status", "=", "queued")
    .whereRef("q.queue_order", "<", "g.queue_order")
    .as("ahead");
}

/** Positions of those of `runs` that are queued; one query per 500 of them. */
export async function queuePositions(db: Db, runs: readonly { id: string; status: string }[]): Promise<Map<string, number>> {
  const queued = runs.filter((r) => r.status === "queued").map((r) => r.id);
  const positions = new Map<string, number>();
  for (let i = 0; i < queued.length; i += CHUNK) {
    const rows = await db
      .selectFrom("generations as g")
      .select((eb) => ["g.id", queuedAhead(eb)])
      // Not narrowed to runs still queued: a run answered as queued just as a worker took it reads as next (1).
      .where("g.id", "in", queued.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) positions.set(row.id, Number(row.ahead ?? 0) + 1);
  }
  return positions;
}
