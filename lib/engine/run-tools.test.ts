// The run tools on a real store: a preset's step that was paused after the run was claimed stops
// the run with a message for the person (a ModelError: failed, nothing charged), instead of
// running the paused model anyway.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createGeneration, getGeneration } from "../core/runs/generations";
import { pauseModel, resumeModel } from "../core/catalog/model-pauses";
import { createWorkspace } from "../core/workspaces/workspaces";
import { ModelError } from "../core/catalog/model-definition";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { claimNextRun } from "./claim";
import { createRunTools, PROGRESS_EVERY_MS, throttledProgress } from "./run-tools";
import { CLI_AUDIT } from "../core/audit/audit-writer";

describe(`run tools (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("runStep refuses a step that is out of service now, and runs it once resumed", async () => {
    const db = t.store.db;
    const ctx = testCtx(t, (await createWorkspace({ db }, { name: "run tools", creditMicros: 1_000_000 })).id);
    const { generation } = await createGeneration(ctx, {
      model: "atelier/promo-video@1",
      input: { title: "Hi", prompt: "sea", duration: 2 },
    });
    const run = await claimNextRun(db, t.store.dialect, { owner: "w1", leaseMs: 60_000 });
    expect(run?.id).toBe(generation.id);
    const tools = createRunTools({
      db,
      services: ctx.services,
      run: run!,
      owner: "w1",
      signal: new AbortController().signal,
    });

    await pauseModel(
      { db },
      { modelId: "atelier/artwork", until: null, reason: "its palettes are being redone", audit: CLI_AUDIT },
    );
    const step = { prompt: "sea", size: 512, seed: 1, format: "png" };
    const err = await tools.runStep("atelier/artwork", step).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toBe(
      "atelier/artwork is out of service for a while: its palettes are being redone. This run was stopped at that step; nothing was charged.",
    );

    await resumeModel({ db }, { modelId: "atelier/artwork", audit: CLI_AUDIT });
    const [image] = await tools.runStep("atelier/artwork", step);
    expect(image).toMatchObject({ type: "image", content_type: "image/png" });
  });
});

describe(`a provider's queue place (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("reads as the running run's queue_position, 1 for next at the provider; only moves are signalled; cleared, stopped or ended, it is null", async () => {
    const db = t.store.db;
    const ctx = testCtx(t, (await createWorkspace({ db }, { name: "fal queue", creditMicros: 1_000_000 })).id);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "dusk" } });
    const run = await claimNextRun(db, t.store.dialect, { owner: "w1", leaseMs: 60_000 });
    expect(run?.id).toBe(generation.id);
    const stop = new AbortController();
    const tools = createRunTools({ db, services: ctx.services, run: run!, owner: "w1", signal: stop.signal });
    const signalled: Array<number | null | undefined> = [];
    const off = ctx.services.signals.onRunSignal((id, what, change) => {
      if (id === generation.id && what === "changed") signalled.push(change.queuePosition);
    });
    const read = async () => (await getGeneration(ctx, { id: generation.id })).generation;
    try {
      expect(await read()).toMatchObject({ status: "running", queue_position: null });
      tools.reportQueuePosition(2);
      tools.reportQueuePosition(2);
      expect(await read()).toMatchObject({ status: "running", queue_position: 3 });
      tools.reportQueuePosition(0);
      expect((await read()).queue_position).toBe(1);
      // Not a place: nothing to show.
      tools.reportQueuePosition(-1);
      expect((await read()).queue_position).toBeNull();
      tools.reportQueuePosition(1);
      tools.reportQueuePosition(null);
      tools.reportQueuePosition(null);
      expect((await read()).queue_position).toBeNull();
      expect(signalled).toEqual([2, 0, null, 1, null]);

      tools.reportQueuePosition(4);
      expect((await read()).queue_position).toBe(5);
      // The run's end drops it (in every process: the finish signal).
      ctx.services.signals.runFinished(generation.id);
      expect((await read()).queue_position).toBeNull();
      stop.abort();
      tools.reportQueuePosition(3);
      expect((await read()).queue_position).toBeNull();
      expect(signalled).toEqual([2, 0, null, 1, null, 4]);

      // A run back from the queue with a place left behind: its next tools clear it at the first report.
      ctx.services.signals.runChanged(generation.id, { queuePosition: 6 });
      const again = createRunTools({
        db,
        services: ctx.services,
        run: run!,
        owner: "w1",
        signal: new AbortController().signal,
      });
      again.reportQueuePosition(null);
      expect((await read()).queue_position).toBeNull();
      expect(signalled).toEqual([2, 0, null, 1, null, 4, 6, null]);
    } finally {
      off();
    }
  });
});

describe("throttled progress", () => {
  it("passes on at most one value per period, always the latest, never going down, nothing once stopped", async () => {
    vi.useFakeTimers();
    try {
      const sent: number[] = [];
      const stop = new AbortController();
      const progress = throttledProgress((f) => sent.push(f), stop.signal);
      progress.report(0.1);
      expect(sent).toEqual([0.1]);
      progress.report(0.2);
      progress.report(0.15);
      progress.report(0.3);
      progress.report(Number.NaN);
      expect(sent).toEqual([0.1]);
      await vi.advanceTimersByTimeAsync(PROGRESS_EVERY_MS);
      expect(sent).toEqual([0.1, 0.3]);
      progress.report(2);
      await vi.advanceTimersByTimeAsync(PROGRESS_EVERY_MS);
      expect(sent).toEqual([0.1, 0.3, 1]);
      progress.report(1);
      const later = throttledProgress((f) => sent.push(f), stop.signal);
      stop.abort();
      later.report(0.5);
      await vi.advanceTimersByTimeAsync(PROGRESS_EVERY_MS * 4);
      expect(sent).toEqual([0.1, 0.3, 1]);
    } finally {
      vi.useRealTimers();
    }
  });
});
