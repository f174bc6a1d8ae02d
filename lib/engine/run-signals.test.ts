import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import type { Store } from "../store/store";
import { openSameStore, openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { connectCrossProcessSignals } from "./cross-process";
import type { GenerationsTable } from "../store/database";
import { createRunSignals, type RunChange } from "./run-signals";

const silent = pino({ level: "silent" });

/** Tracks whether a promise has settled, so a test can say "not yet" without any clock. */
function track<T>(promise: Promise<T>): { readonly settled: boolean; promise: Promise<T> } {
  const state = { settled: false, promise };
  void promise.then(() => {
    state.settled = true;
  });
  return state;
}

/** Lets every already-queued promise callback run. */
async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("run signals (one process)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waitForFinish resolves when that run finishes, not when another does", async () => {
    const signals = createRunSignals();
    const wait = track(signals.waitForFinish("gen_a", 60_000));
    signals.runFinished("gen_b");
    await flushMicrotasks();
    expect(wait.settled).toBe(false);
    expect(signals.waitedIds()).toEqual(["gen_a"]);
    signals.runFinished("gen_a");
    await wait.promise;
    expect(wait.settled).toBe(true);
    expect(signals.waitedIds()).toEqual([]);
  });

  it("waitForFinish gives the row a finish in this process handed over, and nothing otherwise", async () => {
    const signals = createRunSignals();
    const ended = { id: "gen_row", status: "succeeded" } as GenerationsTable;
    const handed = signals.waitForFinish("gen_row", 60_000);
    const bare = signals.waitForFinish("gen_bare", 60_000);
    const stop = new AbortController();
    const aborted = signals.waitForFinish("gen_row", 60_000, stop.signal);
    stop.abort();
    expect(await aborted).toBeUndefined();
    signals.runFinished("gen_row", ended);
    signals.runFinished("gen_bare");
    expect(await handed).toBe(ended);
    expect(await bare).toBeUndefined();
  });

  it("waitForFinish resolves when its time is up", async () => {
    vi.useFakeTimers();
    const signals = createRunSignals();
    const wait = track(signals.waitForFinish("gen_slow", 5_000));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(wait.settled).toBe(false);
    expect(signals.waitedIds()).toEqual(["gen_slow"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(wait.settled).toBe(true);
    expect(signals.waitedIds()).toEqual([]);
    // A finish after the timeout is harmless.
    signals.runFinished("gen_slow");
  });

  it("waitForFinish resolves on abort, and the other waiters keep waiting", async () => {
    const signals = createRunSignals();
    const stop = new AbortController();
    const aborted = track(signals.waitForFinish("gen_x", 60_000, stop.signal));
    const other = track(signals.waitForFinish("gen_x", 60_000));
    expect(signals.waitedIds()).toEqual(["gen_x"]);
    stop.abort();
    await aborted.promise;
    await flushMicrotasks();
    expect(other.settled).toBe(false);
    expect(signals.waitedIds()).toEqual(["gen_x"]);
    signals.runFinished("gen_x");
    await other.promise;
    expect(signals.waitedIds()).toEqual([]);
  });

  it("waitedIds counts every waiter: an ID stays until its last waiter is done", async () => {
    vi.useFakeTimers();
    const signals = createRunSignals();
    const a1 = track(signals.waitForFinish("gen_a", 1_000));
    const a2 = track(signals.waitForFinish("gen_a", 3_000));
    const b = track(signals.waitForFinish("gen_b", 2_000));
    expect(signals.waitedIds().sort()).toEqual(["gen_a", "gen_b"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([a1.settled, a2.settled, b.settled]).toEqual([true, false, false]);
    expect(signals.waitedIds().sort()).toEqual(["gen_a", "gen_b"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(signals.waitedIds()).toEqual(["gen_a"]);
    signals.runFinished("gen_a");
    await a2.promise;
    expect(signals.waitedIds()).toEqual([]);
  });

  it("one finish resolves every waiter of that run", async () => {
    const signals = createRunSignals();
    const waits = Array.from({ length: 50 }, () => signals.waitForFinish("gen_many", 60_000));
    signals.runFinished("gen_many");
    await Promise.all(waits);
    expect(signals.waitedIds()).toEqual([]);
  });

  it("onQueued hears runQueued until unsubscribed", () => {
    const signals = createRunSignals();
    const heard: string[] = [];
    const off1 = signals.onQueued(() => heard.push("one"));
    signals.onQueued(() => heard.push("two"));
    signals.runQueued();
    off1();
    signals.runQueued();
    expect(heard).toEqual(["one", "two", "two"]);
  });

  it("onFinished hears every finish, local or received, until unsubscribed (it wakes the webhook sender)", () => {
    const signals = createRunSignals();
    let heard = 0;
    const off = signals.onFinished(() => heard++);
    signals.runFinished("gen_local");
    signals.receive({ kind: "finished", id: "gen_elsewhere" });
    signals.receive({ kind: "queued" });
    off();
    signals.runFinished("gen_after");
    expect(heard).toBe(2);
  });

  it("receive() delivers signals from elsewhere locally, without publishing them again", async () => {
    const signals = createRunSignals();
    const published: unknown[] = [];
    signals.setPublisher((message) => published.push(message));
    let queued = 0;
    signals.onQueued(() => queued++);
    const wait = signals.waitForFinish("gen_remote", 60_000);
    signals.receive({ kind: "queued" });
    signals.receive({ kind: "finished", id: "gen_remote" });
    await wait;
    expect(queued).toBe(1);
    expect(published).toEqual([]);
  });

  it("a provider's nudge reaches that run's listeners only, here or received, and is published once", () => {
    const signals = createRunSignals();
    const published: unknown[] = [];
    signals.setPublisher((m) => published.push(m));
    const heard: string[] = [];
    const stopA = signals.onProviderEvent("gen_a", () => heard.push("a"));
    const stopB = signals.onProviderEvent("gen_b", () => heard.push("b"));
    signals.providerEvent("gen_a");
    signals.receive({ kind: "provider_event", id: "gen_b" });
    expect(heard).toEqual(["a", "b"]);
    // Only the local one goes to the other processes; a nudge is no change of the run for its followers.
    expect(published).toEqual([{ kind: "provider_event", id: "gen_a" }]);
    stopA();
    signals.providerEvent("gen_a");
    expect(heard).toEqual(["a", "b"]);
    stopB();
  });

  it("the publisher hears every local signal until it is removed", () => {
    const signals = createRunSignals();
    const published: unknown[] = [];
    signals.setPublisher((message) => published.push(message));
    signals.runQueued();
    signals.runFinished("gen_1");
    signals.setPublisher(null);
    signals.runFinished("gen_2");
    expect(published).toEqual([{ kind: "queued" }, { kind: "finished", id: "gen_1" }]);
  });
});

describe(`run signals across processes (${testDialect()})`, () => {
  let t: TestStore;
  /** The other process's own connection to the same store: SQLite notices only other connections' commits. */
  let elsewhere: Store;
  beforeAll(async () => {
    t = await openTestStore();
    elsewhere = openSameStore(t);
  });
  afterAll(async () => {
    await elsewhere?.close();
    await t?.cleanup();
  });

  it("a waiter in one process hears a run finished by another (poll on SQLite, NOTIFY on PostgreSQL)", async () => {
    const workspaceId = (await createWorkspace({ db: t.store.db }, { name: "signals", creditMicros: 1_000_000 })).id;
    const ctx = testCtx(t, workspaceId);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "far away" } });

    // Two "processes": each its own RunSignals, both bridged over the one store.
    const here = createRunSignals();
    const there = createRunSignals();
    const databaseUrl = t.postgres?.databaseUrl ?? null;
    // On PostgreSQL the poll is left asleep, so only NOTIFY can carry the signal.
    const pollMs = databaseUrl ? 60_000 : 20;
    const bridgeHere = await connectCrossProcessSignals(t.store, databaseUrl, here, silent, { pollMs });
    const bridgeThere = await connectCrossProcessSignals(t.store, databaseUrl, there, silent, { pollMs });
    try {
      // Longer than the test's own timeout: only the signal can end this wait in time.
      const wait = here.waitForFinish(generation.id, 60_000);
      // "There" ends the run in the store and signals it locally.
      await elsewhere.db
        .updateTable("generations")
        .set({ status: "failed", error_message: "ended elsewhere", completed_at: new Date().toISOString() })
        .where("id", "=", generation.id)
        .execute();
      there.runFinished(generation.id);
      await wait;
      expect(here.waitedIds()).toEqual([]);
    } finally {
      await bridgeHere.close();
      await bridgeThere.close();
    }
  });

  it("the poll delivers a finish that no one signalled (a process died after committing)", async () => {
    const workspaceId = (await createWorkspace({ db: t.store.db }, { name: "signals", creditMicros: 1_000_000 })).id;
    const ctx = testCtx(t, workspaceId);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "silent end" } });
    const here = createRunSignals();
    const bridge = await connectCrossProcessSignals(t.store, t.postgres?.databaseUrl ?? null, here, silent, {
      pollMs: 20,
    });
    try {
      const wait = track(here.waitForFinish(generation.id, 60_000));
      await elsewhere.db
        .updateTable("generations")
        .set({ status: "failed", error_message: "ended elsewhere", completed_at: new Date().toISOString() })
        .where("id", "=", generation.id)
        .execute();
      await wait.promise;
      expect(wait.settled).toBe(true);
    } finally {
      await bridge.close();
    }
  });

  it.skipIf(testDialect() !== "postgres")(
    "on PostgreSQL, a queued signal wakes the other process's workers",
    async () => {
      if (!t.postgres) throw new Error("no PostgreSQL");
      const here = createRunSignals();
      const there = createRunSignals();
      const bridgeHere = await connectCrossProcessSignals(t.store, t.postgres.databaseUrl, here, silent, {
        pollMs: 60_000,
      });
      const bridgeThere = await connectCrossProcessSignals(t.store, t.postgres.databaseUrl, there, silent, {
        pollMs: 60_000,
      });
      try {
        const woken = new Promise<void>((resolve) => {
          const off = here.onQueued(() => {
            off();
            resolve();
          });
        });
        there.runQueued();
        await woken;
      } finally {
        await bridgeHere.close();
        await bridgeThere.close();
      }
    },
  );
});

