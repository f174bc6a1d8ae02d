// Every difference between SQLite and PostgreSQL lives here: how to connect, how a write
// transaction begins, and how integers come back. Queries and migrations are shared.
import type SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresDialect,
  PostgresDriver,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DialectAdapter,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SqliteDialectConfig,
} from "kysely";
import type pg from "pg";
import { pgPackage } from "./pg-package";
import { CurrentSchemaIntrospector } from "./schema-introspector";
import { openSqliteDatabase } from "./sqlite-binding";
import { checkpointInBackground, type BackgroundCheckpoints } from "./sqlite-checkpoints";

export type DialectName = "sqlite" | "postgres";

/**
 * Brands telling a store's PostgreSQL adapter and connections apart without `instanceof`: the
 * studio's Next.js bundle holds copies of Kysely's classes and of this file's, while the store it
 * is handed was opened by the server's own (lib/boot/runtime.ts), and `instanceof` across two copies
 * is false (every studio write on PostgreSQL went down SQLite's path: `begin immediate`).
 * `Symbol.for` keys are one registry per process, shared by every copy.
 */
const ON_POSTGRES: unique symbol = Symbol.for("atelier.store.postgres-adapter");
const PIPELINING: unique symbol = Symbol.for("atelier.store.pipelining-connection");

/** Whether `db` (a store, or a transaction of one) is on PostgreSQL, whichever copy of Kysely made it. */
export function onPostgres(db: { getExecutor(): { readonly adapter: object } }): boolean {
  const adapter = db.getExecutor().adapter as { [ON_POSTGRES]?: boolean };
  return adapter[ON_POSTGRES] === true || adapter instanceof PostgresAdapter;
}

/** Whether `connection` is one of the store's own PostgreSQL connections, whichever copy of this file made it. */
export function isPipeliningConnection(connection: DatabaseConnection): connection is PipeliningPostgresConnection {
  return (connection as { [PIPELINING]?: boolean })[PIPELINING] === true;
}

/**
 * How long a write waits for another connection's write lock before the store counts as
 * unreachable (503 service_unavailable, lib/primitives/unreachable.ts).
 */
const SQLITE_LOCK_WAIT_MS = 10_000;
/**
 * SQLite's own busy handler sleeps inside the call, which would freeze the whole process (every
 * request, timer and keep-alive) for as long as another process holds the lock. It waits only
 * this long; the rest of SQLITE_LOCK_WAIT_MS is waited here between tries, with the event loop free.
 */
const SQLITE_BUSY_TIMEOUT_MS = 20;
const SQLITE_RETRY_PAUSE_MS = 15;

function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_BUSY(_|$)/.test(code);
}

/**
 * Retries a statement that could not have the lock, when retrying is safe: it began no
 * transaction (BEGIN IMMEDIATE itself) or ran on its own (autocommit), so nothing was written.
 * Inside a transaction we already hold the write lock and a statement is not retried.
 */
class LockWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly inTransaction: () => boolean,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
    for (;;) {
      const retryable = !this.inTransaction();
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        if (!retryable || !isSqliteBusy(err) || Date.now() >= deadline) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, SQLITE_RETRY_PAUSE_MS));
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * SQLite's default BEGIN is DEFERRED: a read-then-write transaction can then fail with
 * SQLITE_BUSY when another process writes first, and busy_timeout does not help. BEGIN
 * IMMEDIATE takes the write lock up front, so the server, the CLI and workers queue politely.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /** SQLite has one connection, so one wrapper. */
  #wrapped: LockWaitingConnection | null = null;
  constructor(
    config: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
    private readonly checkpoints: BackgroundCheckpoints | null,
  ) {
    super(config);
  }

  override async destroy(): Promise<void> {
    await this.checkpoints?.stop();
    await super.destroy();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    this.#wrapped ??= new LockWaitingConnection(inner, this.inTransaction);
    return this.#wrapped;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
    private readonly checkpoints: BackgroundCheckpoints | null,
  ) {
    super(config);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config, this.inTransaction, this.checkpoints);
  }
}

