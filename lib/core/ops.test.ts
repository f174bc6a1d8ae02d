import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/test-store";
import { finishRun } from "../engine/finish";
import type { Ctx } from "./context";
import { createGeneration } from "./generations";
import { opsFailureReasons, opsOverview, type OpsRunFilter } from "./ops";
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

  /** Starts a run and ends it failed the way a worker does (leased, then finishRun). */
  async function failedRun(ctx: Ctx, model: string, input: Record<string, unknown>, message: string): Promise<string> {
    const { generation } = await createGeneration(ctx, { model, input });
    await t.store.db
      .updateTable("generations")
      .set({ status: "running", started_at: new Date().toISOString(), lease_owner: "ops-test", lease_expires_at: new Date(Date.now() + 60_000).toISOString() })
      .where("id", "=", generation.id)
      .execute();
    expect(await finishRun(t.store.db, ctx.services, { id: generation.id, owner: "ops-test", outcome: { status: "failed", message } })).toBe(true);
    return generation.id;
  }

  it("groups failed runs by error message with counts, within the last day and the runs filters", async () => {
    const db = t.store.db;
    const a = await createWorkspace({ db }, { name: "gamma", creditMicros: 1_000_000 });
    const b = await createWorkspace({ db }, { name: "delta", creditMicros: 1_000_000 });
    const [ca, cb] = [testCtx(t, a.id), testCtx(t, b.id)];
    const refused = "The prompt was refused.";
    const decode = "The image could not be decoded.";
    await failedRun(ca, "atelier/gradient", { prompt: "one" }, refused);
    await failedRun(cb, "atelier/gradient", { prompt: "two" }, refused);
    await failedRun(cb, "atelier/artwork", { prompt: "three" }, refused);
    await failedRun(ca, "atelier/artwork", { prompt: "four" }, decode);
    await createGeneration(ca, { model: "atelier/gradient", input: { prompt: "still queued" } });

    const reasons = await opsFailureReasons({ db });
    expect(reasons.map((r) => [r.message, r.count, r.workspaces])).toEqual([
      [refused, 3, 2],
      [decode, 1, 1],
    ]);
    expect(reasons[0]!.last_failed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Equal counts: the most recent first; the order of those two is not the point here.
    const counted = async (filter: OpsRunFilter) => (await opsFailureReasons({ db }, { filter })).map((r) => [r.message, r.count]).sort();
    expect(await counted({ workspaceId: a.id })).toEqual([
      [decode, 1],
      [refused, 1],
    ]);
    expect(await counted({ model: "atelier/artwork" })).toEqual([
      [decode, 1],
      [refused, 1],
    ]);
    expect((await opsFailureReasons({ db }, { filter: { workspaceId: b.id, model: "atelier/gradient", status: "failed" } })).map((r) => [r.message, r.count, r.workspaces])).toEqual([[refused, 1, 1]]);
    expect(await opsFailureReasons({ db }, { filter: { status: "queued" } })).toEqual([]);
    expect(await opsFailureReasons({ db }, { limit: 1 })).toHaveLength(1);
    // Older than a day (seen from tomorrow), or outside a shorter window: gone from the table.
    expect(await opsFailureReasons({ db }, { now: new Date(Date.now() + 25 * 3600_000) })).toEqual([]);
    expect(await opsFailureReasons({ db }, { now: new Date(Date.now() + 120_000), windowMs: 60_000 })).toEqual([]);
  });
});
