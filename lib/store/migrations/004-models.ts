import type { Kysely } from "kysely";

// Why a running run can no longer be canceled (its preview is out, or a remote provider that
// bills once submitted has it), and models that ops took out of service for a while.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("generations").addColumn("uncancelable_reason", "text").execute();
  await db.schema
    .createTable("model_pauses")
    .addColumn("model_id", "text", (c) => c.primaryKey())
    // Null: until someone resumes it.
    .addColumn("paused_until", "text")
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}
