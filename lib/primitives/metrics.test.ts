import type { Counter, Gauge, Histogram } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelGeneration, createGeneration } from "../core/runs/generations";
import type { Ctx } from "../core/context";
import { createWorkspace } from "../core/workspaces/workspaces";
import { claimNextRun } from "../engine/claim";
import { finishRun } from "../engine/finish";
import { recordAttempt } from "../core/webhooks/webhook-attempt-records";
import { Counter as PromCounter, Registry } from "prom-client";
import { addMetricsSource, METRICS, observeRequest, renderMetrics, startProcessMetrics } from "./metrics";
import { measureQueueDepthFrom } from "../store/queue-depth";
import { testRunTools } from "../models/testing/test-tools";
import { createHealth } from "../providers/common/health";
import { remoteModelDefinition } from "../providers/common/remote-model";
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderConfig,
  type RemoteEntryConfig,
} from "../providers/common/types";
import type { Db, WebhookDeliveriesTable } from "../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import type { AttemptResult } from "../core/webhooks/send-attempt";

const sameLabels = (a: object, b: object) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The current value of a counter or gauge with exactly these labels (0 when never set). */
async function valueOf(metric: Counter<string> | Gauge<string>, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await metric.get();
  return values.find((v) => sameLabels(v.labels, labels))?.value ?? 0;
}

/** How many observations a histogram holds for these labels. */
async function countOf(histogram: Histogram<string>, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await histogram.get();
  return values.find((v) => v.metricName?.endsWith("_count") && sameLabels(v.labels, labels))?.value ?? 0;
}

describe("metrics", () => {
  it("renders the Prometheus text format with every instrument, and the process metrics once started", async () => {
    startProcessMetrics();
    startProcessMetrics(); // a second call registers nothing twice
    const { contentType, body } = await renderMetrics();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      "atelier_http_requests_total",
      "atelier_http_request_duration_seconds",
      "atelier_runs_total",
      "atelier_run_duration_seconds",
      "atelier_queue_wait_seconds",
      "atelier_queue_depth",
      "atelier_webhook_deliveries_total",
      "atelier_provider_errors_total",
      "atelier_rate_limit_refusals_total",
      "atelier_store_write_group_size",
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(body).toContain(`# TYPE ${name} `);
    }
  });

  it("counts a request by route pattern, method and status; an odd method is `other`", async () => {
    const labels = { route: "/v1/metrics-test/:id", method: "GET", status: "200" };
    const before = await valueOf(METRICS.httpRequests, labels);
    observeRequest("/v1/metrics-test/:id", "GET", 200, 0.003);
    observeRequest("/v1/metrics-test/:id", "GET", 200, 0.2);
    observeRequest("/v1/metrics-test/:id", "PROPFIND", 405, 0.001);
    expect(await valueOf(METRICS.httpRequests, labels)).toBe(before + 2);
    expect(await countOf(METRICS.httpDuration, labels)).toBe(before + 2);
    expect(await valueOf(METRICS.httpRequests, { ...labels, method: "other", status: "405" })).toBe(1);
    expect((await renderMetrics()).body).toContain(
      `atelier_http_requests_total{route="/v1/metrics-test/:id",method="GET",status="200"} ${before + 2}`,
    );
  });
});

describe("metrics of another thread", () => {
  it("sums another thread's counters into the scrape, until its source is removed", async () => {
    // What the studio's thread answers: its own registry, with the same instruments.
    const other = new Registry();
    const runs = new PromCounter({
      name: "atelier_runs_total",
      help: "Runs that reached a final status.",
      labelNames: ["model", "status"],
      registers: [other],
    });
    const labels = { model: "atelier/other-thread", status: "canceled" };
    runs.inc(labels, 2);
    METRICS.runs.inc(labels);
    const line = (n: number) => `atelier_runs_total{model="atelier/other-thread",status="canceled"} ${n}`;
    const remove = addMetricsSource(() => other.getMetricsAsJSON());
    try {
      const { body } = await renderMetrics();
      expect(body).toContain(line(3));
      // Only once, however many threads report it.
      expect(body.split("# TYPE atelier_runs_total ").length).toBe(2);
    } finally {
      remove();
    }
    expect((await renderMetrics()).body).toContain(line(1));
  });
});

