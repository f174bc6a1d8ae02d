// The run tools on a real store: a preset's step that was paused after the run was claimed stops
// the run with a message for the person (a ModelError: failed, nothing charged), instead of
// running the paused model anyway.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createGeneration } from "../core/runs/generations";
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