describe("run changes and progress (one process)", () => {
  it("tells every change with its progress, keeps the last progress until the run finishes, and follow() counts as waiting", () => {
    const signals = createRunSignals();
    const heard: string[] = [];
    const off = signals.onRunSignal((id, what, change) => heard.push(`${id} ${what} ${change.progress ?? "-"}`));
    const unfollow = signals.follow("gen_p");
    expect(signals.waitedIds()).toEqual(["gen_p"]);
    signals.runChanged("gen_p");
    signals.runChanged("gen_p", { progress: 0.4 });
    signals.receive({ kind: "changed", id: "gen_p", progress: 7 });
    expect(signals.progressOf("gen_p")).toBe(1);
    signals.runFinished("gen_p");
    expect(signals.progressOf("gen_p")).toBeNull();
    expect(heard).toEqual(["gen_p changed -", "gen_p changed 0.4", "gen_p changed 1", "gen_p finished -"]);
    unfollow();
    unfollow();
    expect(signals.waitedIds()).toEqual([]);
    off();
    signals.runChanged("gen_p");
    expect(heard).toHaveLength(4);
  });

  it("keeps a run's place in its provider's queue until cleared or the run finishes; a bad place is no report", () => {
    const signals = createRunSignals();
    const heard: RunChange[] = [];
    signals.onRunSignal((id, what, change) => id === "gen_q" && what === "changed" && heard.push(change));
    expect(signals.providerQueueOf("gen_q")).toBeNull();
    signals.runChanged("gen_q", { queuePosition: 2 });
    signals.runChanged("gen_q", { progress: 0.2 });
    expect(signals.providerQueueOf("gen_q")).toBe(2);
    signals.runChanged("gen_q", { queuePosition: null });
    expect(signals.providerQueueOf("gen_q")).toBeNull();
    expect(signals.progressOf("gen_q")).toBe(0.2);
    signals.receive({ kind: "changed", id: "gen_q", queuePosition: 0 });
    expect(signals.providerQueueOf("gen_q")).toBe(0);
    for (const bad of [-1, 1.5, Number.NaN]) signals.receive({ kind: "changed", id: "gen_q", queuePosition: bad });
    expect(signals.providerQueueOf("gen_q")).toBe(0);
    signals.runFinished("gen_q");
    expect(signals.providerQueueOf("gen_q")).toBeNull();
    // A bad place arrives as a plain change (followers read the run again), as a bad progress does.
    expect(heard).toEqual([
      { queuePosition: 2 },
      { progress: 0.2 },
      { queuePosition: null },
      { queuePosition: 0 },
      {},
      {},
      {},
    ]);
  });

  it("forgets a place nobody updated for ten minutes (a run whose end this process never heard of)", () => {
    vi.useFakeTimers();
    try {
      const signals = createRunSignals();
      signals.runChanged("gen_q", { queuePosition: 1 });
      vi.advanceTimersByTime(10 * 60_000);
      expect(signals.providerQueueOf("gen_q")).toBe(1);
      vi.advanceTimersByTime(1);
      expect(signals.providerQueueOf("gen_q")).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
