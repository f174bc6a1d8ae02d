// Routes and failover (issue 38) through the real engine and store against the fal and Replicate
// fakes: an entry served by fal with a Replicate target. fal failing with an outage hands the run
// to Replicate, which makes the outputs, names the run's provider, and is charged once; a
// refusal at fal fails the run there; fal out of service is passed over. The attempts are kept
// with the run, never in its Generation.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerRemoteModels } from "../core/catalog/catalog";
import type { RouteAttempt } from "../core/catalog/model-definition";
import type { Ctx } from "../core/context";
import { readBalance } from "../core/credits/credits";
import { createGeneration, getGeneration } from "../core/runs/generations";
import { createWorkspace } from "../core/workspaces/workspaces";
import { startFalFake, type FalFake } from "../providers/fal/testing/fal-fake";
import { remoteModels } from "../providers/index";
import { parseProvidersFile } from "../providers/providers-file";
import { startReplicateFake, type ReplicateFake } from "../providers/replicate/testing/replicate-fake";
import { testCtx, testDialect, useTestStore } from "../store/testing/test-store";
import { startEngine, type Engine } from "./engine";

const WAIT_MS = 30_000;
const PROMPT_ONLY = {
  type: "object",
  additionalProperties: false,
  required: ["prompt"],
  properties: { prompt: { type: "string", minLength: 1 } },
};

function providersFile(fal: FalFake, replicate: ReplicateFake): string {
  return JSON.stringify({
    providers: [
      {
        id: "route-fal",
        kind: "fal",
        base_url: fal.url,
        run_base_url: fal.runUrl,
        rest_base_url: fal.restUrl,
        api_key_env: "FAL_KEY",
        timeout_ms: 5_000,
        entries: [
          {
            id: "routes/flux",
            upstream_model: "fal-ai/flux/dev",
            name: "FLUX, routed",
            description: "FLUX on fal, Replicate when fal fails.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: PROMPT_ONLY,
            pricing: { unit: "image", usd: "0.02" },
            routes: {
              policy: "ordered",
              targets: [{ provider: "route-replicate", upstream_model: "black-forest-labs/flux-schnell" }],
            },
          },
        ],
      },
      {
        id: "route-replicate",
        kind: "replicate",
        base_url: replicate.url,
        api_key_env: "REPLICATE_API_TOKEN",
        timeout_ms: 5_000,
        entries: [],
      },
    ],
  });
}

describe(`routes and failover through the engine (${testDialect()})`, () => {
  const s = useTestStore();
  let fal: FalFake;
  let replicate: ReplicateFake;
  let engine: Engine;
  let ctx: Ctx;

  beforeAll(async () => {
    fal = await startFalFake();
    replicate = await startReplicateFake();
    const configs = parseProvidersFile(providersFile(fal, replicate), {
      FAL_KEY: fal.key,
      REPLICATE_API_TOKEN: replicate.token,
    });
    registerRemoteModels(remoteModels(configs));
    ctx = testCtx(s.t, (await createWorkspace({ db: s.db }, { name: "routes", creditMicros: 10_000_000 })).id);
    engine = startEngine({
      db: s.db,
      dialect: s.t.store.dialect,
      services: ctx.services,
      logger: pino({ level: "silent" }),
      concurrency: 1,
      idlePollMs: 25,
    });
  });
  afterAll(async () => {
    registerRemoteModels([]);
    await engine?.stop();
    await fal?.close();
    await replicate?.close();
  });

  async function run(prompt: string) {
    const before = await readBalance(s.db, ctx.workspaceId);
    const { generation } = await createGeneration(ctx, { model: "routes/flux", input: { prompt } });
    await ctx.services.signals.waitForFinish(generation.id, WAIT_MS);
    const row = await s.db
      .selectFrom("generations")
      .selectAll()
      .where("id", "=", generation.id)
      .executeTakeFirstOrThrow();
    const after = await readBalance(s.db, ctx.workspaceId);
    const attempts = JSON.parse(row.route_attempts_json ?? "[]") as RouteAttempt[];
    return { row, attempts, spent: Number(before.availableMicros) - Number(after.availableMicros), id: generation.id };
  }

  it("fails a refusal at the first target there: no other target gets it", async () => {
    const predictions = replicate.predictions.size;
    const { row, attempts, spent } = await run("please refuse");
    expect(row.status).toBe("failed");
    expect(row.error_message).toMatch(/refused/);
    expect(attempts.map((a) => [a.provider, a.outcome])).toEqual([["route-fal", "failed"]]);
    expect(replicate.predictions.size).toBe(predictions);
    expect(spent).toBe(0);
  });

  it("hands an outage at fal to Replicate: its outputs, its name on the run, charged once", async () => {
    fal.failNext(503, { detail: "No runners are available", error_type: "runner_unavailable" }, 1, {
      "x-fal-error-type": "runner_unavailable",
    });
    const { row, attempts, spent, id } = await run("a lighthouse at dusk");
    expect(row.status).toBe("succeeded");
    expect(row.provider).toBe("route-replicate");
    expect(attempts.map((a) => [a.provider, a.upstream_model, a.outcome])).toEqual([
      ["route-fal", "fal-ai/flux/dev", "failed"],
      ["route-replicate", "black-forest-labs/flux-schnell", "succeeded"],
    ]);
    expect(attempts[0]!.reason).toMatch(/HTTP 503/);
    expect(spent).toBe(20_000);
    expect(Number(row.charged_micros)).toBe(20_000);
    // The public Generation names the target that made the outputs, and nothing of the attempts.
    const { generation } = await getGeneration(ctx, { id });
    expect(generation.provider).toBe("route-replicate");
    expect(JSON.stringify(generation)).not.toContain("route-fal");
  });

  it("passes over a target out of service: fal's outage above still holds", async () => {
    const falRequests = fal.requests.length;
    const { row, attempts } = await run("a heron");
    expect(row.status).toBe("succeeded");
    expect(attempts.map((a) => [a.provider, a.outcome])).toEqual([
      ["route-fal", "skipped"],
      ["route-replicate", "succeeded"],
    ]);
    expect(attempts[0]!.reason).toMatch(/^out of service/);
    expect(fal.requests.length).toBe(falRequests);
  });
});
