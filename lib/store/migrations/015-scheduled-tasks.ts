import type { Kysely } from "kysely";

// Housekeeping that every process schedules but only one should do per interval (the events
// purge): the process that moves `due_at` forward does the work; the others see it moved.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("scheduled_tasks")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("due_at", "text", (c) => c.notNull())
    // For ops: how often it ran, when, and which process took the last turn.
    .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_run_at", "text")
    .addColumn("last_run_by", "text")
    .execute();
}
