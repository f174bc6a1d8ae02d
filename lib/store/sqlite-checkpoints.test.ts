import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "./sqlite-binding";
import { checkpointInBackground } from "./sqlite-checkpoints";
import { migrateStore, openStore, sqliteFileIn, type Store } from "./store";

// SQLite only: PostgreSQL has no log of ours to copy.
const onSqlite = !process.env.STORE_TEST_DATABASE_URL;

/** Waits for `done` to hold, looking every 20 ms, for at most `ms`. */
async function until(done: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

describe.runIf(onSqlite)("background checkpoints (sqlite)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function storeWithBackgroundCheckpoints(): Promise<{ store: Store; file: string }> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-checkpoints-"));
    const store = openStore({ databaseUrl: null, dataDir, backgroundCheckpoints: true });
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanups.push(() => store.close());
    await migrateStore(store);
    await sql`create table filler (id integer primary key, body blob not null)`.execute(store.db);
    return { store, file: sqliteFileIn(dataDir) };
  }

  /** About `megabytes` of rows, in transactions of 64 KB. */
  async function fill(store: Store, megabytes: number): Promise<void> {
    for (let i = 0; i < megabytes * 16; i++) {
      await store.db.transaction().execute(async (trx) => {
        for (let j = 0; j < 16; j++) await sql`insert into filler (body) values (${randomBytes(4096)})`.execute(trx);
      });
    }
  }

  it("the store's connection leaves checkpoints to the thread, which copies the log into the database file", async () => {
    const { store, file } = await storeWithBackgroundCheckpoints();
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
    expect(rows[0]!.wal_autocheckpoint).toBe(0);
    const before = sizeOf(file);
    await fill(store, 4);
    // With the connection not checkpointing, only the thread can grow the database file.
    expect(await until(() => sizeOf(file) >= before + 4 * 1024 * 1024)).toBe(true);
  });

  it("the log starts over once copied: writing in rounds does not grow it round after round", async () => {
    const { store, file } = await storeWithBackgroundCheckpoints();
    const wal = `${file}-wal`;
    const rounds: number[] = [];
    for (let round = 0; round < 4; round++) {
      await fill(store, 2);
      // Let the thread copy the round, as it does between a server's bursts of writes.
      await new Promise((resolve) => setTimeout(resolve, 500));
      rounds.push(sizeOf(wal));
    }
    expect(rounds[0]).toBeGreaterThan(0);
    // Appended to without starting over, the log would hold all 8 MB by the last round.
    expect(rounds[3]!).toBeLessThan(rounds[0]! * 1.5 + 1024 * 1024);
    expect(rounds[3]!).toBeLessThan(6 * 1024 * 1024);
  });

  /** A bare connection to a new file in WAL mode, closed after the test. */
  function walDatabase(): { database: SqliteDatabase.Database; file: string; dataDir: string } {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-checkpoints-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const file = path.join(dataDir, "bare.sqlite");
    const database = openSqliteDatabase(file);
    cleanups.push(() => void database.close());
    database.pragma("journal_mode = WAL");
    return { database, file, dataDir };
  }

  it("a thread that cannot start gives checkpoints back to the connection and says why", async () => {
    const { database, file, dataDir } = walDatabase();
    const failures: Error[] = [];
    const checkpoints = checkpointInBackground(database, file, {
      sqliteModule: path.join(dataDir, "no-such-module.js"),
      onFailure: (err) => failures.push(err),
    });
    cleanups.push(() => checkpoints.stop());
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    expect(await until(() => failures.length > 0)).toBe(true);
    expect(failures[0]!.message).toMatch(/no-such-module/);
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
  });

  it("stopping gives checkpoints back to the connection", async () => {
    const { database, file } = walDatabase();
    const failures: Error[] = [];
    const checkpoints = checkpointInBackground(database, file, { onFailure: (err) => failures.push(err) });
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    await checkpoints.stop();
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    expect(failures).toEqual([]);
  });
});
