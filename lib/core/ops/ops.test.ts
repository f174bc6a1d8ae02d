import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { finishRun } from "../../engine/finish";
import type { Ctx } from "../context";
import { createGeneration } from "../runs/generations";
import {
  maskFailureMessage,
  opsCreateWorkspace,
  opsFailureReasons,
  opsModels,
  opsOverview,
  opsRun,
  type OpsRunFilter,
} from "./ops";
import { acceptInvitation } from "../workspaces/invitations";
import { listUserWorkspaces } from "../workspaces/members";
import { opsPrincipal, type OpsCtx } from "./ops-principal";
import { createUser } from "../workspaces/users";
import { pauseModel, resumeModel } from "../catalog/model-pauses";
import { shareProviderHealth } from "../catalog/model-availability";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

describe(`ops overview (${testDialect()})`, () => {
  let t: TestStore;
  let ops: OpsCtx;
  beforeAll(async () => {
    t = await openTestStore();
    const db = t.store.db;
    const home = await createWorkspace({ db }, { name: "operators" });
    const operator = await createUser(
      { db },
      { email: "operator@example.com", password: "long enough", workspaceId: home.id, role: "owner", ops: true },
    );
    ops = await opsPrincipal(db, operator.id);
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("makes a workspace whose first owner is whoever accepts its invitation; bad names and emails are a 400", async () => {
    const db = t.store.db;
    const { workspace, invitation } = await opsCreateWorkspace(ops, {
      name: " Launch team ",
      ownerEmail: "Lead@Example.com",
    });
    expect(workspace.name).toBe("Launch team");
    expect(invitation).toMatchObject({ workspace_id: workspace.id, email: "lead@example.com", role: "owner" });
    const joined = await acceptInvitation(db, {
      token: invitation.token,
      newUser: { name: "Lead", password: "long enough" },
    });
    expect(await listUserWorkspaces(db, joined.userId)).toEqual([
      { id: workspace.id, name: "Launch team", role: "owner" },
    ]);
    for (const [input, param] of [
      [{ name: "", ownerEmail: "a@example.com" }, "name"],
      [{ name: "x".repeat(101), ownerEmail: "a@example.com" }, "name"],
      [{ name: { constructor: "x" }, ownerEmail: "a@example.com" }, "name"],
      [{ name: "ok", ownerEmail: "nope" }, "owner_email"],
      [{ name: "ok", ownerEmail: "a\u0000@example.com" }, "owner_email"],
    ] as const) {
      await expect(opsCreateWorkspace(ops, input)).rejects.toMatchObject({ code: "invalid_parameter", param });
    }
  });

  it("lists the runs of every workspace, newest first, with the queue depth and the last minute's runs", async () => {
    const db = t.store.db;
    expect(await opsOverview(ops)).toEqual({ runs: [], queued: 0, running: 0, created_last_minute: 0 });
    const a = await createWorkspace({ db }, { name: "alpha", creditMicros: 1_000_000 });
    const b = await createWorkspace({ db }, { name: "beta", creditMicros: 1_000_000 });
    const first = await createGeneration(testCtx(t, a.id), { model: "atelier/gradient", input: { prompt: "one" } });
    const second = await createGeneration(testCtx(t, b.id), { model: "atelier/gradient", input: { prompt: "two" } });
    const overview = await opsOverview(ops);
    expect(overview.runs.map((r) => [r.id, r.workspace_name, r.model, r.status])).toEqual([
      [second.generation.id, "beta", "atelier/gradient", "queued"],
      [first.generation.id, "alpha", "atelier/gradient", "queued"],
    ]);
    expect(overview).toMatchObject({ queued: 2, running: 0, created_last_minute: 2 });
    expect((await opsOverview(ops, { limit: 1 })).runs).toHaveLength(1);
    const onlyAlpha = await opsOverview(ops, { filter: { workspaceId: a.id } });
    expect(onlyAlpha.runs.map((r) => r.id)).toEqual([first.generation.id]);
    expect(onlyAlpha.queued).toBe(2);
    expect((await opsOverview(ops, { filter: { status: "failed" } })).runs).toEqual([]);
    expect((await opsOverview(ops, { filter: { status: "queued", model: "atelier/gradient" } })).runs).toHaveLength(2);
    expect((await opsOverview(ops, { filter: { model: "atelier/artwork" } })).runs).toEqual([]);
    expect((await opsOverview(ops, { now: new Date(Date.now() + 120_000) })).created_last_minute).toBe(0);
  });

  it("reads one run of any workspace with its workspace; an ID that names no run is null, without a query for a malformed one", async () => {
    const db = t.store.db;
    const a = await createWorkspace({ db }, { name: "epsilon", creditMicros: 1_000_000 });
    const ctx = testCtx(t, a.id);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "read by ops" } });
    const read = await opsRun(ops, ctx.services, generation.id);
    expect(read?.workspace).toEqual({ id: a.id, name: "epsilon" });
    expect(read?.generation).toMatchObject({
      id: generation.id,
      model: "atelier/gradient",
      input: { prompt: "read by ops" },
      status: "queued",
    });
    expect(read?.generation.queue_position).toBeGreaterThanOrEqual(1);
    for (const id of ["gen_doesnotexist", "gen_\u0000x", "file_abc", "", "gen_" + "x".repeat(5000), "gen_a b"]) {
      expect(await opsRun(ops, ctx.services, id)).toBeNull();
    }
  });

  /** Starts a run and ends it failed the way a worker does (leased, then finishRun). */
  async function failedRun(ctx: Ctx, model: string, input: Record<string, unknown>, message: string): Promise<string> {
    const { generation } = await createGeneration(ctx, { model, input });
    await t.store.db
      .updateTable("generations")
      .set({
        status: "running",
        started_at: new Date().toISOString(),
        lease_owner: "ops-test",
        lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
      })
      .where("id", "=", generation.id)
      .execute();
    expect(
      await finishRun(t.store.db, ctx.services, {
        id: generation.id,
        owner: "ops-test",
        outcome: { status: "failed", message },
      }),
    ).not.toBeNull();
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

    const reasons = await opsFailureReasons(ops);
    expect(reasons.map((r) => [r.message, r.count, r.workspaces])).toEqual([
      [refused, 3, 2],
      [decode, 1, 1],
    ]);
    expect(reasons[0]!.example_run_ids).toHaveLength(3);
    expect(reasons[0]!.last_failed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Equal counts: the most recent first; the order of those two is not the point here.
    const counted = async (filter: OpsRunFilter) =>
      (await opsFailureReasons(ops, { filter })).map((r) => [r.message, r.count]).sort();
    expect(await counted({ workspaceId: a.id })).toEqual([
      [decode, 1],
      [refused, 1],
    ]);
    expect(await counted({ model: "atelier/artwork" })).toEqual([
      [decode, 1],
      [refused, 1],
    ]);
    expect(
      (
        await opsFailureReasons(ops, { filter: { workspaceId: b.id, model: "atelier/gradient", status: "failed" } })
      ).map((r) => [r.message, r.count, r.workspaces]),
    ).toEqual([[refused, 1, 1]]);
    expect(await opsFailureReasons(ops, { filter: { status: "queued" } })).toEqual([]);
    expect(await opsFailureReasons(ops, { limit: 1 })).toHaveLength(1);
    // Older than a day (seen from tomorrow), or outside a shorter window: gone from the table.
    expect(await opsFailureReasons(ops, { now: new Date(Date.now() + 25 * 3600_000) })).toEqual([]);
    expect(await opsFailureReasons(ops, { now: new Date(Date.now() + 120_000), windowMs: 60_000 })).toEqual([]);
  });

  it("masks IDs, opaque tokens and numbers in failure messages", () => {
    expect(maskFailureMessage("The input file file_AbC123xyzAbC123xyzAbC1 no longer exists.")).toBe(
      "The input file file_… no longer exists.",
    );
    expect(maskFailureMessage("The result would be 8400×32; the longest side may be at most 8192 pixels.")).toBe(
      "The result would be #×#; the longest side may be at most # pixels.",
    );
    expect(maskFailureMessage("job 3fa85f64-5717-4562-b3fc-2c963f66afa6 of gen_x1 failed after 2.5 s")).toBe(
      "job … of gen_… failed after # s",
    );
    expect(maskFailureMessage('it contains "quokkaroo".')).toBe('it contains "quokkaroo".');
  });

  it("groups failure messages that differ only by IDs and numbers into one row, with example runs", async () => {
    const db = t.store.db;
    const a = await createWorkspace({ db }, { name: "epsilon", creditMicros: 1_000_000 });
    const b = await createWorkspace({ db }, { name: "zeta", creditMicros: 1_000_000 });
    const [ca, cb] = [testCtx(t, a.id), testCtx(t, b.id)];
    const gone = (fileId: string) => `The input file ${fileId} no longer exists.`;
    const ids = [
      await failedRun(ca, "atelier/gradient", { prompt: "m1" }, gone("file_AAAAAAAAAAAAAAAAAAAAAAA1")),
      await failedRun(ca, "atelier/gradient", { prompt: "m2" }, gone("file_BBBBBBBBBBBBBBBBBBBBBBB2")),
      await failedRun(cb, "atelier/gradient", { prompt: "m3" }, gone("file_CCCCCCCCCCCCCCCCCCCCCCC3")),
      await failedRun(cb, "atelier/gradient", { prompt: "m4" }, gone("file_CCCCCCCCCCCCCCCCCCCCCCC3")),
    ];
    await failedRun(
      ca,
      "atelier/gradient",
      { prompt: "m5" },
      "The result would be 8400×32; the longest side may be at most 8192 pixels.",
    );
    await failedRun(
      ca,
      "atelier/gradient",
      { prompt: "m6" },
      "The result would be 8800×40; the longest side may be at most 8192 pixels.",
    );
    const both = async (filter: OpsRunFilter) =>
      (await opsFailureReasons(ops, { filter })).filter(
        (r) => r.message?.includes("file_…") || r.message?.includes("#×#"),
      );
    const inA = await both({ workspaceId: a.id });
    expect(inA.map((r) => [r.message, r.count, r.workspaces]).sort()).toEqual([
      ["The input file file_… no longer exists.", 2, 1],
      ["The result would be #×#; the longest side may be at most # pixels.", 2, 1],
    ]);
    const all = await opsFailureReasons(ops);
    const gones = all.filter((r) => r.message === "The input file file_… no longer exists.");
    expect(gones).toHaveLength(1);
    expect(gones[0]).toMatchObject({ count: 4, workspaces: 2 });
    expect(gones[0]!.example_run_ids.length).toBeGreaterThanOrEqual(2);
    expect(gones[0]!.example_run_ids.length).toBeLessThanOrEqual(3);
    for (const id of gones[0]!.example_run_ids) expect(ids).toContain(id);
  });

  it("lists every catalog entry with its state, pause, provider outage, failure rate and typical run time", async () => {
    const db = t.store.db;
    const ws = await createWorkspace({ db }, { name: "eta", creditMicros: 1_000_000 });
    const ctx = testCtx(t, ws.id);
    // Two succeeded runs of atelier/artwork taking 2 s and 4 s, and one failed run: typical 3 s, 1 of 3 failed.
    for (const seconds of [2, 4]) {
      const { generation } = await createGeneration(ctx, {
        model: "atelier/artwork",
        input: { prompt: `took ${seconds}` },
      });
      const end = new Date();
      await db
        .updateTable("generations")
        .set({
          status: "succeeded",
          started_at: new Date(end.getTime() - seconds * 1000).toISOString(),
          completed_at: end.toISOString(),
        })
        .where("id", "=", generation.id)
        .execute();
    }
    const before = (await opsModels(ops)).find((m) => m.id === "atelier/artwork")!;
    await failedRun(ctx, "atelier/artwork", { prompt: "fails" }, "nope");
    const models = await opsModels(ops);
    expect(models.length).toBeGreaterThan(5);
    const artwork = models.find((m) => m.id === "atelier/artwork")!;
    expect(artwork).toMatchObject({
      type: "model",
      provider: null,
      pause: null,
      typical_run_seconds: 3,
      availability: { status: "available" },
    });
    expect(artwork.finished - before.finished).toBe(1);
    expect(artwork.failed - before.failed).toBe(1);
    expect(artwork.failure_rate).toBeCloseTo(artwork.failed / artwork.finished);
    // Seen from two days on, nothing finished in the window.
    expect(
      (await opsModels(ops, { now: new Date(Date.now() + 48 * 3600_000) })).find((m) => m.id === "atelier/artwork"),
    ).toMatchObject({ finished: 0, failed: 0, failure_rate: null });

    const until = new Date(Date.now() + 3600_000).toISOString();
    await pauseModel(
      { db },
      { modelId: "atelier/artwork", until, reason: "new GPU driver", by: "ops@example.com", audit: CLI_AUDIT },
    );
    const paused = (await opsModels(ops)).find((m) => m.id === "atelier/artwork")!;
    expect(paused.availability).toEqual({ status: "out_of_service", message: "new GPU driver", until });
    expect(paused.pause).toMatchObject({ reason: "new GPU driver", until, by: "ops@example.com" });
    expect(paused.pause!.since).toMatch(/^\d{4}-/);
    // A lapsed pause is not in force.
    expect(
      (await opsModels(ops, { now: new Date(Date.now() + 2 * 3600_000) })).find((m) => m.id === "atelier/artwork")!
        .pause,
    ).toBeNull();
    await resumeModel({ db }, { modelId: "atelier/artwork", audit: CLI_AUDIT });
    expect((await opsModels(ops)).find((m) => m.id === "atelier/artwork")).toMatchObject({
      pause: null,
      availability: { status: "available" },
    });

    // A provider outage shows on remote entries only (none are registered here: it stays invisible).
    await shareProviderHealth(db, "someprovider", {
      until: new Date(Date.now() + 60_000).toISOString(),
      reason: "HTTP 502",
    });
    expect((await opsModels(ops)).every((m) => m.provider_outage === null)).toBe(true);
    await shareProviderHealth(db, "someprovider", null);
  });

  it("gives each run of the ops table its times and cost", async () => {
    const db = t.store.db;
    const ws = await createWorkspace({ db }, { name: "theta", creditMicros: 1_000_000 });
    const id = await failedRun(testCtx(t, ws.id), "atelier/gradient", { prompt: "timed" }, "boom");
    const run = (await opsOverview(ops, { filter: { workspaceId: ws.id } })).runs[0]!;
    expect(run.id).toBe(id);
    expect(run.started_at).not.toBeNull();
    expect(run.completed_at).not.toBeNull();
    expect(run.price_micros).toBeGreaterThan(0);
    expect(run.charged_micros).toBeNull();
  });
});
