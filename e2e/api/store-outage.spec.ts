// A store that cannot be reached is an outage, not an internal error: the API answers 503
// service_unavailable with Retry-After (docs/api.md, "Errors": clients retry after it), the server
// stays up, and once the store is back the same requests succeed. On PostgreSQL the server
// reaches its database through a TCP proxy this test stops and starts (connections refused and
// cut, as in a restart); on SQLite another connection holds the file's write lock past the
// busy timeout. This file starts servers of its own (ports 3371–3372), not from playwright.config.ts.
import { execFileSync } from "node:child_process";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { expect, test, type APIResponse } from "./fixtures";
import { startTcpProxy, viaProxy, type TcpProxy } from "../../lib/store/testing/test-proxy";
import { expectError } from "./helpers";
import {
  expectLedgerIdentity,
  newTenant,
  settle,
  startOwnServer,
  type Tenant,
  type WorkerProcess,
} from "./runs-helpers";
import { PG_SERVER_URL, pgUrl, serverSpec, type ServerSpec } from "./servers";

const RUN = { model: "atelier/gradient", input: { prompt: "lighthouse in fog" } };
/** Retry-After of a 503 for an unreachable store (lib/primitives/errors.ts). */
const RETRY_AFTER = "2";

function spec(name: string, port: number, pgDatabase: string | null): ServerSpec {
  return serverSpec(name, port, 100_000, 100_000, { pgDatabase, workers: 1 });
}

/** 503 service_unavailable in the API's error envelope, with Retry-After, not 500 internal_error. */
async function expectStoreUnavailable(res: APIResponse): Promise<void> {
  await expectError(res, 503, "service_unavailable", { message: /cannot reach its database/ });
  expect(res.headers()["retry-after"]).toBe(RETRY_AFTER);
}

/** The process is alive and answers (the public catalog reads model pauses from the store, so it may say 503). */
async function stillUp(s: ServerSpec, server: WorkerProcess): Promise<void> {
  expect(server.child.exitCode, `the server exited: ${server.stderr()}`).toBeNull();
  expect(server.child.signalCode).toBeNull();
  const res = await fetch(`${s.baseURL}/v1/public/models`);
  expect([200, 503]).toContain(res.status);
}

function psql(...commands: string[]): void {
  execFileSync(
    "psql",
    [`${PG_SERVER_URL}/postgres`, "-q", "-v", "ON_ERROR_STOP=1", ...commands.flatMap((c) => ["-c", c])],
    {
      env: { ...process.env, PGOPTIONS: "--client-min-messages=warning" },
    },
  );
}

test.describe("[postgres] the database stops and comes back", () => {
  const s = spec("outage-postgres", 3371, "atelier_e2e_outage");
  let server: WorkerProcess | null = null;
  let proxy: TcpProxy | null = null;

  test.beforeAll(() => {
    execFileSync("rm", ["-rf", s.dataDir]);
    psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`, `CREATE DATABASE ${s.pgDatabase}`);
  });
  test.afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await proxy?.close();
    psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`);
  });

  test("503 service_unavailable with Retry-After while it is unreachable, the server stays up, and every request works again once it is back", async ({
    request,
  }) => {
    test.setTimeout(180_000);
    const target = new URL(PG_SERVER_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startOwnServer(s, { DATABASE_URL: viaProxy(pgUrl(s.pgDatabase!), proxy) });
    // The admin CLI reaches the database directly (storeEnv), the server through the proxy.
    const tenant: Tenant = newTenant(request, s, "5", "outage");
    const { api } = tenant;
    const { gen: before } = await api.create(RUN);
    expect((await api.waitFinal(before.id)).status).toBe("succeeded");

    // PostgreSQL goes away: new connections are refused and open ones are cut.
    await proxy.stop();
    await expectStoreUnavailable(await api.get("/v1/credits"));
    await expectStoreUnavailable(await api.get(`/v1/generations/${before.id}`));
    await expectStoreUnavailable(await api.post("/v1/generations", RUN, { "idempotency-key": "outage-retry-1" }));
    await expectStoreUnavailable(await api.get("/v1/generations"));
    await stillUp(s, server);

    // It is back: the server reconnects by itself; the client's retry (same key) starts the run once.
    await proxy.start();
    const deadline = Date.now() + 30_000;
    while ((await api.get("/v1/credits")).status() !== 200) {
      expect(Date.now(), "the API did not recover within 30 s of the database").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { gen: retried } = await api.create(RUN, { "idempotency-key": "outage-retry-1" });
    const { gen: after } = await api.create(RUN);
    const runs = await settle(api, 60);
    expect(runs.map((r) => r.id).sort()).toEqual([before.id, retried.id, after.id].sort());
    for (const run of runs) expect(run.status).toBe("succeeded");
    await expectLedgerIdentity(tenant);
    await stillUp(s, server);
  });
});

test.describe("[sqlite] another connection holds the write lock past the busy timeout", () => {
  const s = spec("outage-sqlite", 3372, null);
  let server: WorkerProcess | null = null;
  let holder: SqliteDatabase.Database | null = null;

  test.beforeAll(() => {
    execFileSync("rm", ["-rf", s.dataDir]);
  });
  test.afterAll(async () => {
    holder?.close();
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  });

  test("a write answers 503 service_unavailable with Retry-After, and works once the lock is released", async ({
    request,
  }) => {
    // The server waits out SQLite's busy timeout (10 s) before it gives up on the lock.
    test.setTimeout(180_000);
    server = await startOwnServer(s, { WORKER_CONCURRENCY: "0" });
    const tenant = newTenant(request, s, "5", "locked");
    const { api } = tenant;

    // The store's file (lib/store/store.ts): another program takes the write lock and keeps it.
    holder = new SqliteDatabase(path.join(s.dataDir, "atelier.sqlite"));
    holder.exec("BEGIN EXCLUSIVE");
    await expectStoreUnavailable(await api.post("/v1/generations", RUN, { "idempotency-key": "locked-retry-1" }));
    await stillUp(s, server);

    holder.exec("ROLLBACK");
    holder.close();
    holder = null;
    const { gen } = await api.create(RUN, { "idempotency-key": "locked-retry-1" });
    expect(gen.status).toBe("queued");
    expect(await api.listAll()).toHaveLength(1);
    await expectLedgerIdentity(tenant);
  });
});
