// A transaction sent in a few steps, each step's statements together, the next step made from
// the answers of the one before. On PostgreSQL each step is one round trip (pipelined): the first
// carries the begin, the last the commit, so ending a run is two round trips rather than one per
// statement, each waiting on this busy process to send the next. Writes that read nothing first
// are one step, with any reads after its commit (inOneStep). Callers reach both through
// writeList (lib/store/writes.ts).
import { CompiledQuery, type DatabaseConnection, type Kysely } from "kysely";
import type { Database, Db } from "./database";
import { isPipeliningConnection, onPostgres } from "./dialects";

export interface TransactionSteps {
  /** Sends the queries together; gives each one's rows, in order. */
  send(queries: readonly CompiledQuery[]): Promise<unknown[][]>;
  /** The last step: sends the queries and the commit together. */
  sendAndCommit(queries: readonly CompiledQuery[]): Promise<unknown[][]>;
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
    const send = async (queries: readonly CompiledQuery[]) => {
      const rows: unknown[][] = [];
      for (const query of queries) rows.push((await db.executeQuery(query)).rows);
      return rows;
    };
    return fn({ send, sendAndCommit: send });
  }
  const postgres = onPostgres(db);
  return (db as Kysely<Database>).getExecutor().provideConnection(async (connection) => {
    let begun = false;
    let ended = false;
    const send = async (queries: readonly CompiledQuery[], commit: boolean): Promise<unknown[][]> => {
      if (ended) throw new Error("This transaction was already committed.");
      const first = begun ? 0 : 1;
      const all = [...(begun ? [] : [postgres ? BEGIN : BEGIN_IMMEDIATE]), ...queries, ...(commit ? [COMMIT] : [])];
      begun = true;
      ended = commit;
      return (await sendInOrder(connection, postgres, all)).slice(first, first + queries.length);
    };
    try {
      const result = await fn({
        send: (queries) => send(queries, false),
        sendAndCommit: (queries) => send(queries, true),
      });
      if (!ended && begun) await connection.executeQuery(ROLLBACK);
      return result;
    } catch (err) {
      // After a failed commit PostgreSQL has already rolled back; a rollback then only warns.
      if (begun) await connection.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * A transaction of one step (inTransactionSteps with only sendAndCommit) without the steps'
 * bookkeeping, for a write list or a group of them (writes.ts, write-groups.ts): begin,
 * the queries, commit, then the reads; gives each read's rows.
 */
export async function inOneStep(
  db: Kysely<Database>,
  queries: readonly CompiledQuery[],
  readsAfter: readonly CompiledQuery[],
): Promise<unknown[][]> {
  const postgres = onPostgres(db);
  const all = [postgres ? BEGIN : BEGIN_IMMEDIATE, ...queries, COMMIT, ...readsAfter];
  return db.getExecutor().provideConnection(async (connection) => {
    try {
      return (await sendInOrder(connection, postgres, all)).slice(all.length - readsAfter.length);
    } catch (err) {
      await connection.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * The statements on one connection, in order, each one's rows: on PostgreSQL pipelined, one round
 * trip; on SQLite one after the other (holding the connection keeps others out, without the cost
 * of Kysely's own transaction around them).
 */
async function sendInOrder(
  connection: DatabaseConnection,
  postgres: boolean,
  queries: readonly CompiledQuery[],
): Promise<unknown[][]> {
  if (postgres) {
    if (!isPipeliningConnection(connection))
      throw new Error("Transactions in steps need the store's own PostgreSQL connections (lib/store/dialects.ts).");
    return (await connection.executeAll(queries)).map((answer) => answer.rows ?? []);
  }
  const rows: unknown[][] = [];
  for (const query of queries) rows.push((await connection.executeQuery(query)).rows as unknown[]);
  return rows;
}
