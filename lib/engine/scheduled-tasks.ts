// One turn per interval across every process on the store: each server and worker schedules the
// same housekeeping, and the one whose UPDATE moves `due_at` forward does it. The others' UPDATEs
// match no row (the condition is re-checked under the row lock on PostgreSQL; SQLite writes one
// at a time), so N replicas purge once an interval, not N times.
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "../store/database";

/** Tasks whose row this process has seen exist: no INSERT is tried for them again. */
const knownRows = new WeakMap<Db, Set<string>>();

export async function claimScheduledTurn(
  db: Db,
  input: { name: string; everyMs: number; owner: string; now?: number },
): Promise<boolean> {
  const now = input.now ?? Date.now();
  const nowIso = new Date(now).toISOString();
  const turn = { due_at: new Date(now + input.everyMs).toISOString(), last_run_at: nowIso, last_run_by: input.owner };
  const taken = await db
    .updateTable("scheduled_tasks")
    .set({ ...turn, runs: sql`runs + 1` })
    .where("name", "=", input.name)
    .where("due_at", "<=", nowIso)
    .executeTakeFirst();
  if (taken.numUpdatedRows > 0n) return true;
  const known = knownRows.get(db) ?? new Set<string>();
  knownRows.set(db, known);
  if (known.has(input.name)) return false;
  // The task's first turn ever, or its row is there and not due: whoever inserts it has the turn.
  const inserted = await db
    .insertInto("scheduled_tasks")
    .values({ name: input.name, ...turn, runs: 1 })
    .onConflict((oc) => oc.column("name").doNothing())
    .executeTakeFirst();
  known.add(input.name);
  return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export interface ScheduledTurns {
  stop(): Promise<void>;
}

/**
 * Asks for task `name`'s turn every `everyMs` (the first time after at most a minute: a starting
 * process has better things to do first) and runs `work` when this process gets it, one turn at a
 * time. A failed turn is logged and tried again next interval; stop() waits for a turn under way,
 * which `work` may cut short by asking `shouldStop`.
 */
export function startScheduledTurns(options: {
  db: Db;
  name: string;
  everyMs: number;
  owner: string;
  logger: Logger;
  work: (shouldStop: () => boolean) => Promise<void>;
}): ScheduledTurns {
  const { db, name, everyMs, owner } = options;
  let stopping = false;
  let running: Promise<void> | null = null;
  const turn = async () => {
    try {
      if (await claimScheduledTurn(db, { name, everyMs, owner })) await options.work(() => stopping);
    } catch (err) {
      options.logger.error({ err, task: name }, "scheduled turn failed; trying again next interval");
    }
  };
  const tick = () => {
    if (stopping || running) return;
    running = turn().finally(() => {
      running = null;
    });
  };
  const first = setTimeout(tick, Math.min(everyMs, 60_000));
  const timer = setInterval(tick, everyMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopping = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
