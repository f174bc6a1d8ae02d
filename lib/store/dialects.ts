// Every difference between SQLite and PostgreSQL lives here: how to connect, how a write
// transaction begins, and how integers come back. Queries and migrations are shared.
import SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type Driver,
} from "kysely";
import pg from "pg";

export type DialectName = "sqlite" | "postgres";

/**
 * SQLite's default BEGIN is DEFERRED: a read-then-write transaction can then fail with
 * SQLITE_BUSY when another process writes first, and busy_timeout does not help. BEGIN
 * IMMEDIATE takes the write lock up front, so the server, the CLI and workers queue politely.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** Distinct SQL texts kept prepared; the app has a few hundred, so this never evicts in practice. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely prepares every query anew; compiling the SQL was 13 % of a run's create (bench profile).
 * Our queries are a fixed set of texts with bound parameters, so each is compiled once and reused.
 * Safe because better-sqlite3 runs a statement to completion synchronously (no streams here),
 * and SQLite recompiles a prepared statement itself after a schema change.
 */
function withStatementCache(database: SqliteDatabase.Database): ConstructorParameters<typeof SqliteDialect>[0]["database"] {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  } as ConstructorParameters<typeof SqliteDialect>[0]["database"];
}

export function sqliteDialect(file: string): Dialect {
  const database = new SqliteDatabase(file);
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 10000");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  return new ImmediateSqliteDialect({ database: withStatementCache(database) });
}

const INT8_OID = 20;

/** bigint columns come back from pg as text; money and counts fit a JS number exactly. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`integer out of range: ${text}`);
  return value;
}

export function postgresDialect(connectionString: string, options: { searchPath?: string } = {}): Dialect {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return new PostgresDialect({ pool });
}

/** A duplicate primary or unique key, in either dialect's words. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
