// How soon a cancel reaches the provider (issue 38: within 1 s of the answer, p99), against the
// project's ComfyUI fake started here, holding each prompt running: a run is created, its prompt
// reaches the box, POST /v1/generations/{id}/cancel answers `canceled`, and the time until the
// box is asked to interrupt that prompt is measured (the fake's own record, looked at every ms).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startComfyFake, type FakeComfy } from "../../lib/providers/comfyui/testing/comfyui-fake";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import { ROOT, type ServerHandle } from "../lib/server";
import { percentile, sleep } from "../lib/stats";

export interface CancelFakes {
  comfy: FakeComfy;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The ComfyUI fake (holding every prompt) and a providers file naming it, before the server starts. */
export async function cancelFakes(): Promise<CancelFakes> {
  const comfy = await startComfyFake();
  comfy.setMode("hold");
  const workflow = JSON.parse(
    readFileSync(path.join(ROOT, "e2e/api/fixtures/comfyui/workflows/sdxl.json"), "utf8"),
  ) as Record<string, unknown>;
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "atelier-bench-cancel-")), "providers.json");
  writeFileSync(
    file,
    JSON.stringify({
      providers: [
        {
          id: "bench-box",
          kind: "comfyui",
          base_url: comfy.url,
          entries: [
            {
              id: "bench/sdxl-held",
              name: "SDXL, held",
              description: "A prompt the fake holds running until canceled.",
              modality: "image",
              tasks: ["text-to-image"],
              workflow,
              bindings: { prompt: { node: "6", input: "text" } },
              input_schema: {
                type: "object",
                additionalProperties: false,
                required: ["prompt"],
                properties: { prompt: { type: "string", minLength: 1 } },
              },
              pricing: { unit: "image", usd: "0.01" },
            },
          ],
        },
      ],
    }),
  );
  return { comfy, env: { PROVIDERS_FILE: file }, close: () => comfy.close() };
}

async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
}

export async function cancelReachScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { key: string },
  fakes: CancelFakes,
  storeName: string,
): Promise<Row[]> {
  const n = settings.smoke ? 3 : 30;
  const headers = { "x-api-key": ws.key, "content-type": "application/json" };
  const reach: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.api}/v1/generations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "bench/sdxl-held", input: { prompt: `held ${i}` } }),
    });
    const { id } = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
    await until(() => fakes.comfy.running() !== null, "the prompt to run at the box");
    const prompt = fakes.comfy.running()!;
    const cancel = await fetch(`${server.api}/v1/generations/${id}/cancel`, { method: "POST", headers });
    const answered = performance.now();
    const body = (await cancel.json()) as { status: string };
    if (cancel.status !== 200 || body.status !== "canceled")
      throw new Error(`cancel answered ${cancel.status} ${JSON.stringify(body)}`);
    await until(() => fakes.comfy.interrupted.includes(prompt), "the box to be asked to interrupt");
    reach.push(performance.now() - answered);
    // The interrupted prompt leaves the box before the next run.
    await until(() => fakes.comfy.running() === null, "the box to be idle");
  }
  const p99 = percentile(reach, 99)!;
  return [
    {
      scenario: `cancel of a run at ComfyUI: canceled answered → the box asked to interrupt (${n} runs), ${storeName}`,
      figure: "p99",
      unit: "ms",
      value: p99,
      baseline: null,
      ratio: null,
      target: "≤ 1000 ms",
      pass: settings.smoke ? null : p99 <= 1000,
      note: `p50 ${percentile(reach, 50)!.toFixed(1)} ms`,
    },
  ];
}
