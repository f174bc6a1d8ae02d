import type { Kysely } from "kysely";

// When an endpoint's latest delivery attempt failed: "failing for 5 days" means failing without a
// break, so a failure after a long quiet spell starts the clock again (lib/engine/webhook-sender.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("webhook_endpoints").addColumn("last_failure_at", "text").execute();
}
