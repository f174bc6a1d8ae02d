import type { Kysely } from "kysely";

// The run page finds the event a run produced: look it up by run, not by scanning the workspace's events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("events_generation").on("events").columns(["generation_id", "created_at"]).execute();
}
