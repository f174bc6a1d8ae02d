// Checkpoints of the embedded store's write-ahead log, in a worker thread of their own. SQLite
// checkpoints on the connection whose commit pushed the log past 1,000 pages: there that is the
// event loop, which would stand still, and every request in flight wait, while the pages are copied
// into the database file and synced. Here the server's connection never checkpoints; a thread with
// a connection of its own copies what was committed every few milliseconds, without waiting for
// readers or the writer (PASSIVE), so the log is usually fully copied when the next write begins
// and SQLite starts the log over from its beginning. If it still grows past a bound, the thread
// waits for a quiet moment (RESTART).
import { Worker } from "node:worker_threads";
import type SqliteDatabase from "better-sqlite3";
import { sqliteNativeBinding } from "./sqlite-binding";

/** SQLite's own default, given back when the thread stops or fails. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointSettings {
  /** Milliseconds between looks while the log grows; idle, the pause doubles up to maxIntervalMs. */
  intervalMs: number;
  maxIntervalMs: number;
  /** Past this many frames in the log, the thread waits for a moment without readers or writer. */
  restartAboveFrames: number;
}

const DEFAULT_SETTINGS: CheckpointSettings = { intervalMs: 5, maxIntervalMs: 200, restartAboveFrames: 20_000 };

// Plain JavaScript: a worker evaluates it without the TypeScript loader the process may run under.
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { fileMustExist: true, nativeBinding: workerData.nativeBinding });
db.pragma("busy_timeout = 5000");
let pause = workerData.intervalMs;
let lastFrames = -1;
function look() {
  let result;
  try {
    [result] = db.pragma("wal_checkpoint(PASSIVE)");
    if (result.log > workerData.restartAboveFrames) [result] = db.pragma("wal_checkpoint(RESTART)");
  } catch (err) {
    // Another process's checkpoint holds the log: try again at the next look.
    if (!/^SQLITE_(BUSY|LOCKED)/.test(String(err && err.code))) throw err;
  }
  const grew = result !== undefined && result.log !== lastFrames;
  if (result !== undefined) lastFrames = result.log;
  pause = grew ? workerData.intervalMs : Math.min(pause * 2, workerData.maxIntervalMs);
  setTimeout(look, pause);
}
look();
`;

export interface BackgroundCheckpoints {
  /** Stops the thread; the connection checkpoints on its own again. */
  stop(): Promise<void>;
}

/**
 * Moves `database`'s checkpoints to a worker thread. Should the thread fail (it cannot open the
 * file, a checkpoint fails), the connection checkpoints on its own again and `onFailure` hears why.
 */
export function checkpointInBackground(
  database: SqliteDatabase.Database,
  file: string,
  options: Partial<CheckpointSettings> & { sqliteModule?: string; onFailure?: (err: Error) => void } = {},
): BackgroundCheckpoints {
  const settings: CheckpointSettings = {
    intervalMs: options.intervalMs ?? DEFAULT_SETTINGS.intervalMs,
    maxIntervalMs: options.maxIntervalMs ?? DEFAULT_SETTINGS.maxIntervalMs,
    restartAboveFrames: options.restartAboveFrames ?? DEFAULT_SETTINGS.restartAboveFrames,
  };
  // The worker loads the very package this process uses.
  const sqliteModule = options.sqliteModule ?? require.resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ...settings, file, sqliteModule, nativeBinding: sqliteNativeBinding() },
  });
  // The thread never keeps the process alive: the store's close (or the process's exit) ends it.
  worker.unref();
  let running = true;
  database.pragma("wal_autocheckpoint = 0");
  const checkpointHere = (err: Error) => {
    if (!running) return;
    running = false;
    if (database.open) database.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    options.onFailure?.(err);
  };
  worker.once("error", checkpointHere);
  worker.once("exit", (code) => checkpointHere(new Error(`the checkpoint thread stopped (exit code ${code})`)));
  return {
    async stop() {
      if (!running) return;
      running = false;
      await worker.terminate();
      if (database.open) database.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    },
  };
}
