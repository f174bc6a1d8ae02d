import type { Kysely } from "kysely";

// Who started a run (the studio user's or the API key's ID), so the model page can show a user
// their own newest run. Runs from before this migration have none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("generations").addColumn("created_by", "text").execute();
  await db.schema
    .createIndex("generations_creator")
    .on("generations")
    .columns(["workspace_id", "created_by", "created_at"])
    .execute();
}
