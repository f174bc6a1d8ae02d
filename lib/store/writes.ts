// The one way callers write to the store: a transaction (withTransaction), or, on the hot path, a
// write list (writeList). How a list reaches the database — begin, writes and commit in one round
// trip on PostgreSQL, several lists of one key committed together, inserts of one shape merged —
// is this folder's business (transaction-steps.ts, write-groups.ts, merged-inserts.ts); lint keeps
// those files private to lib/store.
import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database, Db } from "./database";
import { inOneStep, inTransactionSteps } from "./transaction-steps";
import { groupedWriteList, type ListRead } from "./write-groups";
import { isTracing, traced } from "../primitives/tracing";

export type { ListRead } from "./write-groups";
export { addingFirstParameter } from "./merged-inserts";

/** A write: a query builder, or a query already compiled (planOnce, reusedQuery). */
export type Write = Compilable | CompiledQuery;

// A transaction's span (docs/operating.md, "Traces"): only inside a traced request or run, whose
// child it is; the background's own writes (leases, schedules) make none.
const TRANSACTION_SPAN = { childOnly: true, attributes: () => ({ "atelier.store.write": "transaction" }) };
const WRITE_LIST_SPAN = { childOnly: true, attributes: () => ({ "atelier.store.write": "write_list" }) };

/**
 * Runs fn in one transaction, or inside the caller's when db already is one, so that a verb
 * called from another verb joins the same transaction instead of opening a second.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  if (!isTracing()) return (db as Kysely<Database>).transaction().execute(fn);
  return traced("store.transaction", () => (db as Kysely<Database>).transaction().execute(fn), TRANSACTION_SPAN);
}

export interface WriteListOptions<R extends { id: string }> {
  /**
   * Commit together with the other lists of this key that arrive meanwhile (group commit): each
   * list still all or none, its last write (a balance move) after the group's other writes.
   */
  groupBy?: string;
  /** Rows read once the writes are in (after the commit). */
  read?: ListRead<R>;
}

/** A list whose writes are made from what reads, sent first in the same transaction, answer. */
export interface ReadThenWrite {
  reads: readonly CompiledQuery[];
  /** The writes, from each read's rows; null writes nothing and rolls back. */
  writes(answers: unknown[][]): Promise<readonly Write[] | null>;
}

/**
 * Writes applied all or none, in the order given: inside the caller's transaction when db is one,
 * else in a transaction of their own; then `read`'s rows. Given reads first (ReadThenWrite), the
 * transaction is two steps — the reads, then the writes made from their rows with the commit —
 * and the answer says whether it committed.
 */
export function writeList<R extends { id: string } = never>(
  db: Db,
  writes: readonly Write[],
  options?: WriteListOptions<R>,
): Promise<R[]>;
export function writeList(db: Db, list: ReadThenWrite): Promise<boolean>;
export async function writeList<R extends { id: string }>(
  db: Db,
  list: readonly Write[] | ReadThenWrite,
  options: WriteListOptions<R> = {},
): Promise<R[] | boolean> {
  if (isTracing() && !db.isTransaction)
    return traced("store.transaction", () => applyWriteList(db, list, options), WRITE_LIST_SPAN);
  return applyWriteList(db, list, options);
}

async function applyWriteList<R extends { id: string }>(
  db: Db,
  list: readonly Write[] | ReadThenWrite,
  options: WriteListOptions<R>,
): Promise<R[] | boolean> {
  if (!Array.isArray(list)) return readThenWrite(db, list as ReadThenWrite);
  const queries = (list as readonly Write[]).map(compiled);
  const { read, groupBy } = options;
  if (db.isTransaction) {
    for (const query of queries) await db.executeQuery(query);
    return read ? (await db.executeQuery(read.query(db, read.ids))).rows : [];
  }
  const store = db as Kysely<Database>;
  if (groupBy !== undefined) return groupedWriteList(store, groupBy, queries, read);
  const [rows] = await inOneStep(store, queries, read ? [read.query(db, read.ids)] : []);
  return (rows ?? []) as R[];
}

function readThenWrite(db: Db, list: ReadThenWrite): Promise<boolean> {
  return inTransactionSteps(db, async (steps) => {
    const writes = await list.writes(await steps.send(list.reads));
    if (writes === null) return false;
    await steps.sendAndCommit(writes.map(compiled));
    return true;
  });
}

function compiled(write: Write): CompiledQuery {
  return "compile" in write ? write.compile() : write;
}
