// The LISTEN connection that carries run signals between processes survives the database: cut
// (pg_terminate_backend on our own connection only, found by its unique application_name), it
// reconnects, signals flow again, and it catches up on what it missed while down: a run queued
// elsewhere is claimed by this process's engine, a run that ended elsewhere wakes its waiter,
// and a signal this process gave meanwhile reaches the other one. PostgreSQL only
// (STORE_TEST_DATABASE_URL); the fallback polls are put to sleep so only the bridge can deliver.
import { randomBytes } from "node:crypto";
import pg from "pg";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Ctx } from "../core/context";
import { createGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import { openStore, sqliteFileIn, type Store } from "../store/store";
import { startTcpProxy, viaProxy, type TcpProxy } from "../store/testing/test-proxy";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { claimNextRun } from "./claim";
import { connectCrossProcessSignals, type CrossProcessSignals } from "./cross-process";
import { startEngine, type Engine } from "./engine";
import { finishRun } from "./finish";
import { createRunSignals, type RunSignals } from "./run-signals";

const silent = pino({ level: "silent" });
/** Longer than any test: only a signal (or the catch-up) can end such a wait in time. */
const FOREVER_MS = 600_000;

/** Tracks whether a promise has settled, so a test can say "not yet" without any clock. */
function track<T>(promise: Promise<T>): { readonly settled: boolean; promise: Promise<T> } {
  const state = { settled: false, promise };
  void promise.then(() => {
    state.settled = true;
  });
  return state;
}

/** Waits for `condition`, failing after a generous deadline (no timing is asserted). */
async function until(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Stops an engine whose idle poll sleeps: stop() again wakes a sleeper that went to sleep after the first. */
async function stopEngine(engine: Engine): Promise<void> {
  let stopped = false;
  const stopping = engine.stop().then(() => {
    stopped = true;
  });
  while (!stopped) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    void engine.stop();
  }
  await stopping;
}

function uniqueAppName(label: string): string {
  return `atelier-test-${label}-${randomBytes(6).toString("hex")}`;
}

describe.skipIf(testDialect() !== "postgres")(
  "cross-process signals when the LISTEN connection is cut (postgres)",
  () => {
    let t: TestStore;
    let databaseUrl: string;
    /** The other "process": its own pool on the same database and schema. */
    let elsewhere: Store;
    let admin: pg.Client;
    const closers: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      t = await openTestStore();
      databaseUrl = t.postgres!.databaseUrl;
      elsewhere = openStore({ databaseUrl, dataDir: t.dataDir, searchPath: t.postgres!.schema });
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
    });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });
    afterAll(async () => {
      await admin?.end();
      await elsewhere?.close();
      await t?.cleanup();
    });

    // The application_name is unique to one bridge's LISTEN connection (its store pool has
    // another), so these queries see and cut that connection only, never another test's. Its
    // last query is LISTEN, or a NOTIFY it sent since.

    /** The live LISTEN connections of a bridge: its backends that have run LISTEN and sit idle. */
    async function listeners(applicationName: string): Promise<number[]> {
      const { rows } = await admin.query<{ pid: number }>(
        "select pid from pg_stat_activity where application_name = $1 and (query ilike 'LISTEN%' or query ilike '%pg_notify%') and state = 'idle'",
        [applicationName],
      );
      return rows.map((r) => r.pid);
    }

    /** Every backend of this application_name, whatever it is doing. */
    async function connections(applicationName: string): Promise<number> {
      const { rows } = await admin.query("select pid from pg_stat_activity where application_name = $1", [
        applicationName,
      ]);
      return rows.length;
    }

    /** Cuts a bridge's LISTEN connection, and waits (up to 5 s) until its backend is gone. */
    async function cutListener(applicationName: string): Promise<number> {
      const { rows } = await admin.query<{ ok: boolean }>(
        "select pg_terminate_backend(pid, 5000) as ok from pg_stat_activity where application_name = $1 and (query ilike 'LISTEN%' or query ilike '%pg_notify%')",
        [applicationName],
      );
      return rows.filter((r) => r.ok).length;
    }

    async function bridge(
      store: Store,
      url: string,
      signals: RunSignals,
      applicationName: string,
    ): Promise<CrossProcessSignals> {
      const connected = await connectCrossProcessSignals(store, url, signals, silent, {
        pollMs: FOREVER_MS,
        applicationName,
      });
      closers.push(() => connected.close());
      return connected;
    }

    /**
     * Stops an engine whose idle poll sleeps through the test. A slot that was claiming when stop()
     * woke the sleepers goes to sleep afterwards (for idlePollMs): stop() again wakes it.
     */
    function ctxWith(store: Store, workspaceId: string, signals: RunSignals): Ctx {
      const ctx = testCtx({ store, dataDir: t.dataDir }, workspaceId);
      return { ...ctx, services: { ...ctx.services, signals } };
    }

    it("reconnects after pg_terminate_backend, and a signal sent afterwards arrives", async () => {
      const appHere = uniqueAppName("here");
      const here = createRunSignals();
      const there = createRunSignals();
      await bridge(t.store, databaseUrl, here, appHere);
      await bridge(elsewhere, databaseUrl, there, uniqueAppName("there"));
      const [before] = await listeners(appHere);
      expect(before).toBeTypeOf("number");

      expect(await cutListener(appHere)).toBe(1);
      await until(async () => (await listeners(appHere)).some((pid) => pid !== before), "a new LISTEN connection");

      const finished = here.waitForFinish("gen_after_reconnect", FOREVER_MS);
      there.runFinished("gen_after_reconnect");
      await finished;
      const queued = new Promise<void>((resolve) => {
        const off = here.onQueued(() => {
          off();
          resolve();
        });
      });
      there.runQueued();
      await queued;
    });

    it("catches up on what it missed while down: a run queued elsewhere is claimed, a run ended elsewhere wakes its waiter, a held signal is sent", async () => {
      // "Here" reaches PostgreSQL for its LISTEN connection through a proxy the test can hold shut,
      // so the outage lasts while the other process acts; its store pool is direct.
      const target = new URL(databaseUrl);
      const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      closers.push(() => proxy.close());
      const appHere = uniqueAppName("here");
      const here = createRunSignals();
      const there = createRunSignals();
      // A real logger whose lines the test reads: "here" says when it noticed the cut.
      const logged: string[] = [];
      const hereLogger = pino({ level: "info" }, { write: (line: string) => void logged.push(line) });
      const connected = await connectCrossProcessSignals(t.store, viaProxy(databaseUrl, proxy), here, hereLogger, {
        pollMs: FOREVER_MS,
        applicationName: appHere,
      });
      closers.push(() => connected.close());
      await bridge(elsewhere, databaseUrl, there, uniqueAppName("there"));

      const workspaceId = (await createWorkspace({ db: t.store.db }, { name: "catch-up", creditMicros: 1_000_000 })).id;
      const ctxHere = ctxWith(t.store, workspaceId, here);
      const ctxThere = ctxWith(elsewhere, workspaceId, there);

      // Run A: started by the other process, which holds it.
      const { generation: a } = await createGeneration(ctxThere, {
        model: "atelier/gradient",
        input: { prompt: "ends elsewhere" },
      });
      const claimed = await claimNextRun(elsewhere.db, "postgres", { owner: "elsewhere", leaseMs: FOREVER_MS });
      expect(claimed?.id).toBe(a.id);
      // This process's engine: it claims only when woken (its idle poll sleeps through the test).
      const engine: Engine = startEngine({
        db: t.store.db,
        dialect: "postgres",
        services: ctxHere.services,
        logger: silent,
        concurrency: 1,
        idlePollMs: FOREVER_MS,
      });
      closers.push(() => stopEngine(engine));
      let queuedHeard = 0;
      const offQueued = here.onQueued(() => queuedHeard++);
      closers.push(async () => offQueued());
      const waitA = track(here.waitForFinish(a.id, FOREVER_MS));

      // The outage: new connections refused, and our LISTEN connection cut. Once "here" has
      // noticed, it has also handled everything that came before the cut (A's queued signal).
      await proxy.stop({ cutOpenConnections: false });
      expect(await cutListener(appHere)).toBe(1);
      await until(
        () => logged.some((line) => line.includes("run signal connection lost")),
        "the bridge to notice the cut",
      );
      queuedHeard = 0;

      // Meanwhile, elsewhere: run B is queued, run A ends. Their NOTIFYs cannot reach "here".
      const { generation: b } = await createGeneration(ctxThere, {
        model: "atelier/gradient",
        input: { prompt: "queued while down" },
      });
      const waitB = here.waitForFinish(b.id, FOREVER_MS);
      expect(
        await finishRun(elsewhere.db, ctxThere.services, {
          id: a.id,
          owner: "elsewhere",
          outcome: { status: "failed", message: "ended elsewhere" },
        }),
      ).toMatchObject({ id: a.id, status: "failed" });
      there.runFinished(a.id);
      // And "here" signals something the other process waits for; it cannot be sent yet.
      const heldSignal = track(there.waitForFinish("gen_said_while_down", FOREVER_MS));
      here.runFinished("gen_said_while_down");

      // Nothing could have arrived: no wake-up, A's waiter still waits, B still queued.
      expect(queuedHeard).toBe(0);
      expect(waitA.settled).toBe(false);
      expect(
        (await t.store.db.selectFrom("generations").select("status").where("id", "=", b.id).executeTakeFirstOrThrow())
          .status,
      ).toBe("queued");

      // The database is reachable again: "here" reconnects by itself and catches up, with no new signal.
      await proxy.start();
      await waitA.promise;
      await until(() => queuedHeard > 0, "the catch-up to wake the engine");
      await waitB;
      const runB = await t.store.db
        .selectFrom("generations")
        .select("status")
        .where("id", "=", b.id)
        .executeTakeFirstOrThrow();
      expect(runB.status).toBe("succeeded");
      await heldSignal.promise;
      // One connection again: the reconnect left none behind.
      expect(await connections(appHere)).toBe(1);

      // And signals flow again both ways.
      const after = here.waitForFinish("gen_after_catch_up", FOREVER_MS);
      there.runFinished("gen_after_catch_up");
      await after;
    }, 90_000);

    it("close() while reconnecting stops for good", async () => {
      const target = new URL(databaseUrl);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      closers.push(() => proxy.close());
      const appHere = uniqueAppName("closing");
      const here = createRunSignals();
      const connected = await connectCrossProcessSignals(t.store, viaProxy(databaseUrl, proxy), here, silent, {
        pollMs: FOREVER_MS,
        applicationName: appHere,
      });
      await proxy.stop({ cutOpenConnections: false });
      expect(await cutListener(appHere)).toBe(1);
      await connected.close();
      await proxy.start();
      // A reconnect would show within the backoff's longest step (5 s); wait past it, then look.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await connections(appHere)).toBe(0);
    }, 30_000);
  },
);

