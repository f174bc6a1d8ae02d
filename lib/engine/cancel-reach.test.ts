// A cancel reaches the running model at once: the engine hears the run's finish signal and looks
// at its lease then, not at its next renewal. The lease here is ten minutes (renewed every 200 s),
// so only the signal can stop the model before the test's own timeout.
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { registerRemoteModels } from "../core/catalog/catalog";
import type { ModelDefinition } from "../core/catalog/model-definition";
import { cancelGeneration, createGeneration, getGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import { objectSchema } from "../models/common/fields";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { startEngine, type Engine } from "./engine";

const silent = pino({ level: "silent" });
let started: () => void = () => {};
let stopped: (reason: unknown) => void = () => {};

/** Runs until its signal aborts, telling the test when it started and why it stopped. */
const waiting: ModelDefinition = {
  id: "test/waits-for-cancel",
  type: "model",
  name: "Waits",
  creator: "Test",
  modality: "image",
  tasks: ["text-to-image"],
  description: "test entry",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "run", usd: "0.01", drivers: [], overrides: [] },
  lifecycle: null,
  input_schema: objectSchema({ prompt: { type: "string", title: "Prompt", description: "Words." } }, ["prompt"]),
  run(_input, tools) {
    started();
    return new Promise((_resolve, reject) => {
      tools.signal.addEventListener("abort", () => {
        stopped(tools.signal.reason);
        reject(tools.signal.reason as Error);
      });
    });
  },
};

registerRemoteModels([waiting]);

describe(`a cancel reaches the running model (${testDialect()})`, () => {
  let t: TestStore;
  let engine: Engine | null = null;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("through the run's finish signal, long before the lease's next renewal", async () => {
    const workspace = await createWorkspace({ db: t.store.db }, { name: "cancel reach", creditMicros: 1_000_000 });
    const ctx = testCtx(t, workspace.id);
    const running = new Promise<void>((resolve) => (started = resolve));
    const aborted = new Promise<unknown>((resolve) => (stopped = resolve));
    engine = startEngine({
      db: t.store.db,
      dialect: t.store.dialect,
      services: ctx.services,
      logger: silent,
      concurrency: 1,
      idlePollMs: 25,
      leaseMs: 600_000,
    });
    const { generation } = await createGeneration(ctx, { model: waiting.id, input: { prompt: "x" } });
    await running;
    const { generation: canceled } = await cancelGeneration(ctx, { id: generation.id });
    expect(canceled.status).toBe("canceled");
    await aborted;
    expect((await getGeneration(ctx, { id: generation.id })).generation.status).toBe("canceled");
  });
});
