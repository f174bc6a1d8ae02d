// Issue 12 over HTTP: a ComfyUI provider. This file starts its own server (port 3381, a fresh
// data dir) whose PROVIDERS_FILE is e2e/api/fixtures/comfyui/providers.json: a GPU box at
// 127.0.0.1:3382 serving an SDXL workflow (workflows/sdxl.json) and a second entry whose graph
// names a checkpoint the box does not have. The box is the fake ComfyUI of
// lib/providers/comfyui/testing/comfyui-fake.ts, started here, so the test can hold a prompt running.
import { rmSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { expect, test } from "./fixtures";
import { startComfyFake, type FakeComfy } from "../../lib/providers/comfyui/testing/comfyui-fake";
import { expectOk } from "./helpers";
import { openEventStream, type SseEvent } from "./sse";
import { newTenant, startOwnServer, stopWorker, type Generation, type WorkerProcess } from "./runs-helpers";
import { REPO_ROOT, serverSpec, type ServerSpec } from "./servers";

const COMFY_PORT = 3382;

const spec: ServerSpec = serverSpec("providers-comfyui", 3381, 100_000, 100_000, {
  workers: 1,
  env: { PROVIDERS_FILE: path.join(REPO_ROOT, "e2e", "api", "fixtures", "comfyui", "providers.json") },
});

let fake: FakeComfy;
let server: WorkerProcess | null = null;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  fake = await startComfyFake({ port: COMFY_PORT });
  rmSync(spec.dataDir, { recursive: true, force: true });
  server = await startOwnServer(spec);
});

test.afterAll(async () => {
  await stopWorker(server);
  await fake?.close();
});

test("an SDXL workflow on the GPU box runs through POST /v1/generations: succeeded, charged its price, the PNG served by Atelier", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "comfyui-ok");
  const { api } = tenant;
  const entry = await expectOk<{ id: string; availability: { status: string } }>(
    await api.get("/v1/models/gpu-box/sdxl"),
  );
  expect(entry.availability.status).toBe("available");
  expect(await api.quote("gpu-box/sdxl", { prompt: "a lighthouse" })).toBe(10_000);

  const prompts = fake.prompts.length;
  const { gen } = await api.create(
    { model: "gpu-box/sdxl", input: { prompt: "a lighthouse at dusk", seed: 7, width: 512, height: 640 } },
    { prefer: "wait=60" },
  );
  expect(gen.status, JSON.stringify(gen.error)).toBe("succeeded");
  expect(gen).toMatchObject({ model: "gpu-box/sdxl", provider: "gpu-box", usage: { cost_usd: "0.01" }, error: null });
  expect(gen.input).toMatchObject({
    prompt: "a lighthouse at dusk",
    seed: 7,
    steps: 25,
    negative_prompt: "blurry, low quality, watermark, text",
  });

  // The graph the box received carries the person's input in the bound node inputs.
  expect(fake.prompts).toHaveLength(prompts + 1);
  const graph = fake.prompts.at(-1)!.prompt;
  expect(graph["6"]!.inputs.text).toBe("a lighthouse at dusk");
  expect(graph["3"]!.inputs).toMatchObject({ seed: 7, steps: 25 });
  expect(graph["5"]!.inputs).toMatchObject({ width: 512, height: 640 });

  expect(gen.output).toHaveLength(1);
  const [item] = gen.output;
  expect(item).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 640 });
  // Atelier's own signed link, never the box's /view URL.
  const link = new URL(item!.url);
  expect(link.port, item!.url).toBe(String(spec.port));
  expect(link.pathname).toMatch(/^\/v1\//);
  expect(item!.url).not.toContain("/view?");
  const res = await request.get(item!.url);
  expect(res.status()).toBe(200);
  const bytes = await res.body();
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(await sharp(bytes).metadata()).toMatchObject({ format: "png", width: 512, height: 640 });

  expect(await api.credits()).toEqual({ available: 1_000_000 - 10_000, held: 0 });
});

