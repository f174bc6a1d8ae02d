import { mkdirSync } from "node:fs";
import path from "node:path";
import { CompiledQuery, Kysely, Migrator, sql, type Compilable, type MigrationResultSet } from "kysely";
import type { Logger } from "pino";
import type { Database, Db } from "./database";
import { onPostgres, postgresDialect, sqliteDialect, type DialectName } from "./dialects";
import { mergeSameShapeLists } from "./merged-inserts";
import { MIGRATIONS } from "./migrations";
import { inOneStep } from "./transaction-steps";
import { outageSummary } from "../primitives/unreachable";

/** The embedded store's file in a data folder. */
export function sqliteFileIn(dataDir: string): string {
  return path.join(dataDir, "atelier.sqlite");
}

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres://… for PostgreSQL; null for the embedded SQLite file in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL schema to use (tests give each run its own). */
  searchPath?: string;
  /** PostgreSQL application_name of the pool's connections; "atelier" unless told. */
  applicationName?: string;
  /** Where a pooled connection dropped while idle (PostgreSQL restarted) is reported; at warn. */
  logger?: Pick<Logger, "warn">;
  /**
   * SQLite: checkpoint the write-ahead log from a worker thread, off the event loop (the
   * long-running server and worker processes; lib/store/sqlite-checkpoints.ts).
   */
  backgroundCheckpoints?: boolean;
}

/** The application_name of Atelier's PostgreSQL connections, so ops can tell them apart. */
export const DEFAULT_APPLICATION_NAME = "atelier";

export function openStore(options: StoreOptions): Store {
  let dialect;
  let name: DialectName;
  if (options.databaseUrl) {
    const logger = options.logger;
    dialect = postgresDialect(options.databaseUrl, {
      searchPath: options.searchPath,
      applicationName: options.applicationName ?? DEFAULT_APPLICATION_NAME,
      onIdleConnectionError: (err) =>
        logger?.warn(
          { cause: outageSummary(err) },
          "an idle database connection was dropped; the pool opens a new one when needed",
        ),
    });
    name = "postgres";
  } else {
    mkdirSync(options.dataDir, { recursive: true });
    const logger = options.logger;
    dialect = sqliteDialect(sqliteFileIn(options.dataDir), {
      backgroundCheckpoints: options.backgroundCheckpoints
        ? {
            onFailure: (err) =>
              logger?.warn(
                { err: err.message },
                "the store's checkpoint thread stopped; its connection checkpoints on its own again",
              ),
          }
        : undefined,
    });
    name = "sqlite";
  }
  const db = new Kysely<Database>({ dialect });
  return { db, dialect: name, close: () => db.destroy() };
}

class StaticMigrationProvider {
  async getMigrations() {
    return MIGRATIONS;
  }
}

async function migrateToLatest(db: Kysely<Database>, migrationTableSchema?: string): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(), migrationTableSchema });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/** Brings the schema up to date; safe to run from several processes at once. */
export async function migrateStore(store: Store): Promise<MigrationResultSet> {
  if (store.dialect === "postgres") {
    // Kysely takes an advisory lock on PostgreSQL, but without a schema it looks for its own
    // tables in every schema of the database; name the one we migrate (the search_path's).
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db);
    return migrateToLatest(store.db, rows[0]?.schema ?? undefined);
  }
  // Kysely takes no lock on SQLite (it assumes one connection), so two processes would both
  // run the same migration. Hold SQLite's write lock for the whole migration instead: the
  // second process waits for the lock (lib/store/dialects.ts), then finds nothing left to do.
  return store.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await migrateToLatest(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (err) {
      await sql`rollback`.execute(connection);
      throw err;
    }
  });
}

/**
 * Runs fn in one transaction, or inside the caller's when db already is one, so that a verb
 * called from another verb joins the same transaction instead of opening a second.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return (db as Kysely<Database>).transaction().execute(fn);
}

/**
 * Writes that read nothing back, applied all or none, in the order given: inside the caller's
 * transaction when db is one, else in a transaction of their own. On PostgreSQL that transaction is
 * one round trip (begin, the writes and commit sent together), so the rows a write locks (a
 * workspace's balance, a queue count) are held only while the server runs the rest of the list, not
 * while this busy process gets round to sending each next statement and the commit. `readAfter`,
 * run once the writes are in (after the commit; on PostgreSQL in the same round trip), gives the
 * rows returned.
 */
export async function applyWrites<R = never>(
  db: Db,
  writes: readonly Compilable[],
  readAfter?: CompiledQuery<R>,
): Promise<R[]> {
  const queries = writes.map((write) => write.compile());
  if (db.isTransaction) {
    for (const query of queries) await db.executeQuery(query);
    return readAfter ? (await db.executeQuery(readAfter)).rows : [];
  }
  const [rows] = await applyWriteLists(db as Kysely<Database>, [queries], readAfter ? [readAfter] : []);
  return (rows ?? []) as R[];
}

/**
 * Several lists of compiled writes in one transaction of their own, all or none together (group
 * commit: lib/store/write-groups.ts), then `reads` once they are in (after the commit; on
 * PostgreSQL in the same round trip). Each list's writes keep their order, and every list's last
 * write comes after all the lists' other writes: a hold's balance move is its list's last write
 * and must stay the last lock a transaction takes (lib/core/credits/credits.ts, moveHeldFromAvailable).
 * Gives each read's rows, in order.
 */
export async function applyWriteLists(
  db: Kysely<Database>,
  lists: readonly (readonly CompiledQuery[])[],
  reads: readonly CompiledQuery[],
): Promise<unknown[][]> {
  const queries = lists.length === 1 ? lists[0]! : lastWritesLast(lists, onPostgres(db));
  return inOneStep(db, queries, reads);
}

/** The lists' writes but their last ones (those of one shape merged: merged-inserts.ts), then every list's last write. */
function lastWritesLast(lists: readonly (readonly CompiledQuery[])[], postgres: boolean): CompiledQuery[] {
  const heads: (readonly CompiledQuery[])[] = [];
  const lasts: CompiledQuery[] = [];
  for (const queries of lists) {
    if (queries.length === 0) continue;
    heads.push(queries.slice(0, -1));
    lasts.push(queries[queries.length - 1]!);
  }
  return mergeSameShapeLists(heads, postgres).concat(lasts);
}
