import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// A workspace's balance (available + held) stays within $1,000,000,000 (LIMITS.maxBalanceMicros,
// written out here: a migration never changes once landed). Past 2^53 micro-dollars a balance no
// longer reads back exactly, so the bound sits far below that. Grants test it in their own update
// (lib/core/credits/credits.ts); this holds it for every writer. Holds, releases and charges only move
// money between available, held and charged, so only a grant (or an opening credit) can raise it.
// Rows already past it are left as they are (PostgreSQL: NOT VALID) so the migration cannot stop a
// server from starting; no write can raise them further.
const BOUND = "1000000000000000";
const PASSES = (row: string) => `${row}.available_micros + ${row}.held_micros > ${BOUND}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    await sql
      .raw(
        `alter table credit_balances add constraint credit_balances_within_bound check (available_micros + held_micros <= ${BOUND}) not valid`,
      )
      .execute(db);
    return;
  }
  // SQLite cannot add a CHECK to a table; triggers refuse the same rows, naming the same bound.
  for (const when of ["insert", "update"]) {
    await sql
      .raw(
        `create trigger credit_balances_within_bound_${when} before ${when} on credit_balances when ${PASSES("new")}
         begin select raise(abort, 'credit_balances_within_bound: a balance is at most $1,000,000,000'); end`,
      )
      .execute(db);
  }
}
