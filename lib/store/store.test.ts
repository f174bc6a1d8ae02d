import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createWorkspace, findWorkspace } from "../core/workspaces/workspaces";
import { readBalance } from "../core/credits/credits";
import { MIGRATIONS } from "./migrations";
import type { Db } from "./database";
import { isUniqueViolation } from "./dialects";
import { openSqliteDatabase, sqliteNativeBinding } from "./sqlite-binding";
import { migrateStore, openStore, type Store } from "./store";
import { withTransaction, writeList } from "./writes";
import { openTestStore, testDatabaseUrl, testDialect, type TestStore } from "./testing/test-store";

const MIGRATION_NAMES = Object.keys(MIGRATIONS);

async function executedMigrations(store: Store): Promise<string[]> {
  const rows = await store.db
    .selectFrom("kysely_migration" as never)
    .select("name" as never)
    .orderBy("name" as never)
    .execute();
  return (rows as Array<{ name: string }>).map((r) => r.name);
}

describe(`store (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("has run every migration once", async () => {
    expect(MIGRATION_NAMES.length).toBeGreaterThan(0);
    expect(await executedMigrations(t.store)).toEqual([...MIGRATION_NAMES].sort());
  });

  it("migrating again is a no-op that keeps the data", async () => {
    const workspace = await createWorkspace({ db: t.store.db }, { name: "kept", creditMicros: 1_000_000 });
    const again = await migrateStore(t.store);
    expect(again.error).toBeUndefined();
    expect(again.results).toEqual([]);
    const third = await migrateStore(t.store);
    expect(third.results).toEqual([]);
    expect(await executedMigrations(t.store)).toEqual([...MIGRATION_NAMES].sort());
    expect(await findWorkspace({ db: t.store.db }, workspace.id)).toEqual(workspace);
    expect((await readBalance(t.store.db, workspace.id)).availableMicros).toBe(1_000_000);
  });

  it("withTransaction rolls back everything when fn throws", async () => {
    let createdId: string | null = null;
    await expect(
      withTransaction(t.store.db, async (trx) => {
        const workspace = await createWorkspace({ db: trx }, { name: "doomed", creditMicros: 5_000_000 });
        createdId = workspace.id;
        // Visible inside the transaction…
        expect(await findWorkspace({ db: trx }, workspace.id)).not.toBeNull();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(createdId).not.toBeNull();
    // …and gone, with its balance row and ledger entries, after the rollback.
    expect(await findWorkspace({ db: t.store.db }, createdId!)).toBeNull();
    const balances = await t.store.db
      .selectFrom("credit_balances")
      .selectAll()
      .where("workspace_id", "=", createdId!)
      .execute();
    expect(balances).toEqual([]);
    const ledger = await t.store.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("workspace_id", "=", createdId!)
      .execute();
    expect(ledger).toEqual([]);
  });

  it("withTransaction commits when fn returns, and returns its value", async () => {
    const workspace = await withTransaction(t.store.db, (trx) => createWorkspace({ db: trx }, { name: "committed" }));
    expect(await findWorkspace({ db: t.store.db }, workspace.id)).toEqual(workspace);
  });

  it("a nested withTransaction joins the outer transaction", async () => {
    let innerId: string | null = null;
    await expect(
      withTransaction(t.store.db, async (outer) => {
        expect(outer.isTransaction).toBe(true);
        await withTransaction(outer, async (inner) => {
          // The same transaction object, not a second transaction (or a savepoint).
          expect(inner).toBe(outer);
          innerId = (await createWorkspace({ db: inner }, { name: "inner" })).id;
        });
        // The inner work has not been committed on its own: outer sees it, and it rolls back with outer.
        expect(await findWorkspace({ db: outer }, innerId!)).not.toBeNull();
        throw new Error("outer fails after inner finished");
      }),
    ).rejects.toThrow("outer fails");
    expect(innerId).not.toBeNull();
    expect(await findWorkspace({ db: t.store.db }, innerId!)).toBeNull();
  });

  /** A workspace row and its balance row, as two writes: the second needs the first (foreign key). */
  const workspaceWrites = (db: Db, id: string) => [
    db.insertInto("workspaces").values({ id, name: id, created_at: new Date().toISOString() }),
    db
      .insertInto("credit_balances")
      .values({ workspace_id: id, available_micros: 0, held_micros: 0, granted_micros: 0, charged_micros: 0 }),
  ];
  const keyWrite = (db: Db, workspaceId: string, key: string) =>
    db.insertInto("idempotency_keys").values({
      workspace_id: workspaceId,
      key,
      endpoint: "test",
      request_hash: "h",
      resource_id: "r",
      created_at: new Date().toISOString(),
    });

  it("writeList applies writes in their order, all or none, and throws the write that failed", async () => {
    const db = t.store.db;
    const first = `ws_${randomBytes(6).toString("hex")}`;
    await writeList(db, [...workspaceWrites(db, first), keyWrite(db, first, "k1")]);
    expect(await findWorkspace({ db }, first)).not.toBeNull();
    expect((await readBalance(db, first)).availableMicros).toBe(0);

    // The third write repeats a key: the two before it and the one after it are not kept.
    const doomed = Array.from({ length: 30 }, (_, i) => `ws_${randomBytes(6).toString("hex")}${i}`);
    const failures = await Promise.allSettled(
      doomed.map((id) =>
        writeList(db, [...workspaceWrites(db, id), keyWrite(db, first, "k1"), keyWrite(db, id, "k2")]),
      ),
    );
    for (const failure of failures) {
      expect(failure.status).toBe("rejected");
      // The cause itself, not a later statement refused because the transaction had failed.
      expect(isUniqueViolation((failure as PromiseRejectedResult).reason)).toBe(true);
    }
    const left = await db.selectFrom("workspaces").select("id").where("id", "in", doomed).execute();
    expect(left).toEqual([]);
    // Every pooled connection is usable again: none was left inside a failed transaction.
    const reads = await Promise.all(Array.from({ length: 30 }, () => findWorkspace({ db }, first)));
    expect(reads.every((w) => w?.id === first)).toBe(true);
    // Out of order, the balance row would come before its workspace: refused, nothing kept.
    const reversed = `ws_${randomBytes(6).toString("hex")}`;
    await expect(writeList(db, workspaceWrites(db, reversed).reverse())).rejects.toThrow();
    expect(await findWorkspace({ db }, reversed)).toBeNull();
  });

  it("a second copy of the store's code (the studio's Next.js bundle holds one) writes through a store the first opened, on that store's own path", async () => {
    // The server opens the store (lib/boot/runtime.ts) with its copy of lib/; the studio's bundle calls
    // the same functions from a copy of its own, whose classes are not the first copy's.
    vi.resetModules();
    const copy = {
      writes: await import("./writes"),
      dialects: await import("./dialects"),
      queue: await import("../core/runs/queue-positions"),
    };
    vi.resetModules();
    expect(copy.writes.writeList).not.toBe(writeList);
    const db = t.store.db;
    expect(copy.dialects.onPostgres(db)).toBe(testDialect() === "postgres");
    expect(copy.queue.queueOrderLock(db).map((write) => write.compile().sql)).toEqual(
      testDialect() === "postgres" ? ["select pg_advisory_xact_lock(7193522016400210001)"] : [],
    );
    const id = `ws_${randomBytes(6).toString("hex")}`;
    await copy.writes.writeList(db, [...copy.queue.queueOrderLock(db), ...workspaceWrites(db, id)]);
    expect(await findWorkspace({ db }, id)).not.toBeNull();
    // All or none there too.
    const doomed = `ws_${randomBytes(6).toString("hex")}`;
    await expect(
      copy.writes.writeList(db, [...workspaceWrites(db, doomed), keyWrite(db, "ws_missing", "k")]),
    ).rejects.toThrow();
    expect(await findWorkspace({ db }, doomed)).toBeNull();
  });

  it("an insert keeps working where its first use failed, on every connection, and after its table gains a column", async () => {
    const db = t.store.db;
    const owner = `ws_${randomBytes(6).toString("hex")}`;
    await writeList(db, workspaceWrites(db, owner));
    // Keys in an order no other insert uses: a statement text this process has not sent yet.
    const novelKeyWrite = (key: string) =>
      db.insertInto("idempotency_keys").values({
        key,
        request_hash: "h",
        workspace_id: owner,
        resource_id: "r",
        endpoint: "novel",
        created_at: new Date().toISOString(),
      });
    // Its first use comes after a write that fails: refused with the transaction, not left half-known.
    await writeList(db, [keyWrite(db, owner, "taken")]);
    await expect(writeList(db, [keyWrite(db, owner, "taken"), novelKeyWrite("first")])).rejects.toThrow();
    await writeList(db, [novelKeyWrite("second")]);
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeList(db, [novelKeyWrite(`many-${i}`)])));
    await sql`alter table idempotency_keys add column note_for_test text`.execute(db);
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => writeList(db, [novelKeyWrite(`after-${i}`)])));
    } finally {
      await sql`alter table idempotency_keys drop column note_for_test`.execute(db);
    }
    const keys = await db
      .selectFrom("idempotency_keys")
      .select("key")
      .where("workspace_id", "=", owner)
      .where("endpoint", "=", "novel")
      .execute();
    expect(keys.map((k) => k.key).sort()).toEqual(
      ["second", ...Array.from({ length: 20 }, (_, i) => [`many-${i}`, `after-${i}`]).flat()].sort(),
    );
  });

  it("writeList with reads first: the writes are made from their rows; null or a failure keeps nothing", async () => {
    const db = t.store.db;
    const id = `ws_${randomBytes(6).toString("hex")}`;
    await writeList(db, workspaceWrites(db, id));
    const named = db.selectFrom("workspaces").select("name").where("id", "=", id).compile();
    const rename = (name: string) => db.updateTable("workspaces").set({ name }).where("id", "=", id);
    const seen: unknown[][][] = [];
    // The reads' rows reach the writes, and the commit keeps them.
    expect(
      await writeList(db, {
        reads: [named],
        writes: async (answers) => {
          seen.push(answers);
          return [rename(`${(answers[0]![0] as { name: string }).name}-renamed`)];
        },
      }),
    ).toBe(true);
    expect(seen).toEqual([[[{ name: id }]]]);
    expect((await findWorkspace({ db }, id))?.name).toBe(`${id}-renamed`);
    // Nothing to write: false, and a change the reads made is rolled back.
    const renamedInRead = db.updateTable("workspaces").set({ name: "read" }).where("id", "=", id).compile();
    expect(await writeList(db, { reads: [renamedInRead], writes: async () => null })).toBe(false);
    expect((await findWorkspace({ db }, id))?.name).toBe(`${id}-renamed`);
    // A failing write keeps neither the reads' changes nor the writes before it.
    await expect(
      writeList(db, { reads: [renamedInRead], writes: async () => [rename("kept?"), keyWrite(db, "ws_missing", "k")] }),
    ).rejects.toThrow();
    expect((await findWorkspace({ db }, id))?.name).toBe(`${id}-renamed`);
    // Inside a caller's transaction it joins it: the caller's rollback takes it back.
    await expect(
      withTransaction(db, async (trx) => {
        await writeList(trx, { reads: [], writes: async () => [rename("in the caller's")] });
        expect((await findWorkspace({ db: trx }, id))?.name).toBe("in the caller's");
        throw new Error("the caller fails");
      }),
    ).rejects.toThrow("the caller fails");
    expect((await findWorkspace({ db }, id))?.name).toBe(`${id}-renamed`);
  });

  it.runIf(testDialect() === "postgres")(
    "a connection that dies while lent out, between statements, fails only its user; the store goes on",
    async () => {
      const db = t.store.db;
      await db.connection().execute(async (lent) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(lent);
        // Cut from another connection while no statement of this one runs: the lent connection
        // hears it as an 'error' event with nothing to reject (an uncaught exception, unheard).
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(db);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await expect(sql`select 1`.execute(lent)).rejects.toThrow();
      });
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(Number(rows[0]!.one)).toBe(1);
    },
  );

  it("writeList inside a transaction joins it and rolls back with it", async () => {
    const id = `ws_${randomBytes(6).toString("hex")}`;
    await expect(
      withTransaction(t.store.db, async (trx) => {
        await writeList(trx, workspaceWrites(trx, id));
        expect(await findWorkspace({ db: trx }, id)).not.toBeNull();
        throw new Error("the caller fails after the writes");
      }),
    ).rejects.toThrow("the caller fails");
    expect(await findWorkspace({ db: t.store.db }, id)).toBeNull();
  });
});

// A child process that opens the store, says "ready", waits for "go", migrates and prints the
// migrations it ran: two of them started together are two processes booting at once.
const CHILD_SCRIPT = `
const m = await import(process.env.STORE_MODULE);
const { openStore, migrateStore } = m.openStore ? m : m.default;
const store = openStore({
  databaseUrl: process.env.CHILD_DATABASE_URL || null,
  dataDir: process.env.CHILD_DATA_DIR,
  searchPath: process.env.CHILD_SEARCH_PATH || undefined,
});
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
try {
  const result = await migrateStore(store);
  process.stdout.write(JSON.stringify({ ok: true, results: result.results ?? [] }) + "\\n");
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, error: String(err && err.stack || err) }) + "\\n");
} finally {
  await store.close();
}
`;

interface ChildOutcome {
  ok: boolean;
  results?: Array<{ migrationName: string; status: string }>;
  error?: string;
}

function startMigrationChild(env: Record<string, string>): {
  ready: Promise<void>;
  go(): void;
  done: Promise<ChildOutcome>;
} {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD_SCRIPT], {
    cwd: path.resolve(__dirname, "../.."),
    env: { ...process.env, STORE_MODULE: pathToFileURL(path.join(__dirname, "store.ts")).href, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<ChildOutcome>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(last) as ChildOutcome);
      } catch {
        reject(new Error(`migration child exited with ${code}: ${stdout}\n${stderr}`));
      }
    });
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}

async function createSchema(databaseUrl: string): Promise<string> {
  const schema = `t_${randomBytes(8).toString("hex")}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await client.end();
  }
  return schema;
}

