// Which errors mean "the store cannot be reached", checked on real errors from real drivers: a
// PostgreSQL port nobody listens on, a backend the server terminates, a SQLite file another
// connection holds locked past the busy timeout. And the pool survives its idle connections
// being cut. The PostgreSQL parts run when STORE_TEST_DATABASE_URL is set.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ApiError, toErrorResponse } from "./errors";
import { openSqliteDatabase } from "../store/sqlite-binding";
import { openStore } from "../store/store";
import { testDatabaseUrl } from "../store/testing/test-store";
import { storeUnreachable } from "./unreachable";

const databaseUrl = testDatabaseUrl();

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago, for us only). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function thrownBy(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected it to throw");
}

function thrownBySync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected it to throw");
}

/** Waits for `condition`, failing after a generous deadline (no timing is asserted). */
async function until(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function uniqueAppName(label: string): string {
  return `atelier-test-${label}-${randomBytes(6).toString("hex")}`;
}

async function terminateBackends(applicationName: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl! });
  await admin.connect();
  try {
    // Only our own connections: the application_name is unique to this test. The timeout makes
    // the call return once they are really gone.
    const { rows } = await admin.query<{ ok: boolean }>(
      "select pg_terminate_backend(pid, 5000) as ok from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()",
      [applicationName],
    );
    return rows.filter((r) => r.ok).length;
  } finally {
    await admin.end();
  }
}