// SQLite has no NOTIFY: a commit by another connection (PRAGMA data_version) wakes this
// process's idle engine, so a run queued by another process starts without waiting for the
// engine's own idle poll (asleep here for the whole test).
describe.skipIf(testDialect() !== "sqlite")("cross-process signals on SQLite", () => {
  let t: TestStore;
  let elsewhere: Store;
  beforeAll(async () => {
    t = await openTestStore();
    elsewhere = openStore({ databaseUrl: null, dataDir: t.dataDir });
  });
  afterAll(async () => {
    await elsewhere?.close();
    await t?.cleanup();
  });

  it("a run queued through another connection is claimed by this process's idle engine", async () => {
    const here = createRunSignals();
    const bridge = await connectCrossProcessSignals(t.store, null, here, silent);
    const ctx = testCtx(
      t,
      (await createWorkspace({ db: t.store.db }, { name: "sqlite-wake", creditMicros: 1_000_000 })).id,
    );
    const engine = startEngine({
      db: t.store.db,
      dialect: "sqlite",
      services: { ...ctx.services, signals: here },
      logger: silent,
      concurrency: 1,
      idlePollMs: FOREVER_MS,
    });
    try {
      // Let the engine find the queue empty and go to sleep on its idle poll.
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The other process's signals go nowhere: only the store itself can tell this one.
      const elsewhereCtx = { ...testCtx({ store: elsewhere, dataDir: t.dataDir }, ctx.workspaceId) };
      const { generation } = await createGeneration(
        { ...elsewhereCtx, services: { ...elsewhereCtx.services, signals: createRunSignals() } },
        { model: "atelier/gradient", input: { prompt: "queued elsewhere" } },
      );
      await until(
        async () =>
          (
            await t.store.db
              .selectFrom("generations")
              .select("status")
              .where("id", "=", generation.id)
              .executeTakeFirstOrThrow()
          ).status === "succeeded",
        "the idle engine to claim and run the run queued elsewhere",
      );
    } finally {
      await stopEngine(engine);
      await bridge.close();
    }
  }, 60_000);
});

