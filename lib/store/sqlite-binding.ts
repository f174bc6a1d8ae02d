// The one place that says which compiled better-sqlite3 addon a connection to SQLite loads.
// Normally the package's own build (node_modules/better-sqlite3/build, made by `npm ci` for the
// Node that ran it). ATELIER_SQLITE_BINDING names another better_sqlite3.node instead: one compiled
// for another Node's ABI, such as the Node 26 build that scripts/test-node-lts.sh makes and runs
// the unit tests with, while node_modules keeps the Node 20 build. Every opener goes through here:
// the store's connection (dialects.ts), its read and checkpoint threads (read-thread.ts,
// sqlite-checkpoints.ts: they pass nativeBinding on to the thread), backups (sqlite-backup.ts).
import SqliteDatabase from "better-sqlite3";

/** The addon file ATELIER_SQLITE_BINDING names, or null for the package's own build. */
export function sqliteNativeBinding(): string | null {
  return process.env.ATELIER_SQLITE_BINDING || null;
}

/** `new SqliteDatabase(file, options)` on the addon sqliteNativeBinding() names. */
export function openSqliteDatabase(file: string, options: SqliteDatabase.Options = {}): SqliteDatabase.Database {
  const nativeBinding = sqliteNativeBinding();
  return new SqliteDatabase(file, nativeBinding === null ? options : { ...options, nativeBinding });
}
