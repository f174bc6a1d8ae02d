// What each run costs upstream, through the real engine and store against the providers' fakes:
// a Replicate run counted on the seconds the prediction reports (`metrics.predict_time`), a
// per-unit cost priced from the input as the price is (drivers, overrides), a fal run on its wall
// time (fal reports none); a failed prediction on the seconds Replicate bills for it; nothing for
// built-ins, entries without `cost` or a failed run of a per-unit cost; and never
// shown to the workspace (its Generation, event, usage, the catalog).
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPublicModel, registerRemoteModels } from "../core/catalog/catalog";
import type { Ctx } from "../core/context";
import { createGeneration, getGeneration } from "../core/runs/generations";
import { getUsage } from "../core/usage/usage";
import { createWorkspace } from "../core/workspaces/workspaces";
import { convertOpenApiInput } from "../providers/common/openapi-schema";
import { remoteModelDefinition } from "../providers/common/remote-model";
import { FAKE_FAL_ENDPOINTS, startFalFake, type FalFake } from "../providers/fal/testing/fal-fake";
import { providerKind } from "../providers/kinds";
import { parseProvidersFile } from "../providers/providers-file";
import {
  FAKE_REPLICATE_MODELS,
  startReplicateFake,
  type ReplicateFake,
} from "../providers/replicate/testing/replicate-fake";
import type { GenerationsTable } from "../store/database";
import { testCtx, testDialect, useTestStore } from "../store/testing/test-store";
import { startEngine, type Engine } from "./engine";

const FAST = { firstPollMs: 10, maxPollMs: 30 };
const WAIT_MS = 20_000;

type Doc = { components: { schemas: Record<string, Record<string, unknown>> } };

function replicateInput(): Record<string, unknown> {
  const doc = FAKE_REPLICATE_MODELS[0]!.openapiSchema as Doc;
  return convertOpenApiInput(doc.components.schemas.Input!, doc).schema;
}

function falInput(): Record<string, unknown> {
  const doc = FAKE_FAL_ENDPOINTS[0]!.openapi as Doc;
  const input = Object.entries(doc.components.schemas).find(([name]) => name.endsWith("Input"))![1];
  return convertOpenApiInput(input, doc).schema;
}

const flux = FAKE_REPLICATE_MODELS[0]!;
const image = (id: string, extra: Record<string, unknown>) => ({
  id,
  upstream_model: `${flux.owner}/${flux.name}`,
  name: id,
  description: "FLUX.1 [schnell] on Replicate.",
  modality: "image",
  tasks: ["text-to-image"],
  input_schema: replicateInput(),
  pricing: { unit: "image", usd: "0.003", drivers: ["num_outputs"] },
  ...extra,
});

function providersFile(replicate: ReplicateFake, fal: FalFake): string {
  return JSON.stringify({
    providers: [
      {
        id: "cost-replicate",
        kind: "replicate",
        base_url: replicate.url,
        api_key_env: "REPLICATE_API_TOKEN",
        timeout_ms: 5_000,
        entries: [
          // Replicate bills a community model by the second: $0.000225 a second here.
          image("costs/flux-by-time", { cost: { per_second_usd: "0.000225" } }),
          image("costs/flux-by-image", {
            cost: {
              unit: "image",
              usd: "0.002",
              drivers: ["num_outputs"],
              overrides: [{ when: { output_format: "png" }, usd: "0.0025" }],
            },
          }),
          image("costs/flux-no-cost", {}),
        ],
      },
      {
        id: "cost-fal",
        kind: "fal",
        base_url: fal.url,
        run_base_url: fal.runUrl,
        rest_base_url: fal.restUrl,
        api_key_env: "FAL_KEY",
        timeout_ms: 5_000,
        entries: [
          {
            id: "costs/fal-by-time",
            upstream_model: "fal-ai/flux/dev",
            name: "FLUX.1 [dev]",
            description: "FLUX.1 [dev] on fal.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: falInput(),
            pricing: { unit: "image", usd: "0.025", drivers: ["num_images"] },
            cost: { per_second_usd: "0.001" },
          },
        ],
      },
    ],
  });
}

