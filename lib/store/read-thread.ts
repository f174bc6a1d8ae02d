// Long reads of the embedded store (a history page, the ops figures), in a worker thread of their
// own. better-sqlite3 runs a query synchronously on the event loop: a read that takes 50 ms stalls
// every other request for 50 ms. Here a read-only connection to the same file, in one worker
// thread, runs them instead; in WAL mode it reads the last committed state while the server's
// connection writes. Reads queue in the order they are sent. No transactions: a read that must see
// a transaction's own writes goes through that transaction.
import { Worker } from "node:worker_threads";
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from "kysely";
import { sqliteNativeBinding } from "./sqlite-binding";

/** As long as a write waits for the lock (dialects.ts); in the thread, waiting blocks nothing else. */
const READ_BUSY_TIMEOUT_MS = 10_000;
/** Distinct SQL texts kept prepared in the thread (dialects.ts keeps as many). */
const STATEMENT_CACHE_SIZE = 1000;

// Plain JavaScript: a worker evaluates it without the TypeScript loader the process may run under,
// and no file has to be found next to this one (the studio's Next bundle has its own copy of lib/).
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true, nativeBinding: workerData.nativeBinding });
db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
const statements = new Map();
function prepared(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    if (statements.size >= workerData.statementCacheSize) statements.delete(statements.keys().next().value);
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
parentPort.on("message", ({ id, sql, parameters }) => {
  try {
    const statement = prepared(sql);
    if (statement.reader) {
      parentPort.postMessage({ id, rows: statement.all(parameters) });
    } else {
      const { changes } = statement.run(parameters);
      parentPort.postMessage({ id, rows: [], changes });
    }
  } catch (err) {
    const e = err || {};
    parentPort.postMessage({ id, error: { name: e.name, message: String(e.message || e), code: e.code } });
  }
});
`;

interface Answer {
  id: number;
  rows?: Record<string, unknown>[];
  changes?: number;
  error?: { name?: string; message: string; code?: string };
}

interface Pending {
  resolve(answer: Answer): void;
  reject(err: Error): void;
}

/** The SQLite error a read failed with, as the main connection would throw it: same code and message. */
function readError(error: NonNullable<Answer["error"]>): Error {
  const err = new Error(error.message) as Error & { code?: string };
  err.name = error.name ?? "SqliteError";
  if (error.code !== undefined) err.code = error.code;
  return err;
}

/** A blob crosses the thread as a Uint8Array; better-sqlite3 gives a Buffer. */
function restoreBuffers(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
        row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
  }
  return rows;
}

/** One worker thread, started at the first read and again after a failure, ended by close(). */
class ReadThread {
  #worker: Worker | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;

  constructor(
    private readonly file: string,
    private readonly sqliteModule: string,
  ) {}

  run(query: CompiledQuery): Promise<Answer> {
    if (this.#closed) return Promise.reject(new Error("The store is closed: no more reads."));
    const worker = this.#started();
    const id = this.#nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Held only while reads are under way: an idle thread never keeps the process alive.
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
    this.#failAll(new Error("The store was closed before this read ended."));
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.file,
        sqliteModule: this.sqliteModule,
        nativeBinding: sqliteNativeBinding(),
        busyTimeoutMs: READ_BUSY_TIMEOUT_MS,
        statementCacheSize: STATEMENT_CACHE_SIZE,
      },
    });
    worker.unref();
    worker.on("message", (answer: Answer) => {
      const pending = this.#pending.get(answer.id);
      if (!pending) return;
      this.#pending.delete(answer.id);
      if (this.#pending.size === 0) worker.unref();
      pending.resolve(answer);
    });
    // The thread died (it could not open the file, or ran out of memory): its reads fail, and the
    // next read starts a new one.
    const lost = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#failAll(err);
    };
    worker.once("error", lost);
    worker.once("exit", (code) => lost(new Error(`The store's read thread stopped (exit code ${code}).`)));
    this.#worker = worker;
    return worker;
  }

  #failAll(err: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(err);
  }
}

class ReadThreadConnection implements DatabaseConnection {
  constructor(private readonly thread: ReadThread) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const answer = await this.thread.run(query);
    if (answer.error) throw readError(answer.error);
    return {
      rows: restoreBuffers(answer.rows ?? []) as R[],
      numAffectedRows: answer.changes === undefined ? undefined : BigInt(answer.changes),
    };
  }

  // eslint-disable-next-line require-yield -- reads come back whole, as with the main connection's statement cache
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("The read thread does not stream.");
  }
}

function refuseTransaction(): never {
  throw new Error("The read thread runs no transactions: read inside the transaction with its own connection.");
}

class ReadThreadDriver implements Driver {
  readonly #thread: ReadThread;
  readonly #connection: ReadThreadConnection;
  constructor(file: string, sqliteModule: string) {
    this.#thread = new ReadThread(file, sqliteModule);
    this.#connection = new ReadThreadConnection(this.#thread);
  }
  async init(): Promise<void> {}
  /** One connection for every read: the thread queues them. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async beginTransaction(): Promise<void> {
    refuseTransaction();
  }
  async commitTransaction(): Promise<void> {
    refuseTransaction();
  }
  async rollbackTransaction(): Promise<void> {
    refuseTransaction();
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.#thread.close();
  }
}

/**
 * The worker loads the very package this process uses. Bundled by Next, require.resolve answers
 * a module number instead of a path; the worker then finds the package from the working
 * directory, as the server's own copy would.
 */
function betterSqlite3Path(): string {
  const resolved: unknown = require.resolve("better-sqlite3");
  return typeof resolved === "string" ? resolved : "better-sqlite3";
}

/**
 * A Kysely dialect whose queries run on a read-only connection to `file` in a worker thread.
 * The thread starts at the first query; the Kysely's destroy() ends it.
 */
export function readThreadDialect(file: string, options: { sqliteModule?: string } = {}): Dialect {
  const sqliteModule = options.sqliteModule ?? betterSqlite3Path();
  return {
    createAdapter: (): DialectAdapter => new SqliteAdapter(),
    createDriver: (): Driver => new ReadThreadDriver(file, sqliteModule),
    createQueryCompiler: (): QueryCompiler => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => new SqliteIntrospector(db),
  };
}
