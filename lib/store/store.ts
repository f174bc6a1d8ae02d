import { mkdirSync } from "node:fs";
import path from "node:path";
import { Kysely, Migrator, sql, type MigrationResultSet } from "kysely";
import type { Logger } from "pino";
import type { Database } from "./database";
import { postgresDialect, sqliteDialect, type DialectName } from "./dialects";
import { readThreadDialect } from "./read-thread";
import { MIGRATIONS } from "./migrations";
import { buildOnlineIndexes } from "./online-indexes";
import { outageSummary } from "../primitives/unreachable";

/** The embedded store's file in a data folder. */
export function sqliteFileIn(dataDir: string): string {
  return path.join(dataDir, "atelier.sqlite");
}

export interface Store {
  db: Kysely<Database>;
  /**
   * For long reads (history pages, the ops figures), never inside a transaction. On SQLite, a
   * read-only connection in a worker thread of its own (read-thread.ts), started at the first read,
   * so they do not hold up the event loop; on PostgreSQL, `db` itself.
   */
  reads: Kysely<Database>;
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
  if (name === "postgres") return { db, reads: db, dialect: name, close: () => db.destroy() };
  const reads = new Kysely<Database>({ dialect: readThreadDialect(sqliteFileIn(options.dataDir)) });
  return {
    db,
    reads,
    dialect: name,
    close: async () => {
      await reads.destroy();
      await db.destroy();
    },
  };
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

/**
 * Brings the schema up to date, then builds the indexes added to big tables since
 * (online-indexes.ts); safe to run from several processes at once.
 */
export async function migrateStore(store: Store): Promise<MigrationResultSet> {
  const result = await runMigrations(store);
  await buildOnlineIndexes(store.db);
  return result;
}

async function runMigrations(store: Store): Promise<MigrationResultSet> {
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
