import { sql, type Kysely } from "kysely";

// A remote entry may be served by several targets (issue 38: routes and failover). A run keeps
// each attempt it made (target, outcome, times) for the run page and the ops run page; the
// public Generation shows only `provider`, the target that produced the output. Null: one
// target, nothing to tell.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table generations add column route_attempts_json text`.execute(db);
}
