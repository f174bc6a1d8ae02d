// A transaction sent in a few steps, each step's statements together, the next step made from
// the answers of the one before. On PostgreSQL each step is one round trip (pipelined): the first
// carries the begin, the last the commit and any reads after it. Ending a run statement by
// statement was eight round trips, each waiting on this busy process to send the next; in steps
// it is two (README, Performance). Writes that read nothing first are one step (store.ts,
// applyWriteLists).
import { CompiledQuery, type Kysely } from "kysely";
import type { Database, Db } from "./database";
import { isPipeliningConnection, onPostgres } from "./dialects";

export interface TransactionSteps {
  /** Sends the queries together; gives each one's rows, in order. */
  send(queries: readonly CompiledQuery[]): Promise<unknown[][]>;
  /**
   * The last step: sends the queries, the commit and then `readsAfter` together (the reads see
   * what was committed); gives each query's rows, then each read's.
   */
  sendAndCommit(queries: readonly CompiledQuery[], readsAfter?: readonly CompiledQuery[]): Promise<unknown[][]>;
}

const BEGIN = CompiledQuery.raw("begin");
const BEGIN_IMMEDIATE = CompiledQuery.raw("begin immediate");
const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");

/**
 * Runs fn's steps in one transaction, all or none: only sendAndCommit commits, so when fn returns
 * without it (it found nothing to write) or throws, or a statement fails, everything is rolled
 * back. Inside a caller's transaction (db is one) the steps join it, statement by statement, and
 * the caller commits.
 */
export async function inTransactionSteps<T>(db: Db, fn: (steps: TransactionSteps) => Promise<T>): Promise<T> {
  if (db.isTransaction) {
    const send = async (queries: readonly CompiledQuery[], readsAfter: readonly CompiledQuery[] = []) => {
      const rows: unknown[][] = [];
      for (const query of [...queries, ...readsAfter]) rows.push((await db.executeQuery(query)).rows);
      return rows;
    };
    return fn({ send, sendAndCommit: send });
  }
  const postgres = onPostgres(db);
  return (db as Kysely<Database>).getExecutor().provideConnection(async (connection) => {
    let begun = false;
    let ended = false;
    const send = async (queries: readonly CompiledQuery[], commit: boolean, readsAfter: readonly CompiledQuery[] = []): Promise<unknown[][]> => {
      if (ended) throw new Error("This transaction was already committed.");
      const head = begun ? [] : [postgres ? BEGIN : BEGIN_IMMEDIATE];
      begun = true;
      ended = commit;
      const all = [...head, ...queries, ...(commit ? [COMMIT] : [])];
      if (postgres) {
        if (!isPipeliningConnection(connection)) throw new Error("Transaction steps need the store's own PostgreSQL connections (lib/store/dialects.ts).");
        const answers = await connection.executeAll(readsAfter.length === 0 ? all : [...all, ...readsAfter]);
        const rows = answers.slice(head.length, head.length + queries.length);
        if (readsAfter.length > 0) rows.push(...answers.slice(all.length));
        return rows.map((answer) => answer.rows ?? []);
      }
      const rows: unknown[][] = [];
      for (const query of all) rows.push((await connection.executeQuery(query)).rows as unknown[]);
      const answers = rows.slice(head.length, head.length + queries.length);
      for (const read of readsAfter) answers.push((await connection.executeQuery(read)).rows as unknown[]);
      return answers;
    };
    try {
      const result = await fn({ send: (queries) => send(queries, false), sendAndCommit: (queries, readsAfter) => send(queries, true, readsAfter) });
      if (!ended && begun) await connection.executeQuery(ROLLBACK);
      return result;
    } catch (err) {
      // After a failed commit PostgreSQL has already rolled back; a rollback then only warns.
      if (begun) await connection.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  });
}
