import pino from "pino";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkBlobLink } from "../blobs/links";
import { createBatch } from "../core/runs/batches";
import type { Ctx } from "../core/context";
import { readBalance, sumLedger, type Balance } from "../core/credits/credits";
import { createImageFile } from "../core/files/files";
import type { StoredOutput } from "../core/runs/generation-view";
import { createGeneration, getGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import { findCatalogEntry, registerRemoteModels } from "../core/catalog/catalog";
import type { Db } from "../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { claimNextRun } from "./claim";
import { startEngine, type Engine } from "./engine";
import { MAX_ATTEMPTS } from "./execute-run";
import { finishRun } from "./finish";

const USD = 1_000_000;
const WAIT_MS = 30_000;
const silent = pino({ level: "silent" });

async function consistentBalance(db: Db, workspaceId: string): Promise<Balance> {
  const balance = await readBalance(db, workspaceId);
  expect(await sumLedger(db, workspaceId)).toEqual(balance);
  expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);
  return balance;
}

// One store for the file; each test starts its own engine (stopped after it) and leaves no run
// unfinished, since an engine claims from the whole store.
describe(`run engine (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  let engine: Engine | null = null;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(creditMicros = USD): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "engine test", creditMicros })).id);
  }

  function start(ctx: Ctx): Engine {
    engine = startEngine({
      db,
      dialect: t.store.dialect,
      services: ctx.services,
      logger: silent,
      concurrency: 2,
      idlePollMs: 25,
    });
    return engine;
  }

  async function ledgerOf(workspaceId: string) {
    const rows = await db.selectFrom("ledger_entries").selectAll().where("workspace_id", "=", workspaceId).execute();
    return rows.map((r) => [r.kind, Number(r.amount_micros)] as const).sort();
  }

  async function eventsOf(generationId: string) {
    return db.selectFrom("events").selectAll().where("generation_id", "=", generationId).execute();
  }

  function png(width: number, height: number): Promise<Buffer> {
    return sharp({ create: { width, height, channels: 3, background: "#aa3355" } })
      .png()
      .toBuffer();
  }

  it("runs a queued run to succeeded: charged its price once, outputs stored and signed, one event", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "ocean dusk", num_images: 2, seed: 42 },
    });
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;

    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation).toMatchObject({
      status: "succeeded",
      provider: "atelier",
      error: null,
      usage: { cost_usd: "0.004" },
    });
    expect(generation.started_at).not.toBeNull();
    expect(generation.completed_at! >= generation.started_at!).toBe(true);
    expect(generation.output).toHaveLength(2);
    const row = await db.selectFrom("generations").selectAll().where("id", "=", created.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ attempts: 1, lease_owner: null, lease_expires_at: null });
    const stored = JSON.parse(row.output_json) as StoredOutput[];
    for (const [i, item] of generation.output.entries()) {
      expect(item).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 512 });
      expect(Date.parse(item.expires_at)).toBeGreaterThan(Date.now());
      const url = new URL(item.url);
      const key = url.pathname.split("/").pop()!;
      expect(`${url.origin}${url.pathname}`).toBe(`http://localhost:3000/v1/blobs/${key}`);
      expect(key).toBe(stored[i]!.blob);
      expect(checkBlobLink(ctx.services.secretKey, key, Object.fromEntries(url.searchParams))).toEqual({
        ok: true,
        contentType: "image/png",
      });
      // The bytes are in the blob store and are the image the answer describes.
      expect(await ctx.services.blobs.size(key)).toBe(stored[i]!.bytes);
      const meta = await sharp(await ctx.services.blobs.readAll(key)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 512]);
    }
    expect(stored[0]!.blob).not.toBe(stored[1]!.blob);

    expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
      availableMicros: USD - 4_000,
      heldMicros: 0,
      grantedMicros: USD,
      chargedMicros: 4_000,
    });
    expect(await ledgerOf(ctx.workspaceId)).toEqual([
      ["charge", 4_000],
      ["grant", USD],
      ["hold", 4_000],
    ]);
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual(["generation.succeeded"]);
    expect(JSON.parse(events[0]!.payload_json)).toMatchObject({
      type: "generation.succeeded",
      data: { id: created.id, status: "succeeded", usage: { cost_usd: "0.004" } },
    });
  });

  it("runs an image-to-image model on a workspace file", async () => {
    const ctx = await workspaceCtx();
    const file = await createImageFile(ctx, { data: await png(40, 30) });
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/upscale",
      input: { image: file.id },
    });
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;
    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.004" } });
    expect(generation.output).toEqual([
      expect.objectContaining({ type: "image", content_type: "image/png", width: 80, height: 60 }),
    ]);
  });

  it("a run whose model left the catalog while it was queued fails saying so, charged nothing", async () => {
    const ctx = await workspaceCtx();
    const gradient = findCatalogEntry("atelier/gradient").definition;
    registerRemoteModels([{ ...gradient, id: "leaving/gradient", provider: "leaving" }]);
    let created;
    try {
      ({ generation: created } = await createGeneration(ctx, { model: "leaving/gradient", input: { prompt: "gone" } }));
    } finally {
      // Its provider removed from the store: every process's catalog loses the entry.
      registerRemoteModels([]);
    }
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;
    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation).toMatchObject({ status: "failed", usage: { cost_usd: null } });
    expect(generation.error?.message).toBe(
      "The model leaving/gradient was removed from the catalog after this run was queued. Nothing was charged.",
    );
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({ availableMicros: USD, heldMicros: 0 });
  });

  it("a model failure ends the run failed: error.message set, hold released, generation.failed event", async () => {
    const ctx = await workspaceCtx();
    const file = await createImageFile(ctx, { data: await png(8, 8) });
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/upscale",
      input: { image: file.id, scale: 4 },
    });
    // The file goes away after the run was accepted: the model cannot read its input.
    await db.deleteFrom("files").where("id", "=", file.id).execute();
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;

    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation).toMatchObject({ status: "failed", output: [], usage: { cost_usd: null } });
    expect(generation.error?.message).toMatch(/no longer exists/);
    expect(generation.completed_at).not.toBeNull();
    expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
      availableMicros: USD,
      heldMicros: 0,
      grantedMicros: USD,
      chargedMicros: 0,
    });
    expect(await ledgerOf(ctx.workspaceId)).toEqual([
      ["grant", USD],
      ["hold", 8_000],
      ["release", 8_000],
    ]);
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(["generation.failed"]);
  });

  it("getGeneration with a wait answers once the run finishes", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "wait for me" },
    });
    // Longer than the test may take: only the finish can end this wait in time.
    const reading = getGeneration(ctx, { id: created.id, waitSeconds: 60 });
    start(ctx);
    const { generation } = await reading;
    expect(generation.status).toBe("succeeded");
    expect(generation.output).toHaveLength(1);
    expect(ctx.services.signals.waitedIds()).toEqual([]);
  });

  it("createGeneration with Prefer wait answers the finished run", async () => {
    const ctx = await workspaceCtx();
    start(ctx);
    const answer = await createGeneration(
      ctx,
      { model: "atelier/gradient", input: { prompt: "right away" } },
      { waitSeconds: 60, idempotencyKey: "wait-key" },
    );
    expect(answer.replayed).toBe(false);
    expect(answer.generation).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.002" } });
    // The replay is the run as it is now: the same, finished.
    const replay = await createGeneration(
      ctx,
      { model: "atelier/gradient", input: { prompt: "right away" } },
      { idempotencyKey: "wait-key" },
    );
    expect(replay.replayed).toBe(true);
    expect(replay.generation.status).toBe("succeeded");
    expect(replay.generation.id).toBe(answer.generation.id);
  });

  it("runs a batch with two slots, each run charged its own price once", async () => {
    const ctx = await workspaceCtx();
    const requests = [
      { model: "atelier/gradient", input: { prompt: "a" } },
      { model: "atelier/gradient", input: { prompt: "b", num_images: 2 } },
      { model: "atelier/gradient-poster@1", input: { prompt: "c", title: "C" } },
      { model: "atelier/gradient", input: { prompt: "d", aspect_ratio: "16:9" } },
      { model: "atelier/gradient", input: { prompt: "e" } },
    ];
    const { batch } = await createBatch(ctx, { requests });
    const finished = Promise.all(batch.data.map((g) => ctx.services.signals.waitForFinish(g.id, WAIT_MS)));
    start(ctx);
    await finished;
    const answers = await Promise.all(batch.data.map((g) => getGeneration(ctx, { id: g.id })));
    expect(answers.map((a) => a.generation.status)).toEqual(Array(5).fill("succeeded"));
    expect(answers.map((a) => a.generation.usage.cost_usd)).toEqual(["0.002", "0.004", "0.005", "0.002", "0.002"]);
    expect(answers.map((a) => a.generation.output.length)).toEqual([1, 2, 1, 1, 1]);
    expect([answers[3]!.generation.output[0]!.width, answers[3]!.generation.output[0]!.height]).toEqual([512, 288]);
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({ heldMicros: 0, chargedMicros: 15_000 });
    const charges = (await ledgerOf(ctx.workspaceId)).filter(([kind]) => kind === "charge");
    expect(charges).toHaveLength(5);
    const rows = await db
      .selectFrom("generations")
      .select(["attempts", "lease_owner"])
      .where("batch_id", "=", batch.id)
      .execute();
    expect(rows.every((r) => r.attempts === 1 && r.lease_owner === null)).toBe(true);
  });

  it("recovers a run whose worker died (lease lapsed) and charges it once", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "orphan" },
    });
    const dead = await claimNextRun(db, t.store.dialect, { owner: "dead-worker", leaseMs: 1 });
    expect(dead?.id).toBe(created.id);
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;
    const row = await db.selectFrom("generations").selectAll().where("id", "=", created.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "succeeded", attempts: 2, lease_owner: null });
    expect(
      await finishRun(db, ctx.services, {
        id: created.id,
        owner: "dead-worker",
        outcome: { status: "failed", message: "late" },
      }),
    ).toBeNull();
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({ heldMicros: 0, chargedMicros: 2_000 });
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(["generation.succeeded"]);
  });

  it("fails, uncharged, a run that lost its worker too many times", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "cursed" },
    });
    await db
      .updateTable("generations")
      .set({
        status: "running",
        attempts: MAX_ATTEMPTS,
        lease_owner: "gone",
        lease_expires_at: "2000-01-01T00:00:00.000Z",
      })
      .where("id", "=", created.id)
      .execute();
    const finished = ctx.services.signals.waitForFinish(created.id, WAIT_MS);
    start(ctx);
    await finished;
    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation.status).toBe("failed");
    expect(generation.error?.message).toMatch(/interrupted/);
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
      heldMicros: 0,
      chargedMicros: 0,
      availableMicros: USD,
    });
  });

  it("stop() resolves, and a stopped engine claims nothing more", async () => {
    const ctx = await workspaceCtx();
    const running = start(ctx);
    await running.stop();
    engine = null;
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "after stop" } });
    // Only a worker of our own can have it: the stopped engine did not take it.
    const claimed = await claimNextRun(db, t.store.dialect, { owner: "after", leaseMs: 60_000 });
    expect(claimed).toMatchObject({ id: generation.id, attempts: 1, lease_owner: "after" });
    expect(
      await finishRun(db, ctx.services, {
        id: generation.id,
        owner: "after",
        outcome: { status: "failed", message: "test over" },
      }),
    ).toMatchObject({ id: generation.id, status: "failed" });
  });
});
