import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Ctx } from "../core/context";
import { readBalance, sumLedger, type Balance } from "../core/credits/credits";
import type { StoredOutput } from "../core/runs/generation-view";
import { cancelGeneration, createGeneration, getGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import type { Db, GenerationsTable } from "../store/database";
import type { DialectName } from "../store/dialects";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { BUILT_IN_PROVIDER, claimNextRun, releaseRun, renewLease } from "./claim";
import { executeRun, MAX_ATTEMPTS } from "./execute-run";
import { finishRun } from "./finish";

const USD = 1_000_000;
const GRADIENT_MICROS = 2_000;
const HOUR_MS = 3_600_000;
const silent = pino({ level: "silent" });

async function consistentBalance(db: Db, workspaceId: string): Promise<Balance> {
  const balance = await readBalance(db, workspaceId);
  expect(await sumLedger(db, workspaceId)).toEqual(balance);
  expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);
  return balance;
}

// The runs table is the queue of the whole store, so every test here leaves no run runnable
// (see afterEach): a claim then only ever sees the runs its own test made.
describe(`claiming runs (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  let dialect: DialectName;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
    dialect = t.store.dialect;
  });
  afterEach(async () => {
    await db
      .updateTable("generations")
      .set({ status: "failed", error_message: "test over", lease_owner: null, lease_expires_at: null })
      .where("status", "in", ["queued", "running"])
      .execute();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(creditMicros = USD): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "claim test", creditMicros })).id);
  }

  async function queued(ctx: Ctx, prompt = "claim me"): Promise<string> {
    return (await createGeneration(ctx, { model: "atelier/gradient", input: { prompt } })).generation.id;
  }

  async function row(id: string): Promise<GenerationsTable> {
    return db.selectFrom("generations").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  }

  async function outputs(ctx: Ctx): Promise<StoredOutput[]> {
    const blob = await ctx.services.blobs.put(Buffer.from("pixels"));
    return [{ type: "image", blob, content_type: "image/png", bytes: 6, width: 1, height: 1 }];
  }

  async function ledgerKinds(workspaceId: string): Promise<string[]> {
    const rows = await db.selectFrom("ledger_entries").select("kind").where("workspace_id", "=", workspaceId).execute();
    return rows.map((r) => r.kind).sort();
  }

  async function eventTypes(generationId: string): Promise<string[]> {
    const rows = await db.selectFrom("events").select("type").where("generation_id", "=", generationId).execute();
    return rows.map((r) => r.type);
  }

  /** Claims until the store hands over a run (a lapsed lease may need a moment to pass). */
  async function claimEventually(owner: string, leaseMs = HOUR_MS): Promise<GenerationsTable> {
    for (;;) {
      const claimed = await claimNextRun(db, dialect, { owner, leaseMs });
      if (claimed) return claimed;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  it("finds nothing when no run is queued", async () => {
    expect(await claimNextRun(db, dialect, { owner: "w", leaseMs: HOUR_MS })).toBeNull();
  });

  it("claims the queued run that came first (queue order, not the clock): running, leased, attempt 1, started", async () => {
    const ctx = await workspaceCtx();
    const older = await queued(ctx, "older");
    const newer = await queued(ctx, "newer");
    // Runs made in the same millisecond keep the order they were queued in.
    await db
      .updateTable("generations")
      .set({ created_at: "2020-01-01T00:00:00.000Z" })
      .where("id", "in", [older, newer])
      .execute();
    const claimed = await claimNextRun(db, dialect, { owner: "w1", leaseMs: 60_000 });
    expect(claimed).not.toBeNull();
    expect(claimed!.id).toBe(older);
    expect(claimed).toMatchObject({ status: "running", provider: BUILT_IN_PROVIDER, lease_owner: "w1", attempts: 1 });
    expect(Date.parse(claimed!.lease_expires_at!) - Date.parse(claimed!.started_at!)).toBe(60_000);
    expect(await row(older)).toEqual(claimed);
    const next = await claimNextRun(db, dialect, { owner: "w2", leaseMs: 60_000 });
    expect(next?.id).toBe(newer);
    // Both held with live leases: nothing left to claim.
    expect(await claimNextRun(db, dialect, { owner: "w3", leaseMs: 60_000 })).toBeNull();
    // The answer shows it running at the provider.
    expect((await getGeneration(ctx, { id: older })).generation).toMatchObject({
      status: "running",
      provider: "atelier",
      started_at: claimed!.started_at,
    });
  });

  it("concurrent claims hand each run to exactly one worker", async () => {
    const ctx = await workspaceCtx();
    const ids = new Set<string>();
    for (let i = 0; i < 6; i++) ids.add(await queued(ctx, `run ${i}`));
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) => claimNextRun(db, dialect, { owner: `w${i}`, leaseMs: HOUR_MS })),
    );
    const claimed = claims.filter((c): c is GenerationsTable => c !== null).map((c) => c.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    // Whatever the first round left (skipped while locked), later claims take; none twice.
    for (;;) {
      const more = await claimNextRun(db, dialect, { owner: "late", leaseMs: HOUR_MS });
      if (!more) break;
      claimed.push(more.id);
    }
    expect(claimed.sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await row(id)).attempts).toBe(1);
  });

  it("a lapsed lease is recovered by another worker; the run is charged once and the dead worker's finish is thrown away", async () => {
    const ctx = await workspaceCtx();
    const id = await queued(ctx);
    const dead = await claimNextRun(db, dialect, { owner: "dead", leaseMs: 1 });
    expect(dead?.id).toBe(id);
    const alive = await claimEventually("alive");
    expect(alive.id).toBe(id);
    expect(alive).toMatchObject({ status: "running", lease_owner: "alive", attempts: 2, started_at: dead!.started_at });

    expect(await renewLease(db, { id, owner: "dead", leaseMs: HOUR_MS })).toBe(false);
    // The dead worker wakes up while the run is someone else's: its result is thrown away.
    expect(
      await finishRun(db, ctx.services, {
        id,
        owner: "dead",
        outcome: { status: "succeeded", outputs: await outputs(ctx) },
      }),
    ).toBeNull();
    expect(await row(id)).toMatchObject({ status: "running", lease_owner: "alive", charged_micros: null });
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
      heldMicros: GRADIENT_MICROS,
      chargedMicros: 0,
    });
    expect(
      await finishRun(db, ctx.services, {
        id,
        owner: "alive",
        outcome: { status: "succeeded", outputs: await outputs(ctx) },
      }),
    ).toMatchObject({ id, status: "succeeded", charged_micros: GRADIENT_MICROS });
    const balance = await consistentBalance(db, ctx.workspaceId);
    expect(balance).toEqual({
      availableMicros: USD - GRADIENT_MICROS,
      heldMicros: 0,
      grantedMicros: USD,
      chargedMicros: GRADIENT_MICROS,
    });

    const late = await finishRun(db, ctx.services, {
      id,
      owner: "dead",
      outcome: { status: "failed", message: "I was dead" },
    });
    expect(late).toBeNull();
    expect(await consistentBalance(db, ctx.workspaceId)).toEqual(balance);
    expect(await ledgerKinds(ctx.workspaceId)).toEqual(["charge", "grant", "hold"]);
    expect(await eventTypes(id)).toEqual(["generation.succeeded"]);
    const ended = await row(id);
    expect(ended).toMatchObject({
      status: "succeeded",
      error_message: null,
      lease_owner: null,
      lease_expires_at: null,
    });
    expect(Number(ended.charged_micros)).toBe(GRADIENT_MICROS);
    // A finished run is never claimed again.
    expect(await claimNextRun(db, dialect, { owner: "third", leaseMs: 1 })).toBeNull();
  });

  it("renewLease extends the owner's lease only", async () => {
    const ctx = await workspaceCtx();
    const id = await queued(ctx);
    const claimed = await claimNextRun(db, dialect, { owner: "owner", leaseMs: 1_000 });
    expect(await renewLease(db, { id, owner: "someone-else", leaseMs: HOUR_MS })).toBe(false);
    expect((await row(id)).lease_expires_at).toBe(claimed!.lease_expires_at);
    expect(await renewLease(db, { id, owner: "owner", leaseMs: HOUR_MS })).toBe(true);
    expect(Date.parse((await row(id)).lease_expires_at!)).toBeGreaterThan(Date.parse(claimed!.lease_expires_at!));
    // Once canceled, the run is no longer the worker's to renew.
    await cancelGeneration(ctx, { id });
    expect(await renewLease(db, { id, owner: "owner", leaseMs: HOUR_MS })).toBe(false);
  });

  it("releaseRun puts the owner's run back in the queue; the next claim starts it afresh", async () => {
    const ctx = await workspaceCtx();
    const id = await queued(ctx);
    const first = await claimNextRun(db, dialect, { owner: "leaving", leaseMs: HOUR_MS });
    // The abandoned attempt had shown a preview (a preset), which made it uncancelable.
    await db
      .updateTable("generations")
      .set({ preview_json: JSON.stringify({ key: "p" }), uncancelable_reason: "preview" })
      .where("id", "=", id)
      .execute();
    await releaseRun(db, { id, owner: "not-me" });
    expect((await row(id)).status).toBe("running");
    await releaseRun(db, { id, owner: "leaving" });
    // Back in the queue it reads as queued: no provider, no start time, no preview, cancelable.
    expect(await row(id)).toMatchObject({
      status: "queued",
      provider: null,
      started_at: null,
      preview_json: null,
      uncancelable_reason: null,
      lease_owner: null,
      lease_expires_at: null,
      attempts: 1,
    });
    expect(first!.started_at).not.toBeNull();
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
      heldMicros: GRADIENT_MICROS,
      chargedMicros: 0,
    });
    const again = await claimNextRun(db, dialect, { owner: "next", leaseMs: HOUR_MS });
    expect(again).toMatchObject({ id, lease_owner: "next", attempts: 2, provider: BUILT_IN_PROVIDER });
    expect(again!.started_at).not.toBeNull();
  });

  it("finishRun failed releases the hold, sets error.message and writes generation.failed; it ends a run once", async () => {
    const ctx = await workspaceCtx();
    const id = await queued(ctx);
    await claimNextRun(db, dialect, { owner: "w", leaseMs: HOUR_MS });
    expect(
      await finishRun(db, ctx.services, { id, owner: "intruder", outcome: { status: "failed", message: "no" } }),
    ).toBeNull();
    expect(
      await finishRun(db, ctx.services, {
        id,
        owner: "w",
        outcome: { status: "failed", message: "The model refused the prompt." },
      }),
    ).toMatchObject({ id, status: "failed" });
    const { generation } = await getGeneration(ctx, { id });
    expect(generation).toMatchObject({
      status: "failed",
      error: { message: "The model refused the prompt." },
      output: [],
      usage: { cost_usd: null },
    });
    expect(generation.completed_at).not.toBeNull();
    expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
      availableMicros: USD,
      heldMicros: 0,
      grantedMicros: USD,
      chargedMicros: 0,
    });
    expect(
      await finishRun(db, ctx.services, { id, owner: "w", outcome: { status: "succeeded", outputs: [] } }),
    ).toBeNull();
    expect(await ledgerKinds(ctx.workspaceId)).toEqual(["grant", "hold", "release"]);
    const events = await db.selectFrom("events").selectAll().where("generation_id", "=", id).execute();
    expect(events.map((e) => e.type)).toEqual(["generation.failed"]);
    expect(JSON.parse(events[0]!.payload_json)).toMatchObject({
      type: "generation.failed",
      data: { id, status: "failed", error: { message: "The model refused the prompt." } },
    });
  });

  describe("executeRun", () => {
    const options = (ctx: Ctx, owner: string, shutdown = new AbortController().signal) => ({
      db,
      services: ctx.services,
      logger: silent,
      owner,
      leaseMs: HOUR_MS,
      shutdown,
    });

    it("runs the model, stores its outputs and charges the run", async () => {
      const ctx = await workspaceCtx();
      const id = await queued(ctx);
      const run = await claimNextRun(db, dialect, { owner: "x", leaseMs: HOUR_MS });
      expect(await executeRun(options(ctx, "x"), run!)).toMatchObject({ kind: "finished", row: { id: run!.id } });
      const { generation } = await getGeneration(ctx, { id });
      expect(generation).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.002" } });
      expect(generation.output).toHaveLength(1);
    });

    it("gives a run up, uncharged, once it has lost its worker too many times", async () => {
      const ctx = await workspaceCtx();
      const id = await queued(ctx);
      await db.updateTable("generations").set({ attempts: MAX_ATTEMPTS }).where("id", "=", id).execute();
      const run = await claimNextRun(db, dialect, { owner: "x", leaseMs: HOUR_MS });
      expect(run!.attempts).toBe(MAX_ATTEMPTS + 1);
      expect(await executeRun(options(ctx, "x"), run!)).toMatchObject({ kind: "finished", row: { id: run!.id } });
      const { generation } = await getGeneration(ctx, { id });
      expect(generation.status).toBe("failed");
      expect(generation.error?.message).toMatch(/interrupted/);
      expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
        heldMicros: 0,
        chargedMicros: 0,
        availableMicros: USD,
      });
    });

    it("on shutdown mid-run answers released, and the run goes back to the queue uncharged", async () => {
      const ctx = await workspaceCtx();
      const id = await queued(ctx);
      const run = await claimNextRun(db, dialect, { owner: "x", leaseMs: HOUR_MS });
      const shutdown = new AbortController();
      const running = executeRun(options(ctx, "x", shutdown.signal), run!);
      shutdown.abort();
      expect(await running).toEqual({ kind: "released" });
      await releaseRun(db, { id, owner: "x" });
      expect(await row(id)).toMatchObject({
        status: "queued",
        lease_owner: null,
        output_json: "[]",
        charged_micros: null,
      });
      expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
        heldMicros: GRADIENT_MICROS,
        chargedMicros: 0,
      });
      expect(await eventTypes(id)).toEqual([]);
    });

    it("a run canceled while its worker holds it is lost to the worker: result thrown away, nothing charged", async () => {
      const ctx = await workspaceCtx();
      const id = await queued(ctx);
      const run = await claimNextRun(db, dialect, { owner: "x", leaseMs: HOUR_MS });
      await cancelGeneration(ctx, { id });
      expect(await executeRun(options(ctx, "x"), run!)).toEqual({ kind: "lost" });
      const { generation } = await getGeneration(ctx, { id });
      expect(generation).toMatchObject({ status: "canceled", output: [], usage: { cost_usd: null } });
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
        availableMicros: USD,
        heldMicros: 0,
        grantedMicros: USD,
        chargedMicros: 0,
      });
      expect(await eventTypes(id)).toEqual(["generation.canceled"]);
    });
  });
});
