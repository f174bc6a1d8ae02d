// Issue 38, push: a remote job's webhook wakes its run's poll loop. Two "processes" on one store
// (their own store connections, run signals and bridges, as key-revocations.test.ts sets them
// up): the API's, serving the real /v1 app over HTTP, which receives the webhooks; and a worker's,
// whose engine runs the jobs at the Replicate and fal fakes with polls a minute apart, so that a
// run ending within seconds owes it to a webhook the API heard and the signal bridge carried over.
// A forged token is refused (404) and wakes nothing; without PUBLIC_BASE_URL no provider is given
// a webhook and the polls alone carry the run.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "./app";
import { createRateLimits } from "./rate-limit";
import { loadConfig } from "../lib/boot/config";
import { registerRemoteModels } from "../lib/core/catalog/catalog";
import type { Ctx, Services } from "../lib/core/context";
import { createGeneration, getGeneration } from "../lib/core/runs/generations";
import { providerWebhookToken, providerWebhookUrl } from "../lib/core/runs/provider-webhooks";
import { createWorkspace } from "../lib/core/workspaces/workspaces";
import { createLogger } from "../lib/primitives/logger";
import { remoteModelDefinition, type PollOptions } from "../lib/providers/common/remote-model";
import { startFalFake, type FalFake } from "../lib/providers/fal/testing/fal-fake";
import { providerKind } from "../lib/providers/kinds";
import { parseProvidersFile } from "../lib/providers/providers-file";
import { startReplicateFake, type ReplicateFake } from "../lib/providers/replicate/testing/replicate-fake";
import { eventually } from "../lib/providers/testing/test-server";
import { sqliteFileIn, type Store } from "../lib/store/store";
import { openSameStore, openTestStore, testCtx, testDialect, type TestStore } from "../lib/store/testing/test-store";
import { connectCrossProcessSignals } from "../lib/engine/cross-process";
import { startEngine } from "../lib/engine/engine";
import { createRunSignals, type RunSignals } from "../lib/engine/run-signals";

const silent = pino({ level: "silent" });
/** Longer than any test: the bridges' fallback polls sleep, and a job's first poll never comes in time. */
const FOREVER_MS = 600_000;
/** Polls a minute apart: only a webhook can make a run end within seconds. */
const SLOW: Partial<PollOptions> = { firstPollMs: 60_000, maxPollMs: 60_000 };
const FAST: Partial<PollOptions> = { firstPollMs: 10, maxPollMs: 30 };
/** Well under SLOW's first poll, generous for a loaded CI machine. */
const PROMPTLY_MS = 15_000;

function providersFile(replicate: ReplicateFake, fal: FalFake): string {
  const schema = {
    type: "object",
    required: ["prompt"],
    properties: { prompt: { type: "string" } },
    additionalProperties: false,
  };
  return JSON.stringify({
    providers: [
      {
        id: "rep",
        kind: "replicate",
        base_url: replicate.url,
        api_key_env: "REPLICATE_API_TOKEN",
        timeout_ms: 5_000,
        // No held create: the prediction is followed by polls (and nudges) from its first answer.
        wait_seconds: 0,
        entries: [
          {
            id: "bfl/flux-schnell",
            upstream_model: "black-forest-labs/flux-schnell",
            name: "FLUX.1 [schnell]",
            description: "An image.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: schema,
            pricing: { unit: "image", usd: "0.003" },
          },
        ],
      },
      {
        id: "fal",
        kind: "fal",
        base_url: fal.url,
        api_key_env: "FAL_KEY",
        timeout_ms: 5_000,
        entries: [
          {
            id: "bfl/flux-dev",
            upstream_model: "fal-ai/flux/dev",
            name: "FLUX.1 [dev]",
            description: "An image.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: schema,
            pricing: { unit: "image", usd: "0.025" },
          },
        ],
      },
    ],
  });
}

interface Worker {
  signals: RunSignals;
  services: Services;
}