describe(`concurrent migrations (${testDialect()})`, () => {
  const databaseUrl = testDatabaseUrl();
  const dataDirs: string[] = [];
  const schemas: string[] = [];
  const stores: Store[] = [];

  /** An empty store location: a temp dir, plus an empty schema on PostgreSQL. */
  async function emptyLocation(): Promise<{ dataDir: string; schema: string | undefined }> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
    dataDirs.push(dataDir);
    const schema = databaseUrl ? await createSchema(databaseUrl) : undefined;
    if (schema) schemas.push(schema);
    return { dataDir, schema };
  }

  function openAt(location: { dataDir: string; schema: string | undefined }): Store {
    const store = openStore({ databaseUrl, dataDir: location.dataDir, searchPath: location.schema });
    stores.push(store);
    return store;
  }

  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    if (databaseUrl && schemas.length > 0) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    }
  });

  it("two processes migrating one empty store at once both succeed, and each migration runs once", async () => {
    const location = await emptyLocation();
    const env = {
      CHILD_DATABASE_URL: databaseUrl ?? "",
      CHILD_DATA_DIR: location.dataDir,
      CHILD_SEARCH_PATH: location.schema ?? "",
    };
    const children = [startMigrationChild(env), startMigrationChild(env)];
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const outcomes = await Promise.all(children.map((c) => c.done));
    for (const outcome of outcomes) expect(outcome.error).toBeUndefined();
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const ran = outcomes.flatMap((o) => o.results ?? []);
    expect(ran.every((r) => r.status === "Success")).toBe(true);
    // Between them they ran every migration exactly once.
    expect(ran.map((r) => r.migrationName).sort()).toEqual([...MIGRATION_NAMES].sort());

    const store = openAt(location);
    expect(await executedMigrations(store)).toEqual([...MIGRATION_NAMES].sort());
    const workspace = await createWorkspace({ db: store.db }, { name: "after race" });
    expect(await findWorkspace({ db: store.db }, workspace.id)).toEqual(workspace);
  });

  // better-sqlite3 is synchronous: two connections in one process cannot wait for each other's
  // write lock, so on SQLite the race is only meaningful between processes (above).
  it.skipIf(testDialect() === "sqlite")("two stores in one process migrating at once both succeed", async () => {
    const location = await emptyLocation();
    const a = openAt(location);
    const b = openAt(location);
    const [ra, rb] = await Promise.all([migrateStore(a), migrateStore(b)]);
    const ran = [...(ra.results ?? []), ...(rb.results ?? [])];
    expect(ran.every((r) => r.status === "Success")).toBe(true);
    expect(ran.map((r) => r.migrationName).sort()).toEqual([...MIGRATION_NAMES].sort());
    expect(await executedMigrations(a)).toEqual([...MIGRATION_NAMES].sort());
    const workspace = await createWorkspace({ db: a.db }, { name: "after race" });
    expect(await findWorkspace({ db: b.db }, workspace.id)).toEqual(workspace);
  });
});

