import type { Kysely } from "kysely";

// A model's typical run time (lib/core/runs/run-timings.ts) reads its last succeeded runs: by model,
// newest end first, without walking every run of the store.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("generations_model_ends")
    .on("generations")
    .columns(["model_base", "status", "completed_at"])
    .execute();
}
