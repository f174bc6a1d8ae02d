// A read that may give up: on PostgreSQL it runs in a transaction of its own under a
// statement_timeout, and a read canceled by it answers null, so that the caller can fall back to a
// bounded way of answering. SQLite cannot cancel a statement from outside: there the read runs
// whole (only the callers' bounded reads go to it).
import { sql } from "kysely";
import type { Db } from "./database";
import { onPostgres } from "./dialects";

/** PostgreSQL's code for a statement canceled by statement_timeout. */
const QUERY_CANCELED = "57014";

/** `read`'s answer, or null when PostgreSQL canceled it after `ms` milliseconds. */
export async function withinBudget<T>(db: Db, ms: number, read: (db: Db) => Promise<T>): Promise<T | null> {
  // Inside a caller's transaction a canceled statement would abort it: no budget there.
  if (!onPostgres(db) || db.isTransaction) return read(db);
  try {
    return await db.transaction().execute(async (trx) => {
      await sql.raw(`set local statement_timeout = ${Math.max(1, Math.round(ms))}`).execute(trx);
      return read(trx);
    });
  } catch (err) {
    if ((err as { code?: unknown }).code === QUERY_CANCELED) return null;
    throw err;
  }
}
