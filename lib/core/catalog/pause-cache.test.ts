// Pauses and provider outages are read from memory in the server and worker processes, and a
// change reaches every process at once: two "processes" (their own store connections, signal
// bridges and caches) on one store, on both dialects; changes made through the verbs of a
// process with a bridge, and announced by a process without one (the admin CLI).
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { announceToEveryProcess, connectCrossProcessSignals } from "../../engine/cross-process";
import { createRunSignals, type RunSignals } from "../../engine/run-signals";
import { sqliteFileIn, type Store } from "../../store/store";
import { openSameStore, openTestStore, testDialect, type TestStore } from "../../store/testing/test-store";
import { findCatalogEntry } from "./catalog";
import { activePauses, requireInService, shareProviderHealth } from "./model-availability";
import { pauseModel, resumeModel } from "./model-pauses";
import { cachePausesOf, pauseRowsOf, type PauseRow } from "./pause-cache";
import { CLI_AUDIT } from "../audit/audit-writer";

const silent = pino({ level: "silent" });
/** Longer than any test: only a signal can make a cache read the store again in time. */
const FOREVER_MS = 600_000;

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Process {
  store: Store;
  signals: RunSignals;
}

describe(`pauses kept in memory, changed everywhere at once (${testDialect()})`, () => {
  let t: TestStore;
  let elsewhere: Store;
  let sqliteFile: string | null;
  const closers: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    t = await openTestStore();
    elsewhere = openSameStore(t);
    sqliteFile = t.postgres ? null : sqliteFileIn(t.dataDir);
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await t.store.db.deleteFrom("model_pauses").execute();
    await t.store.db.deleteFrom("provider_outages").execute();
  });
  afterAll(async () => {
    await elsewhere?.close();
    await t?.cleanup();
  });

  async function process(store: Store): Promise<Process> {
    const signals = createRunSignals();
    // The fallback polls sleep: only the bridge can carry the change.
    const bridge = await connectCrossProcessSignals(store, t.postgres?.databaseUrl ?? null, signals, silent, {
      pollMs: FOREVER_MS,
      ...(sqliteFile ? { sqliteFile } : {}),
    });
    closers.push(() => bridge.close());
    closers.push(cachePausesOf(store.db, signals, { ttlMs: FOREVER_MS }));
    return { store, signals };
  }

  const pausedIn = async (p: Process, model: string) => (await activePauses(p.store.db)).models.has(model);
  const downIn = async (p: Process, provider: string) => (await activePauses(p.store.db)).providers.has(provider);

  it("a read is answered from memory; the admin CLI's announcement makes every process read the store again", async () => {
    const here = await process(t.store);
    const there = await process(elsewhere);
    expect(await pausedIn(here, "atelier/artwork")).toBe(false);
    expect(await pausedIn(there, "atelier/artwork")).toBe(false);

    // Paused behind the caches' backs (what the admin CLI writes): both still answer from memory.
    await t.store.db
      .insertInto("model_pauses")
      .values({
        model_id: "atelier/artwork",
        paused_until: null,
        reason: "fonts",
        created_at: new Date().toISOString(),
        paused_by: "admin CLI",
      })
      .execute();
    expect(await pausedIn(here, "atelier/artwork")).toBe(false);
    expect(await pausedIn(there, "atelier/artwork")).toBe(false);

    // What `admin model pause` does after writing: one announcement, heard by both.
    await announceToEveryProcess(t.store, sqliteFile, { kind: "availability_changed" });
    await until(() => pausedIn(here, "atelier/artwork"), "this process to see the pause");
    await until(() => pausedIn(there, "atelier/artwork"), "the other process to see the pause");
  });

  it("a pause and a resume through a process with a bridge (the studio's) are seen there at once and by the other within a signal", async () => {
    const here = await process(t.store);
    const there = await process(elsewhere);
    expect(await pausedIn(there, "atelier/music")).toBe(false);

    await pauseModel(
      { db: here.store.db },
      { modelId: "atelier/music", until: null, reason: "tuning", audit: CLI_AUDIT },
    );
    expect(await pausedIn(here, "atelier/music")).toBe(true);
    await until(() => pausedIn(there, "atelier/music"), "the other process to see the pause");

    await resumeModel({ db: here.store.db }, { modelId: "atelier/music", audit: CLI_AUDIT });
    expect(await pausedIn(here, "atelier/music")).toBe(false);
    await until(async () => !(await pausedIn(there, "atelier/music")), "the other process to see the resume");
  });

  it("a provider found down by a worker, then back, reaches the API process; a pause lapses on time with no signal", async () => {
    const worker = await process(elsewhere);
    const api = await process(t.store);
    expect(await downIn(api, "replicate")).toBe(false);

    const end = new Date(Date.now() + 60_000);
    await shareProviderHealth(worker.store.db, "replicate", { until: end.toISOString(), reason: "HTTP 502" });
    await until(() => downIn(api, "replicate"), "the API process to see the outage");
    // Past its end it no longer counts, from the same kept rows.
    expect((await activePauses(api.store.db, new Date(end.getTime() + 1))).providers.has("replicate")).toBe(false);

    await shareProviderHealth(worker.store.db, "replicate", null);
    await until(async () => !(await downIn(api, "replicate")), "the API process to see the provider back");
  });

  it("requireInService answers at once from fresh kept rows, with no promise, and waits on a read otherwise", async () => {
    // A store handle of its own, with no bridge: no signal echoed back from another process
    // (PostgreSQL's NOTIFY of the pause below) forgets the kept rows at a moment of its choosing.
    const own = openSameStore(t);
    closers.push(() => own.close());
    closers.push(cachePausesOf(own.db, createRunSignals(), { ttlMs: FOREVER_MS }));
    const here = { store: own };
    const { definition } = findCatalogEntry("atelier/gradient");
    // Nothing kept yet: a read of the store, as a promise.
    const first = requireInService(here.store.db, definition);
    expect(first).toBeInstanceOf(Promise);
    await first;
    // Kept and fresh: answered on the spot.
    expect(requireInService(here.store.db, definition)).toBeUndefined();

    // A pause forgets the kept rows: the next answer reads again, then refuses at once while fresh.
    await pauseModel(
      { db: here.store.db },
      { modelId: "atelier/gradient", until: null, reason: "maintenance", audit: CLI_AUDIT },
    );
    const reading = requireInService(here.store.db, definition);
    expect(reading).toBeInstanceOf(Promise);
    await expect(reading).rejects.toMatchObject({ code: "service_unavailable" });
    expect(() => requireInService(here.store.db, definition)).toThrow(
      expect.objectContaining({ code: "service_unavailable" }),
    );

    await resumeModel({ db: here.store.db }, { modelId: "atelier/gradient", audit: CLI_AUDIT });
    await requireInService(here.store.db, definition);
    expect(requireInService(here.store.db, definition)).toBeUndefined();
  });

  it("a read that began before a change does not keep what it read", async () => {
    const here = await process(t.store);
    let finishLoad: (rows: PauseRow[]) => void = () => undefined;
    const slow = new Promise<PauseRow[]>((resolve) => (finishLoad = resolve));
    const stale = pauseRowsOf(here.store.db, () => slow);
    here.signals.availabilityChanged();
    const stored: PauseRow = { key: "atelier/qr-code", until: null, reason: "new", kind: "model" };
    const fresh = pauseRowsOf(here.store.db, async () => [stored]);
    finishLoad([]);
    expect(await stale).toEqual([]);
    expect(await fresh).toEqual([stored]);
    // The kept rows are the fresh read's, not the stale one's that finished later.
    expect(await pauseRowsOf(here.store.db, async () => [])).toEqual([stored]);
  });
});
