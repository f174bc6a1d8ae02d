// Where queued runs stand in the one queue (every workspace's runs): 1 for the next to start.
// Workers take queued runs in the fair order (lib/engine/claim.ts; migration 030): by lane
// (interactive before bulk), then by fair tag (start-time fair queuing across workspaces), then
// in the order they were queued (`queue_order`), a batch's in request order. A run's position
// counts the queued runs before it in that order. A run queued later by another workspace may
// come before it, so a position may go up by the runs of a workspace that was quiet.
import { CompiledQuery, sql, type Compilable, type ExpressionBuilder } from "kysely";
import type { Database, Db, GenerationsTable } from "../../store/database";
import { onPostgres } from "../../store/dialects";
import { FAIR_BUCKET, LANE_SPAN } from "../../store/migrations/030-fair-queue";

/**
 * PostgreSQL numbers a run (`queue_order`) when it is inserted, not when its transaction commits,
 * so a transaction still writing could hold a run numbered before one whose creator already
 * committed and was answered its position: that position would then go up by one when the first
 * commits. Every transaction that queues runs takes this lock first and holds it to its commit,
 * so runs are numbered in commit order. It waits for little that it did not already: every new
 * run also takes the newest stretch's `queue_counts` row to its commit. SQLite's write lock
 * already orders everything: nothing to take there.
 */
const QUEUE_ORDER_LOCK: Compilable = {
  compile: () => CompiledQuery.raw("select pg_advisory_xact_lock(7193522016400210001)"),
};

/** The writes that start a transaction queuing runs ([] on SQLite). */
export function queueOrderLock(db: Db): Compilable[] {
  return onPostgres(db) ? [QUEUE_ORDER_LOCK] : [];
}

/** IDs per query: keeps the IN list well under both stores' parameter limits. */
const CHUNK = 500;

/**
 * A column "ahead" of a query on `generations as g`: how many queued runs come before g in the
 * fair order. The queued runs of the stretches before g's come from their counts (`queue_counts`,
 * kept by triggers: migrations 016 and 030); only g's own stretch is counted, so the cost does
 * not grow with the queue.
 */
export function queuedAhead(eb: ExpressionBuilder<Database & { g: GenerationsTable }, "g">) {
  const stretch = sql<number>`(g.fair_tag / ${sql.lit(FAIR_BUCKET)})`;
  const bucket = sql<number>`(g.lane * ${sql.lit(LANE_SPAN)} + ${stretch})`;
  const earlierStretches = eb
    .selectFrom("queue_counts as c")
    .select(sql<number>`coalesce(sum(c.queued), 0)`.as("n"))
    .where("c.bucket", "<", bucket);
  const ownStretch = eb
    .selectFrom("generations as q")
    .select(sql<number>`count(*)`.as("n"))
    .where("q.status", "=", sql.lit("queued"))
    .whereRef("q.lane", "=", "g.lane")
    .where("q.fair_tag", ">=", sql<number>`${stretch} * ${sql.lit(FAIR_BUCKET)}`)
    .where((w) =>
      w.or([
        w("q.fair_tag", "<", w.ref("g.fair_tag")),
        w.and([w("q.fair_tag", "=", w.ref("g.fair_tag")), w("q.queue_order", "<", w.ref("g.queue_order"))]),
      ]),
    );
  return sql<number>`(${earlierStretches}) + (${ownStretch})`.as("ahead");
}

type AheadRow = { id: string; ahead: number | string | null };

/**
 * The query for one run, built and compiled once per kind of store: building it through Kysely
 * costs more than the store takes to answer it, and every create answers with its position.
 */
const oneRunQueries = new Map<unknown, CompiledQuery<AheadRow>>();

/** The query of one run's position, to run where the caller likes (a create sends it with its writes). */
export function oneRunPositionQuery(db: Db, id: string): CompiledQuery<AheadRow> {
  const kind = db.getExecutor().adapter.constructor;
  let compiled = oneRunQueries.get(kind);
  if (!compiled) {
    compiled = db
      .selectFrom("generations as g")
      .select((eb) => ["g.id", queuedAhead(eb)])
      .where("g.id", "=", "")
      .compile() as CompiledQuery<AheadRow>;
    // The run's ID must be its one parameter, or the compiled form cannot be reused.
    if (compiled.parameters.length !== 1)
      throw new Error("the queue position query takes parameters other than the run's ID");
    oneRunQueries.set(kind, compiled);
  }
  return { ...compiled, parameters: [id] };
}

/** The position (1 for next) in a row a position query answered, or null for a run it did not find. */
export function positionOf(row: unknown): number | null {
  return row ? Number((row as AheadRow).ahead ?? 0) + 1 : null;
}

/**
 * The query of these runs' positions (at most CHUNK of them), to run where the caller likes: a
 * create sends it with its writes, and the creates committed together share one
 * (writeList's group commit, lib/store/writes.ts).
 */
export function positionsQuery(db: Db, ids: readonly string[]): CompiledQuery<AheadRow> {
  if (ids.length === 1) return oneRunPositionQuery(db, ids[0]!);
  return (
    db
      .selectFrom("generations as g")
      .select((eb) => ["g.id", queuedAhead(eb)])
      // Not narrowed to runs still queued: a run answered as queued just as a worker took it reads as next (1).
      .where("g.id", "in", ids)
      .compile() as CompiledQuery<AheadRow>
  );
}

/** Positions of those of `runs` that are queued; one query per 500 of them. */
export async function queuePositions(
  db: Db,
  runs: readonly { id: string; status: string }[],
): Promise<Map<string, number>> {
  const queued = runs.filter((r) => r.status === "queued").map((r) => r.id);
  const positions = new Map<string, number>();
  for (let i = 0; i < queued.length; i += CHUNK) {
    const { rows } = await db.executeQuery(positionsQuery(db, queued.slice(i, i + CHUNK)));
    for (const row of rows) positions.set(row.id, positionOf(row)!);
  }
  return positions;
}