describe(`provider cost through the engine (${testDialect()})`, () => {
  const s = useTestStore();
  let replicate: ReplicateFake;
  let fal: FalFake;
  let engine: Engine;
  let ctx: Ctx;

  beforeAll(async () => {
    replicate = await startReplicateFake();
    fal = await startFalFake();
    const configs = parseProvidersFile(providersFile(replicate, fal), {
      REPLICATE_API_TOKEN: replicate.token,
      FAL_KEY: fal.key,
    });
    registerRemoteModels(
      configs.flatMap((config) => {
        const adapter = providerKind(config.kind).createAdapter(config);
        return config.entries.map((entry) => remoteModelDefinition(config, entry, adapter, FAST));
      }),
    );
    ctx = testCtx(s.t, (await createWorkspace({ db: s.db }, { name: "costs", creditMicros: 10_000_000 })).id);
    engine = startEngine({
      db: s.db,
      dialect: s.t.store.dialect,
      services: ctx.services,
      logger: pino({ level: "silent" }),
      concurrency: 2,
      idlePollMs: 25,
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await replicate?.close();
    await fal?.close();
  });

  /** Runs `model` to its end through the engine; its row as stored. */
  async function run(model: string, input: Record<string, unknown>, started?: (id: string) => Promise<void>) {
    const { generation } = await createGeneration(ctx, { model, input });
    const finished = ctx.services.signals.waitForFinish(generation.id, WAIT_MS);
    await started?.(generation.id);
    await finished;
    return s.db.selectFrom("generations").selectAll().where("id", "=", generation.id).executeTakeFirstOrThrow();
  }

  const money = (row: GenerationsTable) => ({
    status: row.status,
    charged: row.charged_micros === null ? null : Number(row.charged_micros),
    cost: row.provider_cost_micros == null ? null : Number(row.provider_cost_micros),
  });

  it("counts a Replicate run's cost on the seconds the prediction reports (metrics.predict_time), beside its charge", async () => {
    replicate.predictTime = 12.5;
    const row = await run("costs/flux-by-time", { prompt: "a lighthouse", num_outputs: 2 });
    // Charged 2 × $0.003; cost 12.5 s × $0.000225 = $0.0028125, rounded up to a micro-dollar.
    expect(money(row)).toEqual({ status: "succeeded", charged: 6_000, cost: 2_813 });
    expect(row.provider).toBe("cost-replicate");
    const prediction = [...replicate.predictions.values()].at(-1)!;
    expect(prediction).toMatchObject({ status: "succeeded", predictTime: 12.5 });
    replicate.predictTime = 0.4;
    expect(money(await run("costs/flux-by-time", { prompt: "a short one" }))).toEqual({
      status: "succeeded",
      charged: 3_000,
      cost: 90,
    });
  });

  it("prices a per-unit cost from the run's input as the price is: drivers and overrides", async () => {
    expect(money(await run("costs/flux-by-image", { prompt: "three cats", num_outputs: 3 }))).toEqual({
      status: "succeeded",
      charged: 9_000,
      cost: 6_000,
    });
    expect(
      money(await run("costs/flux-by-image", { prompt: "two pngs", num_outputs: 2, output_format: "png" })),
    ).toEqual({ status: "succeeded", charged: 6_000, cost: 5_000 });
  });

  it("counts a per-second cost on the run's wall time when the provider reports none (fal)", async () => {
    fal.mode = "manual";
    try {
      const row = await run("costs/fal-by-time", { prompt: "a slow one" }, async () => {
        const request = await fal.nextRequest();
        await new Promise((resolve) => setTimeout(resolve, 400));
        await fal.complete(request.id);
      });
      expect(row.status).toBe("succeeded");
      const wallMs = Date.parse(row.completed_at!) - Date.parse(row.started_at!);
      // $0.001 a second: at least the 400 ms the request was held, at most its run time.
      const cost = Number(row.provider_cost_micros);
      expect(cost).toBeGreaterThanOrEqual(400);
      expect(cost).toBeLessThanOrEqual(Math.ceil(wallMs));
    } finally {
      fal.mode = "auto";
    }
  });

  it("records no cost for a built-in model, an entry without one, or a failed run's per-unit cost", async () => {
    expect(money(await run("atelier/gradient", { prompt: "built in" }))).toMatchObject({
      status: "succeeded",
      cost: null,
    });
    expect(money(await run("costs/flux-no-cost", { prompt: "no cost declared" }))).toEqual({
      status: "succeeded",
      charged: 3_000,
      cost: null,
    });
    // The fake's safety checker refuses it: nothing charged; nothing was made, so no unit cost.
    expect(money(await run("costs/flux-by-image", { prompt: "refuse this" }))).toEqual({
      status: "failed",
      charged: null,
      cost: null,
    });
  });

  it("records a failed prediction's cost on the seconds Replicate reports billing for it", async () => {
    replicate.predictTime = 2;
    // Refused after it started: nothing charged, 2 s × $0.000225 = $0.00045 cost to us.
    expect(money(await run("costs/flux-by-time", { prompt: "refuse this" }))).toEqual({
      status: "failed",
      charged: null,
      cost: 450,
    });
    replicate.predictTime = 0.5;
  });

  it("never shows the cost to the workspace: its Generation, its event, its usage, the catalog entry", async () => {
    replicate.predictTime = 7.654321;
    const row = await run("costs/flux-by-time", { prompt: "secret margin", num_outputs: 1 });
    // 7.654321 s × $0.000225: 1,722.222… → 1,723 micro-dollars.
    expect(money(row)).toEqual({ status: "succeeded", charged: 3_000, cost: 1_723 });
    const told = (value: unknown) => JSON.stringify(value);
    const hidden = (text: string) => {
      expect(text).not.toMatch(/provider_cost|1723|0\.001723|per_second|0\.000225/);
    };
    const { generation } = await getGeneration(ctx, { id: row.id });
    expect(generation.usage).toEqual({ cost_usd: "0.003" });
    hidden(told(generation));
    const events = await s.db.selectFrom("events").select("payload_json").where("generation_id", "=", row.id).execute();
    expect(events).toHaveLength(1);
    hidden(events[0]!.payload_json);
    const today = row.created_at.slice(0, 10);
    for (const group_by of ["day", "model", "key"] as const)
      hidden(told(await getUsage(ctx, { from: today, to: today, group_by })));
    const model = await getPublicModel(s.db, { id: "costs/flux-by-time" });
    expect(model).not.toHaveProperty("cost");
    hidden(told(model));
  });
});
