// The run engine: created → running on an idle queue, the fastest image model end to end with
// `Prefer: wait`, against the model's own time measured in this process.
import { BUILT_IN_MODELS } from "../../lib/models";
import { runModelForTest, testRunTools } from "../../lib/models/testing/test-tools";
import type { BenchSettings } from "../lib/context";
import { endedRuns } from "../lib/ended-runs";
import { queueRuns } from "../lib/idle-readers";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { percentile, sleep } from "../lib/stats";

/** Image models that need no file input, with a typical input each. */
const IMAGE_CANDIDATES: Record<string, Record<string, unknown>> = {
  "atelier/gradient": { prompt: "ocean dusk" },
  "atelier/qr-code": { content: "https://atelier.example/launch" },
  "atelier/artwork": { prompt: "pastel mountains at sunrise" },
};

export interface FastestModel {
  id: string;
  input: Record<string, unknown>;
  /** Median milliseconds of the model alone, in this process. */
  modelMs: number;
}

/** Times each candidate in-process (as scripts/model-timings.ts does) and keeps the fastest. */
export async function fastestImageModel(settings: BenchSettings): Promise<FastestModel> {
  const runs = settings.smoke ? 3 : 15;
  let best: FastestModel | null = null;
  for (const [id, input] of Object.entries(IMAGE_CANDIDATES)) {
    const model = BUILT_IN_MODELS.find((m) => m.id === id);
    if (!model) continue;
    const times: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const tools = testRunTools({ models: BUILT_IN_MODELS });
      const started = performance.now();
      await runModelForTest(model, input, tools);
      if (i >= 2) times.push(performance.now() - started); // two warm-up runs
    }
    const modelMs = percentile(times, 50)!;
    if (!best || modelMs < best.modelMs) best = { id, input, modelMs };
  }
  if (!best) throw new Error("no image model to time");
  return best;
}

interface Generation {
  id: string;
  status: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export async function createAndWait(
  server: ServerHandle,
  key: string,
  body: string,
): Promise<{ generation: Generation; ms: number; answeredAt: number }> {
  const started = performance.now();
  const res = await fetch(`${server.api}/v1/generations`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", prefer: "wait=30" },
    body,
  });
  // The wall clock, to compare with the store's completed_at (same machine, same clock).
  const answeredAt = Date.now();
  const generation = (await res.json()) as Generation;
  const ms = performance.now() - started;
  if (res.status !== 201) throw new Error(`POST /v1/generations answered ${res.status}: ${JSON.stringify(generation)}`);
  return { generation, ms, answeredAt };
}

export interface QueueLatency {
  /** created_at → started_at, ms. */
  started: number[];
  /** completed_at → the waiting client has the answer, ms. */
  answered: number[];
}

/**
 * Runs created one at a time on an idle queue, each with `Prefer: wait` (then a pause so every
 * worker slot is asleep again): created_at → started_at as the store recorded them (millisecond
 * times), and completed_at → the moment the waiting request was answered.
 */
export async function queueLatency(
  settings: BenchSettings,
  server: ServerHandle,
  key: string,
  model: FastestModel,
): Promise<QueueLatency> {
  const n = settings.smoke ? 3 : 100;
  const body = JSON.stringify({ model: model.id, input: model.input });
  const latency: QueueLatency = { started: [], answered: [] };
  for (let i = 0; i < n; i++) {
    const { generation, answeredAt } = await createAndWait(server, key, body);
    if (generation.status !== "succeeded" || !generation.started_at || !generation.completed_at)
      throw new Error(`run ${generation.id} ended ${generation.status}`);
    latency.started.push(Date.parse(generation.started_at) - Date.parse(generation.created_at));
    latency.answered.push(answeredAt - Date.parse(generation.completed_at));
    await sleep(30);
  }
  return latency;
}

/** Both figures of queueLatency: the queue's pick-up (target on p50) and the wait's wake-up (target 100 ms on p99). */
export function queueRows(where: string, latency: QueueLatency, p50Target: number | null): Row[] {
  const queue = `idle queue: created → running, ${where}`;
  const wake = `Prefer: wait: run finished → answered, ${where}`;
  const p50 = percentile(latency.started, 50)!;
  const wakeP99 = percentile(latency.answered, 99)!;
  return [
    p50Target === null
      ? { scenario: queue, figure: "p50", unit: "ms", value: p50, baseline: null, ratio: null, target: "–", pass: null }
      : {
          scenario: queue,
          figure: "p50",
          unit: "ms",
          value: p50,
          baseline: null,
          ratio: null,
          target: `≤ ${p50Target} ms`,
          pass: p50 <= p50Target,
        },
    {
      scenario: queue,
      figure: "p99",
      unit: "ms",
      value: percentile(latency.started, 99)!,
      baseline: null,
      ratio: null,
      target: "–",
      pass: null,
    },
    {
      scenario: wake,
      figure: "p50",
      unit: "ms",
      value: percentile(latency.answered, 50)!,
      baseline: null,
      ratio: null,
      target: "–",
      pass: null,
    },
    {
      scenario: wake,
      figure: "p99",
      unit: "ms",
      value: wakeP99,
      baseline: null,
      ratio: null,
      target: "≤ 100 ms",
      pass: wakeP99 <= 100,
    },
  ];
}

/** The fastest image model through the API, one run at a time, answered when done. */
export async function preferWaitScenario(
  settings: BenchSettings,
  server: ServerHandle,
  key: string,
  model: FastestModel,
): Promise<Row[]> {
  const scenario = `${model.id} end to end, Prefer: wait`;
  const n = settings.smoke ? 3 : 50;
  const body = JSON.stringify({ model: model.id, input: model.input });
  for (let i = 0; i < (settings.smoke ? 1 : 5); i++) await createAndWait(server, key, body); // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const { generation, ms } = await createAndWait(server, key, body);
    if (generation.status !== "succeeded") throw new Error(`run ${generation.id} ended ${generation.status}`);
    times.push(ms);
  }
  const p50 = percentile(times, 50)!;
  return [
    {
      scenario,
      figure: "p50 (baseline: the model alone)",
      unit: "ms",
      value: p50,
      baseline: model.modelMs,
      ratio: p50 / model.modelMs,
      target: `≤ model + 20 ms`,
      pass: p50 <= model.modelMs + 20,
    },
  ];
}

/**
 * How many runs one server finishes a second with its own worker slots (docs/performance.md):
 * `n` runs of the fastest model queued at once through batches in a workspace of their own, then
 * the span from the first created_at to the last completed_at, read from the store.
 */
export async function runThroughputScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
  model: FastestModel,
  workers: number,
): Promise<Row[]> {
  const n = settings.smoke ? 10 : 400;
  await queueRuns(server, ws.key, n, { model: model.id, input: model.input });
  const rows = await endedRuns(server, [ws.workspaceId], n);
  const first = Math.min(...rows.map((r) => Date.parse(r.created_at)));
  const last = Math.max(...rows.map((r) => Date.parse(r.completed_at!)));
  const perSecond = (n * 1000) / Math.max(1, last - first);
  return [
    {
      scenario: `${model.id} runs finished by one server (WORKER_CONCURRENCY=${workers}, ${n} queued at once)`,
      figure: "runs/s",
      unit: "/s",
      value: perSecond,
      baseline: 1000 / model.modelMs,
      ratio: perSecond / (1000 / model.modelMs),
      target: "–",
      pass: null,
      note: "baseline: the model alone, one at a time in the bench process",
    },
  ];
}
