// The engine's side of issue 4: previews and the cancel point, moderation, and out-of-service
// entries whose queued runs wait. Test entries are registered in the real catalog (this file's
// own module registry) and run by the real engine on a real store.
import pino from "pino";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { registerRemoteModels } from "../core/catalog/catalog";
import type { Ctx } from "../core/context";
import { readBalance } from "../core/credits/credits";
import { ApiError } from "../primitives/errors";
import { cancelGeneration, createGeneration, getGeneration } from "../core/runs/generations";
import { compileBlocklist } from "../core/catalog/moderation";
import { pauseModel, resumeModel } from "../core/catalog/model-pauses";
import { quoteRun } from "../core/runs/quotes";
import { createWorkspace } from "../core/workspaces/workspaces";
import { objectSchema } from "../models/common/fields";
import type { ImageOutput, ModelDefinition, RunTools } from "../core/catalog/model-definition";
import type { Db } from "../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { startEngine, type Engine } from "./engine";
import { CLI_AUDIT } from "../core/audit/audit-writer";

const USD = 1_000_000;
const silent = pino({ level: "silent" });

/** A gate the test opens: lets a test model stop at a known point until the test says go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function image(color: string): Promise<ImageOutput> {
  const data = await sharp({ create: { width: 16, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer();
  return { type: "image", content_type: "image/png", data, width: 16, height: 8 };
}

let reachedCancelPoint = gate();
let finishStep = gate();
const afterCancelPoint: string[] = [];

function testModel(id: string, passPoint: (tools: RunTools) => Promise<void>): ModelDefinition {
  return {
    id,
    type: id.includes("@") ? "preset" : "model",
    name: id,
    creator: "Test",
    modality: "image",
    tasks: ["text-to-image"],
    description: "test entry",
    revision: "2026-11-22",
    status: "stable",
    pricing: { unit: "run", usd: "0.01", drivers: [], overrides: [] },
    lifecycle: null,
    input_schema: objectSchema({ prompt: { type: "string", title: "Prompt", description: "Words." } }, ["prompt"]),
    async run(_input, tools) {
      await passPoint(tools);
      afterCancelPoint.push(id);
      reachedCancelPoint.open();
      await finishStep.opened;
      return [await image("#336699")];
    },
  };
}

registerRemoteModels([
  testModel("test/preview-preset@1", async (tools) => tools.publishPreview(await image("#ff0000"))),
  testModel("test/billing-provider", (tools) => tools.markUncancelable("provider")),
]);

describe(`cancel point, moderation and out of service (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  let engine: Engine | null = null;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterEach(async () => {
    finishStep.open();
    await engine?.stop();
    engine = null;
    reachedCancelPoint = gate();
    finishStep = gate();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(blocklist: string[] = []): Promise<Ctx> {
    const workspace = await createWorkspace({ db }, { name: "cancel point test", creditMicros: USD });
    return testCtx(t, workspace.id, { moderationBlocklist: blocklist });
  }

  function start(ctx: Ctx): void {
    engine = startEngine({
      db,
      dialect: t.store.dialect,
      services: ctx.services,
      logger: silent,
      concurrency: 1,
      idlePollMs: 25,
    });
  }

  async function conflictOf(promise: Promise<unknown>): Promise<ApiError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("conflict");
    return err as ApiError;
  }

  it("a preset that shows its preview: the preview is readable, cancel answers 409, the run goes on and is charged", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "test/preview-preset@1",
      input: { prompt: "x" },
    });
    expect(created.preview).toBeNull();
    start(ctx);
    await reachedCancelPoint.opened;

    const { generation: running } = await getGeneration(ctx, { id: created.id });
    expect(running).toMatchObject({ status: "running", preview: { content_type: "image/png", width: 16, height: 8 } });
    const key = new URL(running.preview!.url).pathname.split("/").pop()!;
    const [r, g, b] = (
      await sharp(await ctx.services.blobs.readAll(key))
        .raw()
        .toBuffer()
    ).subarray(0, 3);
    expect([r, g, b]).toEqual([255, 0, 0]);

    const err = await conflictOf(cancelGeneration(ctx, { id: created.id }));
    expect(err.status).toBe(409);
    expect(err.message).toMatch(/preview/);

    const finished = ctx.services.signals.waitForFinish(created.id, 30_000);
    finishStep.open();
    await finished;
    const { generation } = await getGeneration(ctx, { id: created.id });
    expect(generation).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.01" }, preview: { width: 16 } });
    expect(await readBalance(db, ctx.workspaceId)).toMatchObject({ chargedMicros: 10_000, heldMicros: 0 });
  });

  it("a run at a provider that bills once submitted cannot be canceled: 409 naming the provider", async () => {
    const ctx = await workspaceCtx();
    const { generation: created } = await createGeneration(ctx, {
      model: "test/billing-provider",
      input: { prompt: "x" },
    });
    start(ctx);
    await reachedCancelPoint.opened;
    const err = await conflictOf(cancelGeneration(ctx, { id: created.id }));
    expect(err.message).toMatch(/provider that bills/);
    const finished = ctx.services.signals.waitForFinish(created.id, 30_000);
    finishStep.open();
    await finished;
    expect((await getGeneration(ctx, { id: created.id })).generation).toMatchObject({
      status: "succeeded",
      preview: null,
    });
  });

  it("moderation: a prompt with a blocked whole word fails the run with a clear message and charges nothing", async () => {
    const ctx = await workspaceCtx(["forbidden thing", "gore"]);
    expect(compileBlocklist(["gore"])!.test("Gorey")).toBe(false);
    const blocked = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "a FORBIDDEN   thing at dusk" },
    });
    const fine = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "gorgeous gorey dusk" } });
    const done = Promise.all([blocked, fine].map((r) => ctx.services.signals.waitForFinish(r.generation.id, 30_000)));
    start(ctx);
    await done;
    const refused = (await getGeneration(ctx, { id: blocked.generation.id })).generation;
    expect(refused).toMatchObject({ status: "failed", output: [], usage: { cost_usd: null } });
    expect(refused.error!.message).toMatch(/prompt was refused/);
    expect(refused.error!.message).toContain("FORBIDDEN   thing");
    expect((await getGeneration(ctx, { id: fine.generation.id })).generation.status).toBe("succeeded");
    expect(await readBalance(db, ctx.workspaceId)).toMatchObject({ chargedMicros: 2_000, heldMicros: 0 });
  });

  it("a paused entry answers 503 with Retry-After, its queued runs wait, and resume lets them run", async () => {
    const ctx = await workspaceCtx();
    const { generation: queued } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "waits" },
    });
    const until = new Date(Date.now() + 120_000).toISOString();
    await pauseModel(
      { db },
      { modelId: "atelier/gradient", until, reason: "the GPU is being replaced", audit: CLI_AUDIT },
    );

    const err = await quoteRun(ctx, { model: "atelier/gradient", input: { prompt: "x" } }).then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    expect(err).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(err!.message).toContain("the GPU is being replaced");
    expect(Number(err!.headers["Retry-After"])).toBeGreaterThan(100);
    expect(Number(err!.headers["Retry-After"])).toBeLessThanOrEqual(120);
    await expect(createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "x" } })).rejects.toMatchObject({
      code: "service_unavailable",
    });
    // Other entries are not affected.
    expect((await quoteRun(ctx, { model: "atelier/gradient-classic", input: { prompt: "x" } })).quote.cost_usd).toBe(
      "0.002",
    );

    start(ctx);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await getGeneration(ctx, { id: queued.id })).generation.status).toBe("queued");

    const finished = ctx.services.signals.waitForFinish(queued.id, 30_000);
    expect(await resumeModel({ db }, { modelId: "atelier/gradient", audit: CLI_AUDIT })).toEqual({
      model: "atelier/gradient",
      resumed: true,
    });
    await finished;
    expect((await getGeneration(ctx, { id: queued.id })).generation.status).toBe("succeeded");
    expect(await resumeModel({ db }, { modelId: "atelier/gradient", audit: CLI_AUDIT })).toEqual({
      model: "atelier/gradient",
      resumed: false,
    });
  });

  it("a pause without an end says Retry-After 60; a lapsed pause no longer counts; bad times are refused", async () => {
    const ctx = await workspaceCtx();
    await pauseModel({ db }, { modelId: "atelier/gradient-classic", until: null, audit: CLI_AUDIT });
    const err = (await quoteRun(ctx, { model: "atelier/gradient-classic", input: { prompt: "x" } }).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(err.headers["Retry-After"]).toBe("60");
    await expect(
      pauseModel({ db }, { modelId: "atelier/gradient-classic", until: "tomorrow", audit: CLI_AUDIT }),
    ).rejects.toMatchObject({
      code: "invalid_parameter",
    });
    await expect(
      pauseModel({ db }, { modelId: "atelier/gradient-classic", until: "2020-01-01T00:00:00Z", audit: CLI_AUDIT }),
    ).rejects.toMatchObject({
      code: "invalid_parameter",
    });
    await db
      .updateTable("model_pauses")
      .set({ paused_until: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect((await quoteRun(ctx, { model: "atelier/gradient-classic", input: { prompt: "x" } })).quote.cost_usd).toBe(
      "0.002",
    );
    await resumeModel({ db }, { modelId: "atelier/gradient-classic", audit: CLI_AUDIT });
  });
});
