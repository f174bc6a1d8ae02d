// A consistent copy of the embedded store while other processes write to it: SQLite's online
// backup API (better-sqlite3's `backup`), every page in one step. A step reads under one read
// transaction, and in WAL mode a reader holds up no writer, so the copy is the store as one
// commit left it and the server goes on meanwhile. Used by `admin backup` (lib/boot/backup.ts).
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./database";
import { openSqliteDatabase } from "./sqlite-binding";

/** Pages per backup step: all of them, so the copy is one read transaction's view. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the store in `source` to `destination` (a new file), then turns the copy's journal to
 * DELETE so that it is one self-contained file (no -wal or -shm beside it); the store that opens
 * it again sets WAL itself (dialects.ts).
 */
export async function copySqliteStore(source: string, destination: string): Promise<{ pages: number }> {
  const from = openSqliteDatabase(source, { readonly: true, fileMustExist: true });
  let pages = 0;
  try {
    from.pragma("busy_timeout = 10000");
    const result = await from.backup(destination, { progress: () => ALL_PAGES });
    pages = result.totalPages;
  } finally {
    from.close();
  }
  const copy = openSqliteDatabase(destination, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new Error(`the copy of the store fails SQLite's quick_check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return { pages };
}

/** A read-only Kysely on a copy made by copySqliteStore (its journal is DELETE: opening it writes nothing beside it). */
export function openSqliteCopy(file: string): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: openSqliteDatabase(file, { readonly: true, fileMustExist: true }) }),
  });
}
