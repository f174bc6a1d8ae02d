// Group commit. Concurrent creates of one workspace all end on the same row, its balance, and
// each paid a whole transaction for it: on SQLite a commit writing ~20 pages (half a create's
// store time), on PostgreSQL a lock held until its commit while the others queue behind it
// (README, Performance). Lists of writes that share a key (the workspace) and arrive while the
// key's previous group is being applied, or in the same turn of the event loop, are applied
// together in one transaction (applyWriteLists). All or none together: when the group fails,
// each list is applied again alone, so every caller gets the outcome it would have had alone —
// its own error (a hold the balance cannot cover, a repeated idempotency key) or its rows.
import type { CompiledQuery, Compilable, Kysely } from "kysely";
import { METRICS } from "../metrics";
import type { Database, Db } from "./database";
import { applyWriteLists, applyWrites, type WriteList } from "./store";

/** The most lists one transaction takes; more wait for the next group. */
export const MAX_WRITE_GROUP = 64;

interface Waiting {
  list: WriteList;
  resolve(rows: unknown[]): void;
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
 * applyWrites, committed together with the other lists of the same key that are waiting:
 * each list all or none, its writes in order, its last write (the balance move) after the
 * group's other writes. Inside a caller's transaction it is applyWrites itself.
 */
export function applyWritesGrouped<R = never>(db: Db, key: string, writes: readonly Compilable[], readAfter?: CompiledQuery<R>): Promise<R[]> {
  if (db.isTransaction) return applyWrites(db, writes, readAfter);
  const store = db as Kysely<Database>;
  const list: WriteList = { queries: writes.map((write) => write.compile()), readAfter };
  let queues = queuesByStore.get(store);
  if (!queues) queuesByStore.set(store, (queues = new Map()));
  let queue = queues.get(key);
  if (!queue) queues.set(key, (queue = new KeyQueue(store, key, queues)));
  const waiting = { list } as Waiting;
  const answer = new Promise<unknown[]>((resolve, reject) => {
    waiting.resolve = resolve;
    waiting.reject = reject;
  });
  queue.waiting.push(waiting);
  // The first list waits for the rest of this turn of the event loop: the requests read in the
  // same turn reach here before it ends (better-sqlite3 answers without a turn in between).
  if (queue.waiting.length === 1 && !queue.busy) setImmediate(applyNextGroup, queue);
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
    if (queue.waiting.length > 0) setImmediate(applyNextGroup, queue);
    else queue.queues.delete(queue.key);
  }
}

async function applyGroup(db: Kysely<Database>, group: Waiting[]): Promise<void> {
  if (group.length > 1) {
    let rows: unknown[][] | null = null;
    try {
      rows = await applyWriteLists(db, group.map((waiting) => waiting.list));
    } catch {
      // Some list failed, and with it the group: each alone below gets its own outcome.
    }
    if (rows) {
      for (let i = 0; i < group.length; i++) group[i]!.resolve(rows[i]!);
      return;
    }
  }
  await Promise.all(group.map(applyAlone.bind(null, db)));
}

async function applyAlone(db: Kysely<Database>, waiting: Waiting): Promise<void> {
  try {
    const [rows] = await applyWriteLists(db, [waiting.list]);
    waiting.resolve(rows!);
  } catch (err) {
    waiting.reject(err);
  }
}
