import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Kysely, sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteDialect } from "./dialects";
import { readThreadDialect } from "./read-thread";
import { openSqliteDatabase, sqliteNativeBinding } from "./sqlite-binding";
import { copySqliteStore } from "./sqlite-backup";
import { checkpointInBackground } from "./sqlite-checkpoints";

// The switch is proven by a build that is not there: every opener must fail naming it. The
// tests' own connections open with whatever ATELIER_SQLITE_BINDING the run has (unset, or the
// Node 26 build scripts/test-node-lts.sh sets), which is restored after each test.
describe("ATELIER_SQLITE_BINDING: which better-sqlite3 build every SQLite connection loads", () => {
  const runs = process.env.ATELIER_SQLITE_BINDING;
  const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-binding-"));
  const missing = path.join(dir, "no-such-build", "better_sqlite3.node");
  const file = path.join(dir, "store.sqlite");
  const db = openSqliteDatabase(file);
  db.pragma("journal_mode = WAL");
  db.exec("create table t (x integer)");

  afterEach(() => {
    if (runs === undefined) delete process.env.ATELIER_SQLITE_BINDING;
    else process.env.ATELIER_SQLITE_BINDING = runs;
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("unset or empty: the package's own build", () => {
    delete process.env.ATELIER_SQLITE_BINDING;
    expect(sqliteNativeBinding()).toBeNull();
    process.env.ATELIER_SQLITE_BINDING = "";
    expect(sqliteNativeBinding()).toBeNull();
  });

  it("the store's connection, the backup copy and a bare connection load the build it names", async () => {
    process.env.ATELIER_SQLITE_BINDING = missing;
    expect(sqliteNativeBinding()).toBe(missing);
    expect(() => openSqliteDatabase(":memory:")).toThrow(missing);
    expect(() => sqliteDialect(file)).toThrow(missing);
    await expect(copySqliteStore(file, path.join(dir, "copy.sqlite"))).rejects.toThrow(missing);
  });

  it("the read thread loads the build it names", async () => {
    process.env.ATELIER_SQLITE_BINDING = missing;
    const reads = new Kysely<unknown>({ dialect: readThreadDialect(file) });
    try {
      await expect(sql`select count(*) from t`.execute(reads)).rejects.toThrow(missing);
    } finally {
      await reads.destroy();
    }
  });

  it("the checkpoint thread loads the build it names", async () => {
    process.env.ATELIER_SQLITE_BINDING = missing;
    const failures: Error[] = [];
    const checkpoints = checkpointInBackground(db, file, { onFailure: (err) => failures.push(err) });
    try {
      await expect.poll(() => failures.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(failures[0]!.message).toContain(missing);
    } finally {
      await checkpoints.stop();
    }
  });
});
