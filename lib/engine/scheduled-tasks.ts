// One turn per interval across every process on the store: each server and worker schedules the
// same housekeeping, and the one whose UPDATE moves `due_at` forward does it. The others' UPDATEs
// match no row (the condition is re-checked under the row lock on PostgreSQL; SQLite writes one
// at a time), so N replicas purge once an interval, not N times.
import { sql } from "kysely";
import type { Db } from "../store/database";

export async function claimScheduledTurn(db: Db, input: { name: string; everyMs: number; owner: string; now?: number }): Promise<boolean> {
  const now = input.now ?? Date.now();
  const nowIso = new Date(now).toISOString();
  await db
    .insertInto("scheduled_tasks")
    .values({ name: input.name, due_at: nowIso, last_run_at: null, last_run_by: null })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const taken = await db
    .updateTable("scheduled_tasks")
    .set({ due_at: new Date(now + input.everyMs).toISOString(), runs: sql`runs + 1`, last_run_at: nowIso, last_run_by: input.owner })
    .where("name", "=", input.name)
    .where("due_at", "<=", nowIso)
    .executeTakeFirst();
  return taken.numUpdatedRows > 0n;
}
