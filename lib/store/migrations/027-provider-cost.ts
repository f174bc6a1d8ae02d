import type { Kysely } from "kysely";

// What each succeeded run of a remote entry cost the operators upstream (the providers file's
// `cost`; lib/core/runs/provider-cost.ts), written beside `charged_micros` in the transaction that
// charges the run (lib/engine/finish.ts). Null for built-in models, entries without a cost, runs
// that did not succeed and runs from before this migration: an unknown cost, not a zero one. A
// nullable column without a default, so PostgreSQL adds it without rewriting the table. Ops-only:
// the margins read it (lib/core/ops/margins.ts); nothing a workspace reads presents it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("generations").addColumn("provider_cost_micros", "bigint").execute();
}