describe(`provider webhooks wake a run's polls, across processes (${testDialect()})`, () => {
  let t: TestStore;
  let elsewhere: Store;
  let sqliteFile: string | null;
  let replicate: ReplicateFake;
  let fal: FalFake;
  let api: { url: string; signals: RunSignals; server: Server };
  let base: Services;
  let workspaceCtx: Ctx;
  /** The API's process, closed after all tests; the workers, after each. */
  const apiClosers: Array<() => Promise<void>> = [];
  const closers: Array<() => Promise<void>> = [];

  const bridge = async (store: Store, signals: RunSignals) => {
    const connected = await connectCrossProcessSignals(store, t.postgres?.databaseUrl ?? null, signals, silent, {
      pollMs: FOREVER_MS,
      ...(sqliteFile ? { sqliteFile } : {}),
    });
    return () => connected.close();
  };

  beforeAll(async () => {
    t = await openTestStore();
    elsewhere = openSameStore(t);
    sqliteFile = t.postgres ? null : sqliteFileIn(t.dataDir);
    replicate = await startReplicateFake();
    fal = await startFalFake();
    const config = loadConfig({ DATA_DIR: t.dataDir });
    const workspace = await createWorkspace({ db: t.store.db }, { name: "push", creditMicros: 10_000_000 });
    workspaceCtx = testCtx(t, workspace.id);
    base = workspaceCtx.services;

    // The API's process: its own signals and bridge, the real app on a real port.
    const signals = createRunSignals();
    const closeBridge = await bridge(t.store, signals);
    const app = createApiApp({
      store: t.store,
      config,
      services: { ...base, signals },
      rateLimits: createRateLimits(config),
      logger: createLogger("silent"),
    });
    const server = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    api = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, signals, server };
    apiClosers.push(closeBridge, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  });

  afterEach(async () => {
    // A test that failed may leave a job running at a fake: end it, so its run ends and its worker stops.
    for (const p of replicate.predictions.values())
      if (p.status === "starting" || p.status === "processing") await replicate.succeed(p.id);
    for (const r of fal.queue.values()) if (r.status !== "COMPLETED") await fal.complete(r.id);
    for (const close of closers.splice(0).reverse()) await close();
    replicate.mode = "auto";
    replicate.autoDelayMs = 0;
    fal.mode = "auto";
    fal.autoDelayMs = 0;
    for (const fake of [replicate, fal]) {
      fake.requests.length = 0;
      fake.webhooks.length = 0;
    }
  });

  afterAll(async () => {
    for (const close of apiClosers.splice(0).reverse()) await close();
    await replicate?.close();
    await fal?.close();
    await elsewhere?.close();
    await t?.cleanup();
  });

  /** The remote entries, with their polls `poll` apart, in the catalog of this (test) process. */
  function register(poll: Partial<PollOptions>): void {
    const configs = parseProvidersFile(providersFile(replicate, fal), {
      REPLICATE_API_TOKEN: replicate.token,
      FAL_KEY: fal.key,
    });
    registerRemoteModels(
      configs.flatMap((config) => {
        const adapter = providerKind(config.kind).createAdapter(config);
        return config.entries.map((entry) => remoteModelDefinition(config, entry, adapter, poll));
      }),
    );
  }

  /** A worker process on the other store connection: its engine runs the jobs; with `push`, its runs get webhook URLs. */
  async function startWorker(push: boolean): Promise<Worker> {
    const signals = createRunSignals();
    closers.push(await bridge(elsewhere, signals));
    const services: Services = { ...base, signals, providerWebhookBaseUrl: push ? api.url : null };
    const engine = startEngine({
      db: elsewhere.db,
      dialect: elsewhere.dialect,
      services,
      logger: silent,
      concurrency: 2,
      idlePollMs: 100,
    });
    closers.push(() => engine.stop(1_000));
    return { signals, services };
  }

  /** Queued by the worker's process (its engine hears it at once). */
  async function run(worker: Worker, model: string, prompt: string) {
    const ctx = { ...workspaceCtx, db: elsewhere.db, services: worker.services };
    return (await createGeneration(ctx, { model, input: { prompt } })).generation;
  }

  /** The run once it ended; throws when it has not within PROMPTLY_MS. */
  async function finished(id: string) {
    const until = Date.now() + PROMPTLY_MS;
    for (;;) {
      const { generation } = await getGeneration(workspaceCtx, { id });
      if (["succeeded", "failed", "canceled"].includes(generation.status)) return generation;
      if (Date.now() > until) throw new Error(`${id} is still ${generation.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const polls = (fake: ReplicateFake | FalFake, pattern: RegExp) =>
    fake.requests.filter((r) => r.method === "GET" && pattern.test(r.path)).length;

  it("a Replicate run with polls a minute apart ends within moments: the webhooks (start, output, completed) nudged its poll loop in the worker", async () => {
    register(SLOW);
    const worker = await startWorker(true);
    // The prediction ends on its own a moment after it is created, not within the create call.
    replicate.autoDelayMs = 300;
    const started = Date.now();
    const gen = await run(worker, "bfl/flux-schnell", "a red fox");
    const done = await finished(gen.id);
    expect(done).toMatchObject({ status: "succeeded", provider: "rep" });
    expect(Date.now() - started).toBeLessThan(SLOW.firstPollMs!);

    const create = replicate.requests.find((r) => r.method === "POST" && r.path.endsWith("/predictions"))!;
    const body = JSON.parse(create.body) as Record<string, unknown>;
    expect(body.webhook).toBe(providerWebhookUrl(worker.services, gen.id));
    expect(body.webhook).toBe(
      `${api.url}/v1/provider-webhooks/${gen.id}?token=${providerWebhookToken(base.secretKey, gen.id)}`,
    );
    expect(body.webhook_events_filter).toEqual(["start", "output", "completed"]);
    // Replicate POSTed the prediction at each event; the API took each at once.
    await eventually(() => replicate.webhooks.every((w) => w.status !== null));
    expect(replicate.webhooks.map((w) => [w.event, w.status, w.answer])).toEqual([
      ["start", 204, ""],
      ["output", 204, ""],
      ["completed", 204, ""],
    ]);
    // Each poll came from a nudge: no more polls than webhooks, and the truth read from Replicate.
    const reads = polls(replicate, /^\/v1\/predictions\/[^/]+$/);
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(3);
  });

  it("a fal run with polls a minute apart ends within moments: fal's completion webhook nudged its poll loop in the worker", async () => {
    register(SLOW);
    const worker = await startWorker(true);
    fal.autoDelayMs = 300;
    const started = Date.now();
    const gen = await run(worker, "bfl/flux-dev", "a quiet harbour");
    const done = await finished(gen.id);
    expect(done).toMatchObject({ status: "succeeded", provider: "fal" });
    expect(Date.now() - started).toBeLessThan(SLOW.firstPollMs!);

    const submit = fal.requests.find((r) => r.method === "POST" && r.path.startsWith("/fal-ai/flux/dev"))!;
    const url = new URL(submit.path, fal.url);
    expect(url.pathname).toBe("/fal-ai/flux/dev");
    expect(url.searchParams.get("fal_webhook")).toBe(providerWebhookUrl(worker.services, gen.id));
    await eventually(() => fal.webhooks.every((w) => w.status !== null));
    expect(fal.webhooks).toHaveLength(1);
    expect(fal.webhooks[0]).toMatchObject({ event: "completed", status: 204, body: { status: "OK" } });
    expect(polls(fal, /\/requests\/[^/]+\/status/)).toBe(1);
  });

  it("a fal job done before its submit's answer is back still ends at once: the nudge waits for the poll loop", async () => {
    register(SLOW);
    const worker = await startWorker(true);
    // Done within the submit call: its webhook comes before the engine has the request's id.
    fal.autoDelayMs = 0;
    const gen = await run(worker, "bfl/flux-dev", "an early bird");
    expect(await finished(gen.id)).toMatchObject({ status: "succeeded", provider: "fal" });
  });

  it("a forged token, a missing one or an unknown run answers 404 and wakes nothing; the real token wakes the run where it runs", async () => {
    register(SLOW);
    const worker = await startWorker(true);
    replicate.mode = "manual";
    const created = replicate.nextPrediction();
    const gen = await run(worker, "bfl/flux-schnell", "held by hand");
    const prediction = await created;
    const url = prediction.webhook!;
    expect(url).toBe(providerWebhookUrl(worker.services, gen.id));

    let heardHere = 0;
    let heardThere = 0;
    const stops = [
      api.signals.onProviderEvent(gen.id, () => heardHere++),
      worker.signals.onProviderEvent(gen.id, () => heardThere++),
    ];
    try {
      const post = (to: string) =>
        fetch(to, { method: "POST", headers: { "content-type": "application/json" }, body: '{"status":"succeeded"}' });
      const forged = new URL(url);
      forged.searchParams.set("token", providerWebhookToken("another-secret-another-secret-0123", gen.id));
      const unknown = `${api.url}/v1/provider-webhooks/gen_unknown?token=${providerWebhookToken(base.secretKey, "gen_unknown")}`;
      const otherRun = `${api.url}/v1/provider-webhooks/gen_other?token=${new URL(url).searchParams.get("token")}`;
      for (const to of [forged.href, `${api.url}/v1/provider-webhooks/${gen.id}`, unknown, otherRun]) {
        const answer = await post(to);
        expect(answer.status, to).toBe(404);
        expect(await answer.json()).toMatchObject({
          error: { type: "invalid_request_error", code: "resource_not_found", param: null },
        });
      }
      // The real token with a body past the API's limit for JSON bodies: refused as any such body, unread past it.
      const huge = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ logs: "x".repeat(1_100_000) }),
      });
      expect(huge.status).toBe(413);
      expect(await huge.json()).toMatchObject({ error: { code: "payload_too_large" } });
      // Long enough for a nudge to cross the bridge had one been sent.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([heardHere, heardThere]).toEqual([0, 0]);
      expect(polls(replicate, /^\/v1\/predictions\/[^/]+$/)).toBe(0);

      // The body says "succeeded": it is never believed. The poll it causes reads "starting".
      const good = await post(url);
      expect(good.status).toBe(204);
      await eventually(() => heardThere === 1 && polls(replicate, /^\/v1\/predictions\/[^/]+$/) === 1);
      expect(heardHere).toBe(1);
      expect((await getGeneration(workspaceCtx, { id: gen.id })).generation.status).toBe("running");

      // Ended by Replicate: its webhooks end the run, long before the next poll was due.
      await replicate.succeed(prediction.id);
      expect(await finished(gen.id)).toMatchObject({ status: "succeeded" });
      await eventually(() => replicate.webhooks.every((w) => w.status !== null));
      expect(replicate.webhooks.map((w) => w.status)).toEqual([204, 204, 204]);
      // A webhook for a finished run is taken (204) and wakes nothing.
      const heard = heardHere;
      const late = await post(url);
      expect(late.status).toBe(204);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heardHere).toBe(heard);
    } finally {
      for (const stop of stops) stop();
    }
  });

  it("without PUBLIC_BASE_URL no provider is given a webhook, and the polls alone end the runs as before", async () => {
    register(FAST);
    const worker = await startWorker(false);
    replicate.autoDelayMs = 100;
    fal.autoDelayMs = 100;
    const before = { replicate: replicate.webhooks.length, fal: fal.webhooks.length };
    const a = await run(worker, "bfl/flux-schnell", "no push here");
    const b = await run(worker, "bfl/flux-dev", "no push there");
    expect(await finished(a.id)).toMatchObject({ status: "succeeded" });
    expect(await finished(b.id)).toMatchObject({ status: "succeeded" });

    const prediction = [...replicate.predictions.values()].find((p) => p.input.prompt === "no push here")!;
    expect([prediction.webhook, prediction.webhookEventsFilter]).toEqual([null, null]);
    const create = replicate.requests.find((r) => r.method === "POST" && r.body.includes("no push here"))!;
    expect(Object.keys(JSON.parse(create.body) as object)).not.toContain("webhook");
    const queued = [...fal.queue.values()].find((r) => r.input.prompt === "no push there")!;
    expect(queued.webhook).toBeNull();
    expect({ replicate: replicate.webhooks.length, fal: fal.webhooks.length }).toEqual(before);
  });
});
