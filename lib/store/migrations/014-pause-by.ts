import type { Kysely } from "kysely";

// Who paused a catalog entry (a studio ops user's email, or "admin CLI"): ops see it beside the
// reason, which API clients see and which therefore never names a person.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("model_pauses").addColumn("paused_by", "text").execute();
}
