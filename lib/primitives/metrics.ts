// The process's Prometheus metrics (prom-client): one registry and the named instruments the
// code that knows each fact bumps in memory with one line (never a store write). GET /metrics
// (api/operate.ts) renders them; the queue depth alone is read from the store, once per scrape.
// Every label value comes from a bounded set (route patterns, catalog model IDs, provider IDs
// from PROVIDERS_FILE, statuses), never from a raw path or a request's own text.
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

export type WebhookOutcome = "succeeded" | "failed" | "retrying";
export type RateLimitKind = "ip" | "key";

function createInstruments() {
  const registry = new Registry();
  const registers = [registry];
  const state = { queueDepth: null as null | (() => Promise<number>), processMetrics: false };
  const httpDurationName = "atelier_http_request_duration_seconds";
  const httpDuration = new Histogram({
    name: httpDurationName,
    help: "Time from a request's arrival to its answer's headers (API) or its end (studio), by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  return {
    registry,
    state,
    httpRequests: new Counter({
      name: "atelier_http_requests_total",
      help: "HTTP requests answered, by route pattern (studio for every page of the studio), method and status.",
      labelNames: ["route", "method", "status"] as const,
      registers,
      // The duration histogram's counts, copied when scraped: a request updates one instrument, not two
      // (every request pays for each update).
      async collect() {
        const { values } = await httpDuration.get();
        this.reset();
        for (const { metricName, labels, value } of values) {
          if (metricName === `${httpDurationName}_count`)
            this.inc(labels as Record<"route" | "method" | "status", string>, value);
        }
      },
    }),
    httpDuration,
    runs: new Counter({
      name: "atelier_runs_total",
      help: "Runs this process ended, by model and final status.",
      labelNames: ["model", "status"] as const,
      registers,
    }),
    runDuration: new Histogram({
      name: "atelier_run_duration_seconds",
      help: "Runs this process ended: completed_at - started_at, by model and final status.",
      labelNames: ["model", "status"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    queueWait: new Histogram({
      name: "atelier_queue_wait_seconds",
      help: "Runs this process started from the queue: started_at - created_at.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    queueDepth: new Gauge({
      name: "atelier_queue_depth",
      help: "Queued runs in the store (all workspaces and processes), read when scraped; NaN when the store did not answer.",
      registers,
      async collect() {
        const read = state.queueDepth;
        if (read) this.set(await read().catch(() => Number.NaN));
      },
    }),
    webhookDeliveries: new Counter({
      name: "atelier_webhook_deliveries_total",
      help: "Webhook delivery attempts this process made, by outcome: succeeded, failed (given up) or retrying.",
      labelNames: ["outcome"] as const,
      registers,
    }),
    providerErrors: new Counter({
      name: "atelier_provider_errors_total",
      help: "Runs a remote provider failed (an outage, a refusal, a timeout), by provider id.",
      labelNames: ["provider"] as const,
      registers,
    }),
    writeGroupSize: new Histogram({
      name: "atelier_store_write_group_size",
      help: "Credit holds of one workspace committed together in one store transaction (group commit), per transaction.",
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    examplePicturesWaiting: new Gauge({
      name: "atelier_example_pictures_waiting",
      help: "Catalog card pictures this process still has to make (queued or in the making); 0 once all are made.",
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: "atelier_rate_limit_refusals_total",
      help: "Requests refused with 429, by the budget they exceeded: ip or key.",
      labelNames: ["kind"] as const,
      registers,
    }),
  };
}

// One set per process, even when a module is loaded twice (the server's copy and the Next
// bundle's copy of lib/ in the same process): kept on globalThis.
const GLOBAL_KEY = Symbol.for("atelier.metrics");
type Instruments = ReturnType<typeof createInstruments>;
const holder = globalThis as { [GLOBAL_KEY]?: Instruments };

/** The registry and every instrument; code bumps them directly (`METRICS.runs.inc(...)`). */
export const METRICS: Instruments = (holder[GLOBAL_KEY] ??= createInstruments());

/** Adds prom-client's process metrics (CPU, memory, event loop, GC, handles); once per process. */
export function startProcessMetrics(): void {
  if (METRICS.state.processMetrics) return;
  METRICS.state.processMetrics = true;
  collectDefaultMetrics({ register: METRICS.registry });
}

/** Another thread's instruments (`registry.getMetricsAsJSON()`), read at each scrape. */
type MetricsSource = () => Promise<object[]>;
const sources = new Set<MetricsSource>();

/**
 * Adds another thread's instruments to this process's scrape (the studio's thread bumps its own
 * copies: a run it cancels): counters and histograms are summed. Answers the removal.
 */
export function addMetricsSource(source: MetricsSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/** This thread's instruments, for another thread's scrape (addMetricsSource). */
export function metricsAsJson(): Promise<object[]> {
  return METRICS.registry.getMetricsAsJSON();
}

/** The exposition text and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const { registry } = METRICS;
  if (sources.size === 0) return { contentType: registry.contentType, body: await registry.metrics() };
  const all = await Promise.all([registry.getMetricsAsJSON(), ...[...sources].map((source) => source())]);
  return { contentType: registry.contentType, body: await AggregatorRegistry.aggregate(all).metrics() };
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One answered request: `route` is a route pattern or a fixed word, never a raw path. */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  // atelier_http_requests_total is filled from this histogram's counts when scraped.
  METRICS.httpDuration.observe(
    { route, method: METHODS.has(method) ? method : "other", status: String(status) },
    seconds,
  );
}

function secondsBetween(from: string | null, to: string | null): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms / 1000) : null;
}

/** A run left the queue (claimed fresh, not recovered): its wait. */
export function observeRunStarted(run: { created_at: string; started_at: string | null }): void {
  const seconds = secondsBetween(run.created_at, run.started_at);
  if (seconds !== null) METRICS.queueWait.observe(seconds);
}

/** A run reached its final status (after the transaction that ended it committed). */
export function observeRunEnded(run: {
  model: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
}): void {
  const labels = { model: run.model, status: run.status };
  METRICS.runs.inc(labels);
  const seconds = secondsBetween(run.started_at, run.completed_at);
  if (seconds !== null) METRICS.runDuration.observe(labels, seconds);
}