test("a run canceled while ComfyUI runs it → canceled, nothing charged, and the box interrupts that prompt", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "comfyui-cancel");
  fake.setMode("hold");
  try {
    const prompts = fake.prompts.length;
    const { gen } = await api.create({
      model: "gpu-box/sdxl",
      input: { prompt: "a slow painting", width: 512, height: 512 },
    });
    await expect.poll(() => fake.prompts.length, { timeout: 15_000 }).toBe(prompts + 1);
    const promptId = fake.prompts.at(-1)!.id;
    await expect.poll(() => fake.running(), { timeout: 15_000 }).toBe(promptId);
    expect(await api.credits()).toEqual({ available: 1_000_000 - 10_000, held: 10_000 });

    const canceled = await expectOk<Generation>(await api.post(`/v1/generations/${gen.id}/cancel`));
    expect(canceled).toMatchObject({ status: "canceled", usage: { cost_usd: null }, output: [] });
    expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
    // The engine notices within its lease renewal and asks the box to stop that prompt.
    await expect.poll(() => fake.interrupted, { timeout: 15_000 }).toContain(promptId);
    expect(fake.deleted).not.toContain(promptId);
    expect(await api.waitFinal(gen.id)).toMatchObject({ status: "canceled", usage: { cost_usd: null } });
    expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
  } finally {
    fake.setMode("instant");
  }
});

test("a run on the GPU box tells its sampler steps over the status stream: running with progress, then succeeded", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "comfyui-progress");
  fake.setMode("hold");
  try {
    const { gen } = await api.create({
      model: "gpu-box/sdxl",
      input: { prompt: "a slow sunrise", width: 512, height: 512 },
    });
    const stream = await openEventStream(api.url(`/v1/generations/${gen.id}`), { "x-api-key": api.key }, 90);
    expect(stream.response.status).toBe(200);
    const progressOf = (e: SseEvent | null) =>
      e ? (JSON.parse(e.data) as Generation & { progress: number | null }).progress : null;
    await expect.poll(() => fake.running(), { timeout: 15_000 }).not.toBeNull();
    // ComfyUI says step 5 of 20 over its websocket, to the client that queued the prompt.
    await expect.poll(() => fake.sockets().length, { timeout: 15_000 }).toBeGreaterThan(0);
    fake.step(5, 20);
    expect(progressOf(await stream.readUntil((e) => progressOf(e) === 0.25))).toBe(0.25);
    fake.step(15, 20);
    expect(progressOf(await stream.readUntil((e) => progressOf(e) === 0.75))).toBe(0.75);
    fake.release();
    const events = await stream.readToEnd();
    const last = JSON.parse(events.at(-1)!.data) as Generation & { progress: number | null };
    expect(last).toMatchObject({ status: "succeeded", progress: null, usage: { cost_usd: "0.01" } });
  } finally {
    fake.setMode("instant");
  }
});

test("a workflow ComfyUI refuses (a checkpoint the box lacks) → failed with ComfyUI's words, nothing charged, entries still in service", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "comfyui-refused");
  const prompts = fake.prompts.length;
  const { gen } = await api.create(
    { model: "gpu-box/sdxl-lightning", input: { prompt: "a fox" } },
    { prefer: "wait=60" },
  );
  expect(gen).toMatchObject({ status: "failed", provider: "gpu-box", output: [], usage: { cost_usd: null } });
  expect(gen.error!.message).toBe(
    "The provider gpu-box refused the workflow: Prompt outputs failed validation; node 4 (CheckpointLoaderSimple): Value not in list: ckpt_name: 'sdxl_lightning_4step.safetensors' not in ['sd_xl_base_1.0.safetensors', 'v1-5-pruned-emaonly.safetensors', 'stable-audio-open-1.0.safetensors']",
  );
  expect(fake.prompts).toHaveLength(prompts);
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });

  // A refusal is the workflow's fault, not the box's: its entries stay in service.
  const list = await expectOk<{ data: Array<{ id: string; availability: { status: string } }> }>(
    await api.get("/v1/models"),
  );
  for (const id of ["gpu-box/sdxl", "gpu-box/sdxl-lightning"])
    expect(list.data.find((m) => m.id === id)?.availability.status, id).toBe("available");
});
