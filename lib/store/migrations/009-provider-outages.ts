import type { Kysely } from "kysely";

// A remote provider found down by any process (API server or `npm run worker`): until
// `down_until` its entries are out of service everywhere, not only in the process that saw it
// fail. One row per provider; a good answer deletes it, a lapsed one is ignored.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("provider_outages")
    .addColumn("provider_id", "text", (c) => c.primaryKey())
    .addColumn("down_until", "text", (c) => c.notNull())
    // For people: "its provider acme is failing (HTTP 502, at …)".
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
