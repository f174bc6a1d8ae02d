// Routes and failover (issue 38) against the project's fal and Replicate fakes, started here: an
// entry served by fal with a Replicate target, while fal answers every request 503. Its runs
// (Prefer: wait) against the same model run on Replicate directly: the routed p50 may exceed the
// direct one by at most one round trip to the failing provider (the first run's try, measured
// here; then fal is out of service and passed over). Every run is charged its price once.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFalFake, type FalFake } from "../../lib/providers/fal/testing/fal-fake";
import { startReplicateFake, type ReplicateFake } from "../../lib/providers/replicate/testing/replicate-fake";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { percentile } from "../lib/stats";

const PROMPT_ONLY = {
  type: "object",
  additionalProperties: false,
  required: ["prompt"],
  properties: { prompt: { type: "string", minLength: 1 } },
};

const entry = (id: string, upstream: string, extra: Record<string, unknown> = {}) => ({
  id,
  upstream_model: upstream,
  name: id,
  description: "A bench entry.",
  modality: "image",
  tasks: ["text-to-image"],
  input_schema: PROMPT_ONLY,
  pricing: { unit: "image", usd: "0.01" },
  ...extra,
});

export interface FailoverFakes {
  fal: FalFake;
  replicate: ReplicateFake;
  /** The server's environment: the providers file and the fakes' keys. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The fakes and a providers file naming them, before the server starts. */
export async function failoverFakes(): Promise<FailoverFakes> {
  const fal = await startFalFake();
  const replicate = await startReplicateFake();
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "atelier-bench-failover-")), "providers.json");
  writeFileSync(
    file,
    JSON.stringify({
      providers: [
        {
          id: "bench-fal",
          kind: "fal",
          base_url: fal.url,
          run_base_url: fal.runUrl,
          rest_base_url: fal.restUrl,
          api_key_env: "FAL_KEY",
          entries: [
            entry("bench/flux-routed", "fal-ai/flux/dev", {
              routes: { targets: [{ provider: "bench-replicate", upstream_model: "black-forest-labs/flux-schnell" }] },
            }),
          ],
        },
        {
          id: "bench-replicate",
          kind: "replicate",
          base_url: replicate.url,
          api_key_env: "REPLICATE_API_TOKEN",
          entries: [entry("bench/flux-replicate", "black-forest-labs/flux-schnell")],
        },
      ],
    }),
  );
  return {
    fal,
    replicate,
    env: { PROVIDERS_FILE: file, FAL_KEY: fal.key, REPLICATE_API_TOKEN: replicate.token },
    close: async () => {
      await fal.close();
      await replicate.close();
    },
  };
}

async function timedRun(server: ServerHandle, key: string, model: string): Promise<{ ms: number; cost: string }> {
  const started = performance.now();
  const res = await fetch(`${server.api}/v1/generations`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", prefer: "wait=30" },
    body: JSON.stringify({ model, input: { prompt: "a lighthouse" } }),
  });
  const body = (await res.json()) as { status: string; provider: string; usage: { cost_usd: string | null } };
  const ms = performance.now() - started;
  if (res.status !== 201 || body.status !== "succeeded")
    throw new Error(`${model}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  if (body.provider !== "bench-replicate") throw new Error(`${model} ran at ${body.provider}, not bench-replicate`);
  return { ms, cost: body.usage.cost_usd ?? "null" };
}

export async function failoverScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
  fakes: FailoverFakes,
  storeName: string,
): Promise<Row[]> {
  const n = settings.smoke ? 3 : 40;
  // fal fails everything from here on: an outage, not a refusal.
  fakes.fal.failNext(503, { detail: "No runners are available", error_type: "runner_unavailable" }, n * 4, {
    "x-fal-error-type": "runner_unavailable",
  });
  // One round trip to the failing provider, as the bench process sees it.
  const trips: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await (await fetch(`${fakes.fal.url}/fal-ai/flux/dev`, { method: "POST", body: "{}" })).arrayBuffer();
    trips.push(performance.now() - started);
  }
  const roundTrip = percentile(trips, 50)!;

  const available = async () =>
    Number(
      (
        (await (await fetch(`${server.api}/v1/credits`, { headers: { "x-api-key": ws.key } })).json()) as {
          available_usd: string;
        }
      ).available_usd,
    );
  const before = await available();
  const direct: number[] = [];
  const routed: number[] = [];
  const costs = new Set<string>();
  for (let i = 0; i < n; i++) {
    const d = await timedRun(server, ws.key, "bench/flux-replicate");
    const r = await timedRun(server, ws.key, "bench/flux-routed");
    direct.push(d.ms);
    routed.push(r.ms);
    costs.add(d.cost).add(r.cost);
  }
  const charged = Math.round((before - (await available())) * 1e6) / 1e6;
  const once = costs.size === 1 && costs.has("0.01") && Math.abs(charged - 2 * n * 0.01) < 1e-9;
  const extra = percentile(routed, 50)! - percentile(direct, 50)!;
  return [
    {
      scenario: `failover: fal down, routed to Replicate (${n} runs each, Prefer: wait), ${storeName}`,
      figure: "p50 over Replicate direct (baseline: one round trip to fal)",
      unit: "ms",
      value: extra,
      baseline: roundTrip,
      ratio: null,
      target: "≤ one round trip; charged once",
      pass: settings.smoke ? null : extra <= Math.max(roundTrip, 1) && once,
      note: `routed p50 ${percentile(routed, 50)!.toFixed(1)} ms, direct ${percentile(direct, 50)!.toFixed(1)} ms; charged $${charged} for ${2 * n} runs at $0.01${once ? "" : " (NOT once each)"}`,
    },
  ];
}
