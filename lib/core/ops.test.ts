import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/test-store";
import { createGeneration } from "./generations";
import { opsOverview } from "./ops";
import { createWorkspace } from "./workspaces";

describe(`ops overview (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("lists the runs of every workspace, newest first, with the queue depth and the last minute's runs", async () => {
    const db = t.store.db;
    expect(await opsOverview({ db })).toEqual({ runs: [], queued: 0, running: 0, created_last_minute: 0 });
    const a = await createWorkspace({ db }, { name: "alpha", creditMicros: 1_000_000 });
    const b = await createWorkspace({ db }, { name: "beta", creditMicros: 1_000_000 });
    const first = await createGeneration(testCtx(t, a.id), { model: "atelier/gradient", input: { prompt: "one" } });
    const second = await createGeneration(testCtx(t, b.id), { model: "atelier/gradient", input: { prompt: "two" } });
    const overview = await opsOverview({ db });
    expect(overview.runs.map((r) => [r.id, r.workspace_name, r.model, r.status])).toEqual([
      [second.generation.id, "beta", "atelier/gradient", "queued"],
      [first.generation.id, "alpha", "atelier/gradient", "queued"],
    ]);
    expect(overview).toMatchObject({ queued: 2, running: 0, created_last_minute: 2 });
    expect((await opsOverview({ db }, { limit: 1 })).runs).toHaveLength(1);
    const onlyAlpha = await opsOverview({ db }, { filter: { workspaceId: a.id } });
    expect(onlyAlpha.runs.map((r) => r.id)).toEqual([first.generation.id]);
    expect(onlyAlpha.queued).toBe(2);
    expect((await opsOverview({ db }, { filter: { status: "failed" } })).runs).toEqual([]);
    expect((await opsOverview({ db }, { filter: { status: "queued", model: "atelier/gradient" } })).runs).toHaveLength(2);
    expect((await opsOverview({ db }, { filter: { model: "atelier/artwork" } })).runs).toEqual([]);
    expect((await opsOverview({ db }, { now: new Date(Date.now() + 120_000) })).created_last_minute).toBe(0);
  });
});