describe("storeUnreachable: outages", () => {
  it("PostgreSQL refusing connections (nothing listens): a client, and a query through the store's pool", async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const client = new pg.Client({ connectionString: url });
    const refused = await thrownBy(() => client.connect());
    expect((refused as { code?: string }).code).toBe("ECONNREFUSED");
    expect(storeUnreachable(refused)).toBe(true);

    const store = openStore({ databaseUrl: url, dataDir: os.tmpdir() });
    try {
      const viaPool = await thrownBy(() => sql`select 1`.execute(store.db));
      expect(storeUnreachable(viaPool)).toBe(true);

      // The API's answer for it: 503 service_unavailable with Retry-After, not 500.
      const answer = toErrorResponse(viaPool, "req_outage", "http://localhost:3000");
      expect(answer).toMatchObject({
        status: 503,
        unexpected: false,
        storeUnreachable: true,
        headers: { "Retry-After": "2" },
      });
      expect(answer.body.error).toMatchObject({
        type: "api_error",
        code: "service_unavailable",
        param: null,
        request_id: "req_outage",
      });
      expect(answer.body.error.message).toMatch(/cannot reach its database/);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!databaseUrl)(
    "a PostgreSQL backend terminated by the server: the client's error events, the next query, a query in flight",
    async () => {
      const applicationName = uniqueAppName("victim");
      const idle = new pg.Client({ connectionString: databaseUrl!, application_name: applicationName });
      const emitted: unknown[] = [];
      idle.on("error", (err) => emitted.push(err));
      await idle.connect();
      const busy = new pg.Client({ connectionString: databaseUrl!, application_name: applicationName });
      busy.on("error", (err) => emitted.push(err));
      await busy.connect();
      const inFlight = thrownBy(() => busy.query("select pg_sleep(30)"));
      await until(async () => {
        const admin = new pg.Client({ connectionString: databaseUrl! });
        await admin.connect();
        try {
          const { rows } = await admin.query(
            "select 1 from pg_stat_activity where application_name = $1 and query ilike '%pg_sleep%' and state = 'active'",
            [applicationName],
          );
          return rows.length === 1;
        } finally {
          await admin.end();
        }
      }, "the sleeping query to start");

      expect(await terminateBackends(applicationName)).toBe(2);
      const killedQuery = await inFlight;
      expect((killedQuery as { code?: string }).code).toBe("57P01");
      expect(storeUnreachable(killedQuery)).toBe(true);

      await until(() => emitted.length >= 2, "the clients to report the cut");
      for (const err of emitted) expect(storeUnreachable(err), String(err)).toBe(true);
      const afterwards = await thrownBy(() => idle.query("select 1"));
      expect(storeUnreachable(afterwards), String(afterwards)).toBe(true);
    },
  );

  it("a SQLite file locked by another connection past the busy timeout (SQLITE_BUSY)", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-locked-"));
    const file = path.join(dir, "locked.sqlite");
    const holder = openSqliteDatabase(file);
    const writer = openSqliteDatabase(file, { timeout: 50 });
    try {
      holder.pragma("journal_mode = WAL");
      holder.exec("create table t (x integer)");
      holder.exec("begin exclusive");
      holder.exec("insert into t values (1)");
      let busy: unknown = null;
      try {
        writer.exec("begin immediate");
      } catch (err) {
        busy = err;
      }
      expect((busy as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
      expect(storeUnreachable(busy)).toBe(true);
      expect(toErrorResponse(busy, "req_busy", "http://localhost:3000")).toMatchObject({
        status: 503,
        headers: { "Retry-After": "2" },
      });
      holder.exec("rollback");
    } finally {
      writer.close();
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("looks through wrappers: a cause chain and an AggregateError", async () => {
    const refused = await thrownBy(() =>
      new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:1/test" }).connect(),
    );
    expect(
      storeUnreachable(
        new Error("creating the run failed", { cause: new Error("in the transaction", { cause: refused }) }),
      ),
    ).toBe(true);
    expect(storeUnreachable(new AggregateError([new Error("ipv6"), refused], "all attempts failed"))).toBe(true);
  });
});

describe("storeUnreachable: everything else is not an outage", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-not-outage-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite constraint and syntax errors, our own errors, bugs, and thrown non-errors", () => {
    const db = openSqliteDatabase(path.join(dir, "plain.sqlite"));
    try {
      db.exec("create table t (x integer primary key)");
      db.exec("insert into t values (1)");
      const duplicate = thrownBySync(() => db.exec("insert into t values (1)"));
      const syntax = thrownBySync(() => db.exec("selec nothing"));
      for (const err of [
        duplicate,
        syntax,
        new ApiError("invalid_parameter", "Bad width.", { param: "input.width" }),
        new TypeError("x is undefined"),
        new Error("Connection pool of the remote provider is full"),
        { code: "ECONNRESET" },
        "ECONNRESET",
        null,
      ]) {
        expect(storeUnreachable(err), String(err)).toBe(false);
      }
      expect(toErrorResponse(duplicate, "req_bug", "http://localhost:3000")).toMatchObject({
        status: 500,
        unexpected: true,
        storeUnreachable: false,
      });
    } finally {
      db.close();
    }
  });

  it.skipIf(!databaseUrl)("PostgreSQL syntax and constraint errors", async () => {
    const client = new pg.Client({ connectionString: databaseUrl! });
    await client.connect();
    try {
      const syntax = await thrownBy(() => client.query("selec 1"));
      expect((syntax as { code?: string }).code).toBe("42601");
      expect(storeUnreachable(syntax)).toBe(false);
      const division = await thrownBy(() => client.query("select 1 / 0"));
      expect(storeUnreachable(division)).toBe(false);
    } finally {
      await client.end();
    }
  });
});

describe.skipIf(!databaseUrl)("the store's pool when PostgreSQL cuts its idle connections", () => {
  it("reports them at warn (no uncaught exception) and the next query opens a new connection", async () => {
    const applicationName = uniqueAppName("pool");
    const warned: unknown[] = [];
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    const store = openStore({
      databaseUrl: databaseUrl!,
      dataDir: os.tmpdir(),
      applicationName,
      logger: { warn: (...args: unknown[]) => void warned.push(args) } as never,
    });
    try {
      // Three connections at once, then all idle in the pool.
      await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(store.db)));
      const killed = await terminateBackends(applicationName);
      expect(killed).toBe(3);
      await until(() => warned.length >= killed || uncaught.length > 0, "the pool to report its dropped connections");
      expect(uncaught).toEqual([]);

      const { rows } = await sql<{ answer: number }>`select 42 as answer`.execute(store.db);
      expect(rows).toEqual([{ answer: 42 }]);
    } finally {
      process.off("uncaughtException", onUncaught);
      await store.close();
    }
  });
});