// Another process holding SQLite's write lock: our writes wait for it without freezing the
// process (timers and other requests go on), and go through once it is released.
describe.runIf(testDialect() === "sqlite")("a write waiting for another connection's lock (sqlite)", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("opening waits for a process that holds the write lock while the file is not yet in WAL mode", async () => {
    // SQLite refuses to change the journal mode at once (SQLITE_BUSY, no busy handler) while
    // another connection writes: two processes starting on a new file meet exactly this.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-open-"));
    try {
      const file = path.join(dataDir, "atelier.sqlite");
      const holder = spawn(
        process.execPath,
        [
          "-e",
          `const D = require(${JSON.stringify(require.resolve("better-sqlite3"))});
           const db = new D(${JSON.stringify(file)}, { nativeBinding: ${JSON.stringify(sqliteNativeBinding())} });
           db.exec("create table t(x)"); db.exec("begin immediate"); db.exec("insert into t values (1)");
           console.log("locked"); setTimeout(() => { db.exec("commit"); db.close(); }, 400);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      const store = openStore({ databaseUrl: null, dataDir });
      try {
        expect((await migrateStore(store)).error).toBeUndefined();
      } finally {
        await store.close();
        await exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a transaction and a single statement wait with the event loop free, then commit", async () => {
    const holder = openSqliteDatabase(path.join(t.dataDir, "atelier.sqlite"));
    holder.exec("BEGIN EXCLUSIVE");
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const inTransaction = withTransaction(t.store.db, (trx) => createWorkspace({ db: trx }, { name: "waited" }));
      const single = t.store.db
        .updateTable("workspaces")
        .set({ name: "renamed" })
        .where("name", "=", "nobody")
        .execute();
      // The writes are waiting: the ticker runs many times before the lock is released.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ticksWhileLocked = ticks;
      expect(ticksWhileLocked).toBeGreaterThan(5);
      holder.exec("ROLLBACK");
      const workspace = await inTransaction;
      await single;
      expect(await findWorkspace({ db: t.store.db }, workspace.id)).toEqual(workspace);
    } finally {
      clearInterval(ticker);
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
    }
  });
});