// SQLite's process mesh: what the store never holds (progress) and a run's start reach the other
// processes on the file at once, over Unix sockets in a folder named after the file.
describe.skipIf(testDialect() !== "sqlite")("the process mesh on SQLite", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("carries progress, changes and finishes both ways, and stops carrying once a side leaves", async () => {
    const file = sqliteFileIn(t.dataDir);
    const here = createRunSignals();
    const there = createRunSignals();
    // Store ticks asleep: only the mesh can deliver.
    const bridgeHere = await connectCrossProcessSignals(t.store, null, here, silent, {
      pollMs: FOREVER_MS,
      sqliteFile: file,
    });
    const bridgeThere = await connectCrossProcessSignals(t.store, null, there, silent, {
      pollMs: FOREVER_MS,
      sqliteFile: file,
    });
    const heard: string[] = [];
    here.onRunSignal((id, what, change) => heard.push(`${id} ${what} ${change.progress ?? "-"}`));
    try {
      // The two sides find each other through the folder (a watch, else the rescan).
      await until(async () => {
        there.runChanged("gen_probe", { progress: 0.01 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        return here.progressOf("gen_probe") !== null;
      }, "the mesh to connect");
      there.runChanged("gen_mesh", { progress: 0.25 });
      there.runChanged("gen_mesh");
      there.runFinished("gen_other");
      await until(() => heard.includes("gen_other finished -"), "the finish to arrive");
      expect(heard).toContain("gen_mesh changed 0.25");
      expect(heard).toContain("gen_mesh changed -");
      expect(here.progressOf("gen_mesh")).toBe(0.25);
      const back = track(there.waitForFinish("gen_back", FOREVER_MS));
      here.runFinished("gen_back");
      await back.promise;
      expect(here.progressOf("gen_other")).toBeNull();
    } finally {
      await bridgeThere.close();
    }
    // A side that left gets nothing and costs nothing: signals still work locally.
    here.runChanged("gen_local", { progress: 0.5 });
    expect(here.progressOf("gen_local")).toBe(0.5);
    await bridgeHere.close();
  }, 60_000);
});

// A provider's queue place (fal's queue_position) is held in memory only, like progress: the
// bridge carries it and its clear, even when a burst of changes of one run leaves together
// (PostgreSQL sends what came during a NOTIFY as one batch, per run).
describe(`a provider's queue place across processes (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("reaches the other process, and its clear is not lost to the progress and start that follow it", async () => {
    const databaseUrl = t.postgres?.databaseUrl ?? null;
    const here = createRunSignals();
    const there = createRunSignals();
    // Store ticks asleep: only NOTIFY or the mesh can deliver.
    const options = { pollMs: FOREVER_MS, ...(databaseUrl ? {} : { sqliteFile: sqliteFileIn(t.dataDir) }) };
    const bridgeHere = await connectCrossProcessSignals(t.store, databaseUrl, here, silent, options);
    const bridgeThere = await connectCrossProcessSignals(t.store, databaseUrl, there, silent, options);
    const heard: string[] = [];
    here.onRunSignal((id, what, change) => {
      if (id === "gen_fal") heard.push(`${what} ${JSON.stringify(change)}`);
    });
    try {
      await until(async () => {
        there.runChanged("gen_probe", { progress: 0.01 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        return here.progressOf("gen_probe") !== null;
      }, "the bridge to connect");
      there.runChanged("gen_fal", { queuePosition: 2 });
      await until(() => here.providerQueueOf("gen_fal") === 2, "the place to arrive");
      // One poll's worth at once: the provider started it (cleared), reported progress, and the
      // run passed its cancel point (a change of state).
      there.runChanged("gen_fal", { queuePosition: 1 });
      there.runChanged("gen_fal", { queuePosition: null });
      there.runChanged("gen_fal", { progress: 0.1 });
      there.runChanged("gen_fal");
      await until(() => here.progressOf("gen_fal") === 0.1, "the progress to arrive");
      await until(() => heard.includes("changed {}"), "the change of state to arrive");
      expect(here.providerQueueOf("gen_fal")).toBeNull();
      expect(there.providerQueueOf("gen_fal")).toBeNull();
      // A place again, then the run's end: the end drops it everywhere.
      there.runChanged("gen_fal", { queuePosition: 0 });
      await until(() => here.providerQueueOf("gen_fal") === 0, "the new place to arrive");
      there.runFinished("gen_fal");
      await until(() => heard.includes("finished {}"), "the finish to arrive");
      expect(here.providerQueueOf("gen_fal")).toBeNull();
    } finally {
      await bridgeThere.close();
      await bridgeHere.close();
    }
  }, 60_000);
});
