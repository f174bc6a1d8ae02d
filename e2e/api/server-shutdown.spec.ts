// The server process itself (server.ts: API, studio and two worker slots) stopped with SIGTERM
// in the middle of its queue: it exits 0, leaves no run "running" for a lease to lapse, and a
// restarted server finishes every run, each charged once. This file starts and stops servers of
// its own (not from playwright.config.ts), one store at a time.
import { execFileSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { spawnRepoProcess } from "../server-processes";
import { expect, test } from "./fixtures";
import { expectLedgerIdentity, newTenant, settle, startOwnServer, type WorkerProcess } from "./runs-helpers";
import { PG_SERVER_URL, REPO_ROOT, serverSpec, type ServerSpec } from "./servers";

const HEAVY = {
  model: "atelier/gradient",
  input: { prompt: "storm over the bay at night", num_images: 4, resolution: "hd" },
};

function spec(name: string, port: number, pgDatabase: string | null): ServerSpec {
  return serverSpec(name, port, 100_000, 100_000, { pgDatabase, workers: 2 });
}

// Ports of their own: 3352 is the webhook delivery suite's receiver (webhooks-helpers.ts), and spec files run in parallel.
const STORES = [spec("shutdown-sqlite", 3362, null), spec("shutdown-postgres", 3363, "atelier_e2e_shutdown")];

for (const s of STORES) {
  test.describe(`[${s.pgDatabase ? "postgres" : "sqlite"}] server shutdown`, () => {
    let server: WorkerProcess | null = null;
    test.beforeAll(() => {
      execFileSync("rm", ["-rf", s.dataDir]);
      if (s.pgDatabase) {
        execFileSync(
          "psql",
          [
            `${PG_SERVER_URL}/postgres`,
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            `DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`,
            "-c",
            `CREATE DATABASE ${s.pgDatabase}`,
          ],
          {
            env: { ...process.env, PGOPTIONS: "--client-min-messages=warning" },
          },
        );
      }
    });
    test.afterEach(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill("SIGKILL");
        await server.exited;
      }
      server = null;
    });

    test("SIGTERM mid-queue: exit 0, no run left running, a restarted server finishes each run once", async ({
      request,
    }) => {
      test.setTimeout(240_000);
      server = await startOwnServer(s, { WORKER_CONCURRENCY: "2" });
      const tenant = newTenant(request, s, "5", "shutdown");
      const { api } = tenant;
      for (let i = 0; i < 12; i++) await api.create({ ...HEAVY, input: { ...HEAVY.input, seed: 300 + i } });
      const deadline = Date.now() + 30_000;
      while ((await api.list({ status: "running,succeeded", limit: "1" })).data.length === 0) {
        expect(Date.now(), "no run started within 30 s").toBeLessThan(deadline);
      }

      server.child.kill("SIGTERM");
      const exit = await server.exited;
      expect(exit, server.stderr()).toEqual({ code: 0, signal: null });

      // Looked at by a server that runs nothing, so no new claim muddles the picture.
      server = await startOwnServer(s, { WORKER_CONCURRENCY: "0" });
      // Nothing was left for a lease to lapse: every run is queued again or ended, and a run
      // given back reads as queued (no provider, no start time).
      const after = await api.listAll();
      expect(after).toHaveLength(12);
      expect(after.filter((run) => run.status === "running")).toEqual([]);
      for (const run of after.filter((r) => r.status === "queued"))
        expect(run).toMatchObject({ provider: null, started_at: null });

      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
      server = await startOwnServer(s, { WORKER_CONCURRENCY: "2" });
      const runs = await settle(api, 90);
      for (const run of runs) expect(run.status).toBe("succeeded");
      expect(await api.credits()).toEqual({ available: 5_000_000 - 12 * 16_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });
  });
}

test("a server whose port is taken exits 1 naming the port, instead of running the queue without it", async () => {
  test.setTimeout(60_000);
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(3364, resolve));
  try {
    const dataDir = path.join(REPO_ROOT, ".data-e2e", "port-taken");
    execFileSync("rm", ["-rf", dataDir]);
    const server = spawnRepoProcess(["server.ts"], {
      NODE_ENV: "production",
      PORT: "3364",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      STUDIO_START: "on-demand",
      LOG_LEVEL: "silent",
    });
    expect(await server.exited, server.stderr()).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain("Atelier cannot start: port 3364 is in use by another program");
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});