/** Distinct SQL texts kept prepared; the app has a few hundred, so this never evicts in practice. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely prepares every query anew, a cost on every create's path. Our queries are a fixed set of
 * texts with bound parameters, so each is compiled once and reused. Safe because better-sqlite3
 * runs a statement to completion synchronously (no streams here), and SQLite recompiles a prepared
 * statement itself after a schema change.
 */
function withStatementCache(database: SqliteDatabase.Database): SqliteDialectConfig["database"] {
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
  } as SqliteDialectConfig["database"];
}

/** Runs `fn` again (after a short synchronous pause) while it fails with SQLITE_BUSY, up to the lock wait. */
function retryWhileBusy<T>(fn: () => T): T {
  const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (!isSqliteBusy(err) || Date.now() >= deadline) throw err;
      Atomics.wait(pause, 0, 0, SQLITE_RETRY_PAUSE_MS);
    }
  }
}

export interface SqliteOptions {
  /**
   * Copy the write-ahead log into the database file from a worker thread instead of on this
   * connection (lib/store/sqlite-checkpoints.ts): for the long-running server and worker
   * processes. `onFailure` hears why the thread stopped; the connection then checkpoints itself.
   */
  backgroundCheckpoints?: { onFailure(err: Error): void };
}

export function sqliteDialect(file: string, options: SqliteOptions = {}): Dialect {
  const database = openSqliteDatabase(file);
  // Opening may wait for another process that is switching the file to WAL or migrating it:
  // blocking is fine here. SQLite answers SQLITE_BUSY at once, without its busy handler, when
  // waiting could deadlock (changing the journal mode while another connection holds a lock), so
  // that pragma is also tried again until the lock wait has passed.
  database.pragma(`busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
  retryWhileBusy(() => database.pragma("journal_mode = WAL"));
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const checkpoints = options.backgroundCheckpoints
    ? checkpointInBackground(database, file, { onFailure: options.backgroundCheckpoints.onFailure })
    : null;
  return new ImmediateSqliteDialect(
    { database: withStatementCache(database) },
    () => database.inTransaction,
    checkpoints,
  );
}

const INT8_OID = 20;

/** bigint columns come back from pg as text; money and counts fit a JS number exactly. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`integer out of range: ${text}`);
  return value;
}

export interface PostgresOptions {
  searchPath?: string;
  /** application_name of the pool's connections (pg_stat_activity); a name in the URL wins. */
  applicationName?: string;
  /**
   * Hears an idle pooled connection die (PostgreSQL restarted, the network cut it). The pool has
   * already dropped it and opens a new one when needed; without a listener the pool would throw
   * the error as an uncaught exception.
   */
  onIdleConnectionError?: (err: Error) => void;
}

/**
 * Names for plain inserts (`insert into … values …`, nothing read back) and for the statements
 * marked planOnce, so that each is parsed and planned once per connection and afterwards only
 * bound and run. Their plan never depends on the data, so the generic plan PostgreSQL keeps for
 * a named statement is the one it would make each time; any other query (a read, or an update
 * choosing an index) keeps being planned anew. Bounded: an insert of many rows is a text per row count.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 200;
const PLAN_ONCE: unique symbol = Symbol.for("atelier.store.plan-once");

/**
 * Marks a statement whose plan cannot depend on the data (it finds its rows by primary key) to be
 * planned once per PostgreSQL connection, as plain inserts are. SQLite prepares every statement
 * once anyway (its statement cache, above).
 */
export function planOnce<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  return Object.assign({ ...query }, { [PLAN_ONCE]: true });
}

function statementName(query: CompiledQuery): string | undefined {
  const text = query.sql;
  let name = statementNames.get(text);
  if (name !== undefined || statementNames.size >= MAX_NAMED_STATEMENTS) return name;
  const named = text.startsWith("insert into ")
    ? // Not an insert of several rows (merged-inserts.ts): a text per row count would use up the names.
      !text.includes("), (") && !/\b(select|returning)\b/.test(text)
    : // Nor a `*`: PostgreSQL refuses a kept statement whose rows changed shape (a column added).
      (query as { [PLAN_ONCE]?: boolean })[PLAN_ONCE] === true && !text.includes("*");
  if (named) {
    name = `atelier_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A pooled PostgreSQL connection that can also send several statements without waiting for each
 * answer (node-postgres' pipeline mode): a write transaction then costs one round trip instead of
 * one per statement, and the rows it locks are held only while the server runs the rest of it,
 * not while this busy process gets round to sending the next statement (lib/store/writes.ts,
 * writeList). One statement at a time, as Kysely sends them, it behaves as without pipelining.
 */
export class PipeliningPostgresConnection implements DatabaseConnection {
  readonly [PIPELINING] = true;
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { command, rowCount, rows } = await this.send(query);
    const changed = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE";
    return { numAffectedRows: changed ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  private send(query: CompiledQuery): Promise<pg.QueryResult> {
    const name = statementName(query);
    // A config object is copied property by property (descriptors) on every query: only when named.
    if (!name) return this.client.query(query.sql, query.parameters as unknown[]);
    return this.client.query({ text: query.sql, values: query.parameters as unknown[], name });
  }

  // eslint-disable-next-line require-yield -- nothing here streams; Kysely's own driver refuses the same way without a cursor
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("Streaming query results is not set up for PostgreSQL.");
  }

  /**
   * Sends every query at once and waits for every answer; throws the first failure, else gives
   * the answers. The server runs them in order, so in a begin … commit list a failure leaves the
   * rest refused and the commit a rollback: all or nothing, as in a transaction run statement by
   * statement.
   */
  async executeAll(queries: readonly CompiledQuery[]): Promise<pg.QueryResult[]> {
    // node-postgres writes each query to the socket on its own (a system call and a wake-up of
    // the server each); corked, they leave in one write.
    const socket = this.client.connection.stream;
    socket.cork();
    let sent: Promise<pg.QueryResult>[];
    try {
      sent = queries.map((query) => this.send(query));
    } finally {
      socket.uncork();
    }
    const answers = await Promise.allSettled(sent);
    return answers.map((answer) => {
      if (answer.status === "rejected") throw answer.reason;
      return answer.value;
    });
  }
}

class PipeliningPostgresDriver extends PostgresDriver {
  readonly #connections = new WeakMap<pg.PoolClient, PipeliningPostgresConnection>();
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    let connection = this.#connections.get(client);
    if (!connection) {
      this.#connections.set(client, (connection = new PipeliningPostgresConnection(client)));
      // A connection that dies while lent out (between a transaction's statements, say) emits
      // 'error' with no query to reject, and the pool listens only to idle ones: unheard, that is
      // an uncaught exception that ends the process. The statement under way, if any, fails on its
      // own, and the pool drops the dead connection when it comes back.
      client.on("error", () => undefined);
    }
    return connection;
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PipeliningPostgresConnection).client.release();
  }
}

class PipeliningPostgresDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }
  override createDriver(): Driver {
    return new PipeliningPostgresDriver(this.pool);
  }
  override createAdapter(): DialectAdapter {
    return Object.assign(super.createAdapter(), { [ON_POSTGRES]: true });
  }
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

export function postgresDialect(connectionString: string, options: PostgresOptions = {}): Dialect {
  const { Pool, types } = pgPackage();
  const pool = new Pool({
    connectionString,
    max: 10,
    pipeline: true,
    application_name: options.applicationName,
    options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? parseInt8 : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  });
  pool.on("error", (err) => {
    try {
      options.onIdleConnectionError?.(err);
    } catch {
      // A listener that throws must not turn a dropped connection into a crash.
    }
  });
  return new PipeliningPostgresDialect(pool);
}

/** A duplicate primary or unique key, in either dialect's words. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
