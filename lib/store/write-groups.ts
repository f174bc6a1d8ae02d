// Group commit. Concurrent creates of one workspace all end on the same row, its balance, and
// each would pay a whole transaction for it: on SQLite a commit of its own, on PostgreSQL a lock
// held until its commit while the others queue behind it. Lists of writes that share a key (the
// workspace) and arrive while the key's previous group is being applied, or in the same turn of
// the event loop, are applied together in one transaction (writeLists, below). All or none
// together: when the group fails, each list is applied again alone, so every caller gets the
// outcome it would have had alone — its own error (a hold the balance cannot cover, a repeated
// idempotency key) or its rows.
import type { CompiledQuery, Kysely } from "kysely";
import { nodeSetImmediate } from "../primitives/event-loop";
import { METRICS } from "../primitives/metrics";
import type { Database, Db } from "./database";
import { onPostgres } from "./dialects";
import { mergeSameShapeLists } from "./merged-inserts";
import { inOneStep } from "./transaction-steps";

/** The most lists one transaction takes; more wait for the next group. */
export const MAX_WRITE_GROUP = 64;

/** Rows the reads after a group's writes give: each names the ID it is about. */
type RowWithId = { id: string };

/**
 * A read once the writes are in, of the rows of `ids` (a create's: its run's queue position).
 * The lists of a group with the same `query` share one: `query(db, every list's ids)`, so a group
 * of creates sends one read instead of one each (PostgreSQL plans each read anew).
 */
export interface ListRead<R extends RowWithId> {
  ids: readonly string[];
  query(db: Db, ids: readonly string[]): CompiledQuery<R>;
}

interface Waiting {
  queries: readonly CompiledQuery[];
  read: ListRead<RowWithId> | undefined;
  resolve(rows: RowWithId[]): void;
  reject(err: unknown): void;
}

/** One key's lists: those waiting for the next group, and whether a group is being applied. */
class KeyQueue {
  waiting: Waiting[] = [];
  busy = false;
  constructor(
    readonly db: Kysely<Database>,
    readonly key: string,
    readonly queues: Map<string, KeyQueue>,
  ) {}
}

const queuesByStore = new WeakMap<Kysely<Database>, Map<string, KeyQueue>>();

/**
 * A list of writes committed together with the other lists of the same key that are waiting:
 * each list all or none, its writes in order, its last write (the balance move) after the
 * group's other writes; then `read`'s rows (lib/store/writes.ts, writeList with groupBy).
 */
export function groupedWriteList<R extends RowWithId>(
  store: Kysely<Database>,
  key: string,
  queries: readonly CompiledQuery[],
  read?: ListRead<R>,
): Promise<R[]> {
  let queues = queuesByStore.get(store);
  if (!queues) queuesByStore.set(store, (queues = new Map()));
  let queue = queues.get(key);
  if (!queue) queues.set(key, (queue = new KeyQueue(store, key, queues)));
  let waiting!: Waiting;
  const answer = new Promise<RowWithId[]>((resolve, reject) => {
    waiting = { queries, read: read as ListRead<RowWithId> | undefined, resolve, reject };
  });
  queue.waiting.push(waiting);
  // The first list waits for the rest of this turn of the event loop: the requests read in the
  // same turn reach here before it ends (better-sqlite3 answers without a turn in between).
  if (queue.waiting.length === 1 && !queue.busy) nodeSetImmediate()(applyNextGroup, queue);
  return answer as Promise<R[]>;
}

async function applyNextGroup(queue: KeyQueue): Promise<void> {
  const group = queue.waiting.splice(0, MAX_WRITE_GROUP);
  queue.busy = true;
  try {
    METRICS.writeGroupSize.observe(group.length);
    await applyGroup(queue.db, group);
  } finally {
    queue.busy = false;
    if (queue.waiting.length > 0) nodeSetImmediate()(applyNextGroup, queue);
    else queue.queues.delete(queue.key);
  }
}

async function applyGroup(db: Kysely<Database>, group: Waiting[]): Promise<void> {
  if (group.length === 1) return applyAlone(db, group[0]!);
  // One read per kind of read, for every list that asked for it.
  const idsByQuery = new Map<ListRead<RowWithId>["query"], string[]>();
  for (const { read } of group) {
    if (!read) continue;
    const ids = idsByQuery.get(read.query);
    if (ids) ids.push(...read.ids);
    else idsByQuery.set(read.query, [...read.ids]);
  }
  const queries = [...idsByQuery.keys()];
  let answers: unknown[][];
  try {
    answers = await writeLists(
      db,
      group.map((waiting) => waiting.queries),
      queries.map((query) => query(db, idsByQuery.get(query)!)),
    );
  } catch {
    // Some list failed, and with it the group: each alone gets its own outcome.
    await Promise.all(group.map(applyAlone.bind(null, db)));
    return;
  }
  const rowsById = new Map<string, RowWithId>();
  for (const rows of answers) for (const row of rows as RowWithId[]) rowsById.set(row.id, row);
  for (const { read, resolve } of group) {
    const rows: RowWithId[] = [];
    for (const id of read?.ids ?? []) {
      const row = rowsById.get(id);
      if (row) rows.push(row);
    }
    resolve(rows);
  }
}

async function applyAlone(db: Kysely<Database>, waiting: Waiting): Promise<void> {
  try {
    const { read } = waiting;
    const [rows] = await inOneStep(db, waiting.queries, read ? [read.query(db, read.ids)] : []);
    waiting.resolve((rows ?? []) as RowWithId[]);
  } catch (err) {
    waiting.reject(err);
  }
}

/**
 * Several lists of compiled writes in one transaction, all or none together, then `reads` once
 * they are in (after the commit; on PostgreSQL in the same round trip). Each list's writes keep
 * their order, and every list's last write comes after all the lists' other writes: a hold's
 * balance move is its list's last write and must stay the last lock a transaction takes
 * (lib/core/credits/credits.ts, moveHeldFromAvailable). Gives each read's rows, in order.
 */
export function writeLists(
  db: Kysely<Database>,
  lists: readonly (readonly CompiledQuery[])[],
  reads: readonly CompiledQuery[],
): Promise<unknown[][]> {
  const heads: (readonly CompiledQuery[])[] = [];
  const lasts: CompiledQuery[] = [];
  for (const queries of lists) {
    if (queries.length === 0) continue;
    heads.push(queries.slice(0, -1));
    lasts.push(queries[queries.length - 1]!);
  }
  // The lists' writes but their last ones, then every list's last write; those of one shape
  // merged in each part (a group's budget counters move once: merged-inserts.ts).
  const postgres = onPostgres(db);
  const lastLists = lasts.map((last) => [last]);
  return inOneStep(db, mergeSameShapeLists(heads, postgres).concat(mergeSameShapeLists(lastLists, postgres)), reads);
}
