import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Migrator, sql, type Migration } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createReadiness, readinessChecker, schemaMismatch } from "./readiness";
import { MIGRATIONS } from "./migrations";
import { openStore, type Store } from "./store";
import { openTestStore, testDatabaseUrl, testDialect } from "./testing/test-store";

const SHIPPED = Object.keys(MIGRATIONS);

/** A store of this run's dialect that nobody migrated: a new SQLite file, or a new PostgreSQL schema. */
async function freshUnmigratedStore(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
  const databaseUrl = testDatabaseUrl();
  if (!databaseUrl) {
    const store = openStore({ databaseUrl: null, dataDir });
    return { store, cleanup: async () => (await store.close(), rmSync(dataDir, { recursive: true, force: true })) };
  }
  const schema = `t_${randomBytes(8).toString("hex")}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  await admin(`CREATE SCHEMA "${schema}"`);
  const store = openStore({ databaseUrl, dataDir, searchPath: schema });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Migrates `store` up to and including `last` only, as an older version of Atelier would have. */
async function migrateUpTo(store: Store, last: string): Promise<void> {
  const upTo: Record<string, Migration> = {};
  for (const name of SHIPPED) {
    upTo[name] = MIGRATIONS[name]!;
    if (name === last) break;
  }
  // As migrateStore does: on PostgreSQL, Kysely's table in the search_path's schema.
  const migrationTableSchema =
    store.dialect === "postgres"
      ? ((await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema ??
        undefined)
      : undefined;
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => upTo }, migrationTableSchema });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
}

/** A port on 127.0.0.1 nothing listens on (taken, then freed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe(`readiness (${testDialect()})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("is ready on a live, migrated store: the store answers and every shipped migration is applied", async () => {
    const t = await openTestStore();
    cleanups.push(() => t.cleanup());
    expect(await readinessChecker({ db: t.store.db })()).toEqual({
      ready: true,
      checks: { store: "ok", schema: "ok" },
      errors: {},
    });
  });

  it("names the store when it was closed, and skips the schema", async () => {
    const t = await openTestStore();
    cleanups.push(() => t.cleanup().catch(() => undefined));
    await t.store.close();
    const report = await readinessChecker({ db: t.store.db })();
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual({ store: "failed", schema: "skipped" });
    expect(report.errors.store).toMatch(/^the store cannot be reached: /);
    expect(Object.keys(report.errors)).toEqual(["store"]);
  });

  it("names the store when PostgreSQL is not listening (connection refused)", async () => {
    const port = await deadPort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
    const store = openStore({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing`, dataDir });
    cleanups.push(async () => (await store.close(), rmSync(dataDir, { recursive: true, force: true })));
    const report = await readinessChecker({ db: store.db })();
    expect(report).toMatchObject({ ready: false, checks: { store: "failed", schema: "skipped" } });
    expect(report.errors.store).toMatch(/ECONNREFUSED/);
  });

  it("names the store when it accepts connections but never answers, after the timeout", async () => {
    // A server that takes the connection and says nothing: the PostgreSQL handshake never ends.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
    const store = openStore({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing`, dataDir });
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await store.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    });
    const check = readinessChecker({ db: store.db, timeoutMs: 200 });
    const report = await check();
    expect(report).toMatchObject({ ready: false, checks: { store: "failed", schema: "skipped" } });
    expect(report.errors.store).toBe("the store cannot be reached: no answer within 200 ms");
    // Queries still hanging are not piled up without end: past a few, a check fails at once.
    await check();
    await check();
    expect((await check()).errors.store).toMatch(/earlier queries have had no answer/);
  });

  it("names the schema on a store nobody migrated", async () => {
    const fresh = await freshUnmigratedStore();
    cleanups.push(fresh.cleanup);
    const report = await readinessChecker({ db: fresh.store.db })();
    expect(report).toMatchObject({ ready: false, checks: { store: "ok", schema: "failed" } });
    expect(report.errors.schema).toMatch(
      /^the schema is not current: the store has no migrations applied \(it was never migrated\)/,
    );
    expect(Object.keys(report.errors)).toEqual(["schema"]);
  });

  it("names the schema and the missing migrations on a store an older version migrated", async () => {
    const fresh = await freshUnmigratedStore();
    cleanups.push(fresh.cleanup);
    const missing = SHIPPED.slice(-2);
    await migrateUpTo(fresh.store, SHIPPED.at(-3)!);
    const report = await readinessChecker({ db: fresh.store.db })();
    expect(report).toMatchObject({ ready: false, checks: { store: "ok", schema: "failed" } });
    expect(report.errors.schema).toContain(`2 migration(s) this code ships are not applied: ${missing.join(", ")}`);
    // Once migrated, it is ready.
    await migrateUpTo(fresh.store, SHIPPED.at(-1)!);
    expect((await readinessChecker({ db: fresh.store.db })()).ready).toBe(true);
    // A store a newer version migrated has one this code does not know.
    expect(
      (await readinessChecker({ db: fresh.store.db, migrations: SHIPPED.slice(0, -1) })()).errors.schema,
    ).toContain(`the store has migration(s) this code does not ship: ${SHIPPED.at(-1)}`);
  });

  it("runs a bucket check when one is given, naming it when it fails", async () => {
    const t = await openTestStore();
    cleanups.push(() => t.cleanup());
    expect((await readinessChecker({ db: t.store.db, bucket: async () => undefined })()).checks).toEqual({
      store: "ok",
      schema: "ok",
      bucket: "ok",
    });
    const failing = await readinessChecker({
      db: t.store.db,
      bucket: () => Promise.reject(new Error("403 AccessDenied")),
    })();
    expect(failing).toEqual({
      ready: false,
      checks: { store: "ok", schema: "ok", bucket: "failed" },
      errors: { bucket: "the bucket cannot be reached: 403 AccessDenied" },
    });
  });

  it("keeps a result for cacheMs, shares a check in flight, and checks again after", async () => {
    const t = await openTestStore();
    cleanups.push(() => t.cleanup().catch(() => undefined));
    let clock = 1_000_000;
    const readiness = createReadiness({ db: t.store.db, cacheMs: 1_000, now: () => clock });
    const [a, b] = await Promise.all([readiness.check(), readiness.check()]);
    expect(a).toBe(b);
    expect(a.ready).toBe(true);
    await t.store.close();
    clock += 999;
    expect(await readiness.check()).toBe(a);
    clock += 1;
    expect(await readiness.check()).toMatchObject({ ready: false, checks: { store: "failed" } });
  });
});

describe("schemaMismatch", () => {
  it("is null when the applied migrations are exactly the shipped ones, in any order", () => {
    expect(schemaMismatch(["002", "001"], ["001", "002"])).toBeNull();
    expect(schemaMismatch([], ["001"])).toMatch(/never migrated/);
    expect(schemaMismatch(["001"], ["001", "002"])).toMatch(/not applied: 002/);
    expect(schemaMismatch(["001", "003"], ["001"])).toMatch(/does not ship: 003/);
  });
});