describe(`metrics from the store (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "metrics test", creditMicros: 1_000_000 })).id);
  }

  it("reads the queue depth from the store when scraped, and NaN when the store does not answer", async () => {
    const own = await openTestStore();
    try {
      const ctx = testCtx(
        own,
        (await createWorkspace({ db: own.store.db }, { name: "queue", creditMicros: 1_000_000 })).id,
      );
      measureQueueDepthFrom(own.store.db);
      expect(await valueOf(METRICS.queueDepth)).toBe(0);
      await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "one" } });
      await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "two" } });
      expect(await valueOf(METRICS.queueDepth)).toBe(2);
      expect((await renderMetrics()).body).toMatch(/^atelier_queue_depth 2$/m);
      await own.store.close();
      expect(await valueOf(METRICS.queueDepth)).toBeNaN();
    } finally {
      measureQueueDepthFrom(db);
      await own.cleanup().catch(() => undefined);
    }
  });

  it("observes the queue wait when a run is claimed, and counts the run by model and final status once it ends", async () => {
    const ctx = await workspaceCtx();
    const model = "atelier/gradient";
    const succeeded = { model, status: "succeeded" };
    const failed = { model, status: "failed" };
    const [runsOk, runsFailed, durations, waits] = [
      await valueOf(METRICS.runs, succeeded),
      await valueOf(METRICS.runs, failed),
      await countOf(METRICS.runDuration, succeeded),
      await countOf(METRICS.queueWait),
    ];
    const { generation: a } = await createGeneration(ctx, { model, input: { prompt: "a" } });
    const { generation: b } = await createGeneration(ctx, { model, input: { prompt: "b" } });
    const owner = "metrics-test";
    const claimed = [
      await claimNextRun(db, t.store.dialect, { owner, leaseMs: 60_000 }),
      await claimNextRun(db, t.store.dialect, { owner, leaseMs: 60_000 }),
    ];
    expect(claimed.map((r) => r?.id).sort()).toEqual([a.id, b.id].sort());
    expect(await countOf(METRICS.queueWait)).toBe(waits + 2);

    // Not the lease holder: nothing ends, nothing is counted.
    expect(
      await finishRun(db, ctx.services, {
        id: a.id,
        owner: "someone-else",
        outcome: { status: "succeeded", outputs: [] },
      }),
    ).toBeNull();
    expect(await valueOf(METRICS.runs, succeeded)).toBe(runsOk);

    expect(
      await finishRun(db, ctx.services, { id: a.id, owner, outcome: { status: "succeeded", outputs: [] } }),
    ).not.toBeNull();
    expect(
      await finishRun(db, ctx.services, { id: b.id, owner, outcome: { status: "failed", message: "no" } }),
    ).not.toBeNull();
    expect(await valueOf(METRICS.runs, succeeded)).toBe(runsOk + 1);
    expect(await valueOf(METRICS.runs, failed)).toBe(runsFailed + 1);
    expect(await countOf(METRICS.runDuration, succeeded)).toBe(durations + 1);
    expect((await renderMetrics()).body).toContain(
      `atelier_runs_total{model="atelier/gradient",status="succeeded"} ${runsOk + 1}`,
    );
  });

  it("counts a canceled run once, and a repeated cancel not again", async () => {
    const ctx = await workspaceCtx();
    const canceled = { model: "atelier/gradient", status: "canceled" };
    const before = await valueOf(METRICS.runs, canceled);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "stop" } });
    await cancelGeneration(ctx, { id: generation.id });
    await cancelGeneration(ctx, { id: generation.id });
    expect(await valueOf(METRICS.runs, canceled)).toBe(before + 1);
  });

  it("counts webhook attempts by outcome: retrying, succeeded, failed; an attempt no longer ours is not counted", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "hook" },
      webhook: "http://127.0.0.1:9/hook",
    });
    await db
      .updateTable("generations")
      .set({
        status: "running",
        started_at: new Date().toISOString(),
        lease_owner: "w",
        lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
      })
      .where("id", "=", generation.id)
      .execute();
    await finishRun(db, ctx.services, { id: generation.id, owner: "w", outcome: { status: "failed", message: "x" } });
    const delivery = await db
      .selectFrom("webhook_deliveries")
      .innerJoin("events", "events.id", "webhook_deliveries.event_id")
      .select("webhook_deliveries.id as delivery_id")
      .where("events.generation_id", "=", generation.id)
      .executeTakeFirstOrThrow();
    const row = async (): Promise<WebhookDeliveriesTable> => {
      await db
        .updateTable("webhook_deliveries")
        .set({ lease_owner: "o" })
        .where("id", "=", delivery.delivery_id)
        .execute();
      return db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("id", "=", delivery.delivery_id)
        .executeTakeFirstOrThrow();
    };
    const ok: AttemptResult = {
      ok: true,
      status: 200,
      latencyMs: 3,
      responseBody: "",
      error: null,
      retryAfterSeconds: null,
      gone: false,
    };
    const fail: AttemptResult = { ...ok, ok: false, status: 500, error: "failed" };
    const outcomes = async () => ({
      retrying: await valueOf(METRICS.webhookDeliveries, { outcome: "retrying" }),
      succeeded: await valueOf(METRICS.webhookDeliveries, { outcome: "succeeded" }),
      failed: await valueOf(METRICS.webhookDeliveries, { outcome: "failed" }),
    });
    const before = await outcomes();
    const schedule = [0, 1];
    await recordAttempt(db, { delivery: await row(), owner: "o", result: fail, at: new Date(), schedule });
    expect(await outcomes()).toEqual({ ...before, retrying: before.retrying + 1 });
    await recordAttempt(db, { delivery: await row(), owner: "not-the-holder", result: ok, at: new Date(), schedule });
    expect(await outcomes()).toEqual({ ...before, retrying: before.retrying + 1 });
    await recordAttempt(db, { delivery: await row(), owner: "o", result: fail, at: new Date(), schedule });
    expect(await outcomes()).toEqual({ ...before, retrying: before.retrying + 1, failed: before.failed + 1 });

    await db
      .updateTable("webhook_deliveries")
      .set({ status: "pending" })
      .where("id", "=", delivery.delivery_id)
      .execute();
    await recordAttempt(db, { delivery: await row(), owner: "o", result: ok, at: new Date(), schedule });
    expect(await outcomes()).toEqual({
      retrying: before.retrying + 1,
      failed: before.failed + 1,
      succeeded: before.succeeded + 1,
    });
  });
});

describe("provider errors", () => {
  const entry: RemoteEntryConfig = {
    id: "metricsco/painter",
    upstreamModel: "painter",
    name: "Painter",
    creator: "Metricsco",
    description: "Fails.",
    modality: "image",
    tasks: ["text-to-image"],
    revision: "2026-11-24",
    status: "beta",
    lifecycle: null,
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
      additionalProperties: false,
    },
    pricing: { unit: "image", usd: "0.10", drivers: [], overrides: [] },
    options: {},
  };
  const failingAdapter = (err: Error): ProviderAdapter => ({
    billsOnSubmit: false,
    health: createHealth(),
    async submit() {
      throw err;
    },
    async poll() {
      throw err;
    },
  });

  it("counts a run a provider failed by provider id, not a canceled one nor the model's own error", async () => {
    const provider: ProviderConfig = {
      id: "metricsco",
      kind: "openai-images",
      baseUrl: "http://127.0.0.1:9",
      apiKey: null,
      timeoutMs: 1_000,
      jobTimeoutMs: null,
      options: {},
      entries: [entry],
    };
    const before = await valueOf(METRICS.providerErrors, { provider: "metricsco" });
    const failing = remoteModelDefinition(
      provider,
      entry,
      failingAdapter(new ProviderError("The provider metricsco failed (HTTP 502).", true)),
    );
    await expect(failing.run({ prompt: "x" }, testRunTools())).rejects.toThrow(/HTTP 502/);
    expect(await valueOf(METRICS.providerErrors, { provider: "metricsco" })).toBe(before + 1);

    const canceled = new AbortController();
    canceled.abort(new Error("canceled"));
    await expect(failing.run({ prompt: "x" }, testRunTools({ signal: canceled.signal }))).rejects.toThrow();
    const ours = remoteModelDefinition(provider, entry, failingAdapter(new Error("a bug of ours")));
    await expect(ours.run({ prompt: "x" }, testRunTools())).rejects.toThrow(/a bug of ours/);
    expect(await valueOf(METRICS.providerErrors, { provider: "metricsco" })).toBe(before + 1);
  });
});
