// A comfyui provider over a pool of boxes (comfyui-pool.ts), against two or three real fakes: runs
// go to the box with the least work and respect max_running; a box that dies mid-run is taken out
// alone and its run finishes elsewhere (its file input uploaded again); every box down is an outage.
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import type { ImageOutput } from "../../core/catalog/model-definition";
import { startComfyFake, type FakeComfy } from "./testing/comfyui-fake";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "../common/remote-model";
import { failureOf } from "../testing/test-failures";
import { eventually } from "../testing/test-server";
import { checkProviderConnection } from "../connection-check";
import type { ProviderConfig } from "../common/types";
import { providerKind } from "../kinds";

const FIXTURES = path.resolve(__dirname, "../../../e2e/api/fixtures/comfyui");
type Json = Record<string, unknown>;
const FILE = JSON.parse(readFileSync(path.join(FIXTURES, "providers.json"), "utf8")) as {
  providers: Array<{ entries: Json[] }>;
};
const SDXL_ENTRY = FILE.providers[0]!.entries[0]!;
const SDXL = JSON.parse(readFileSync(path.join(FIXTURES, "workflows/sdxl.json"), "utf8")) as Record<
  string,
  { class_type: string; inputs: Record<string, unknown> }
>;
const FILE_ID = "file_abcdefghijklmnopqrstuvwx";
const FAST = { firstPollMs: 5, maxPollMs: 20 };

/** An image-to-image entry: its LoadImage takes an uploaded file input. */
function img2imgEntry(): Json {
  const workflow: Json = {
    ...SDXL,
    "10": { class_type: "LoadImage", inputs: { image: "example.png" } },
    "11": { class_type: "VAEEncode", inputs: { pixels: ["10", 0], vae: ["4", 2] } },
    "3": { ...SDXL["3"], inputs: { ...SDXL["3"]!.inputs, latent_image: ["11", 0], denoise: 0.6 } },
  };
  delete workflow["5"];
  const text = { type: "string", title: "Prompt", description: "Prompt" };
  return {
    ...structuredClone(SDXL_ENTRY),
    id: "gpu-pool/img2img",
    tasks: ["image-to-image"],
    workflow,
    bindings: { prompt: { node: "6", input: "text" }, image: { node: "10", input: "image" } },
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["prompt", "image"],
      properties: {
        prompt: text,
        image: { ...text, title: "Image", pattern: "^file_[0-9A-Za-z]{24}$", contentMediaType: "image/*" },
      },
    },
  };
}

function parse(provider: Json, entries: Json[] = [{ ...SDXL_ENTRY, id: "gpu-pool/sdxl" }]): ProviderConfig {
  const file = { providers: [{ id: "gpu-pool", kind: "comfyui", timeout_ms: 10_000, entries, ...provider }] };
  return parseProvidersFile(JSON.stringify(file), {}, FIXTURES)[0]!;
}

function parseError(provider: Json): string {
  try {
    parse(provider);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("the providers file parsed");
}

/** The entries of a provider over `boxes` (one adapter, as in the server). */
function poolModels(boxes: Array<{ fake: FakeComfy; max?: number }>, entries?: Json[]): RemoteModelDefinition[] {
  const pool = boxes.map((b) => ({ base_url: b.fake.url, ...(b.max ? { max_running: b.max } : {}) }));
  const config = parse({ pool }, entries);
  const adapter = providerKind("comfyui").createAdapter(config);
  return config.entries.map((entry) => remoteModelDefinition(config, entry, adapter, FAST));
}

const prompts = (fake: FakeComfy) => fake.prompts.length;

let fakes: FakeComfy[] = [];
async function boxes(n: number): Promise<FakeComfy[]> {
  const started = await Promise.all(Array.from({ length: n }, () => startComfyFake()));
  fakes.push(...started);
  return started;
}
afterEach(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
  fakes = [];
});

describe("pool in the providers file", () => {
  it("reads the boxes, max_running 1 by default, base_url left out or the first box's", () => {
    const config = parse({
      pool: [{ base_url: "http://10.0.0.1:8188/" }, { base_url: "http://10.0.0.2:8188", max_running: 3 }],
    });
    expect(config.options.pool).toEqual([
      { baseUrl: "http://10.0.0.1:8188", maxRunning: 1 },
      { baseUrl: "http://10.0.0.2:8188", maxRunning: 3 },
    ]);
    expect(parse({ base_url: "http://10.0.0.1:8188", pool: [{ base_url: "http://10.0.0.1:8188" }] }).baseUrl).toBe(
      "http://10.0.0.1:8188",
    );
    expect(parse({ base_url: "http://10.0.0.1:8188" }).options).toEqual({});
  });

  it("names the field of each mistake", () => {
    const box = { base_url: "http://10.0.0.1:8188" };
    expect(parseError({})).toBe(
      "providers[0].base_url is required (the ComfyUI server), unless pool lists the servers.",
    );
    expect(parseError({ pool: box })).toBe("providers[0].pool must be an array; got an object.");
    expect(parseError({ pool: [] })).toBe("providers[0].pool must hold at least 1 item.");
    expect(parseError({ pool: Array(65).fill(box) })).toBe("providers[0].pool must hold at most 64 items; got 65.");
    expect(parseError({ pool: [box, { base_url: "ftp://10.0.0.2" }] })).toBe(
      'providers[0].pool[1].base_url must start with http:// or https://; got "ftp://10.0.0.2".',
    );
    expect(parseError({ pool: [{ base_url: "not a url" }] })).toBe(
      'providers[0].pool[0].base_url must be an absolute http(s) URL such as https://api.example.com; got "not a url".',
    );
    expect(parseError({ pool: [{ base_url: "http://10.0.0.1:8188/\u0000" }] })).toBe(
      "providers[0].pool[0].base_url must not contain a NUL character (\\u0000).",
    );
    expect(parseError({ pool: [{ ...box, max_running: 0 }] })).toBe(
      "providers[0].pool[0].max_running must be a whole number from 1 to 64; got 0.",
    );
    expect(parseError({ pool: [{ ...box, max_running: 65 }] })).toBe(
      "providers[0].pool[0].max_running must be a whole number from 1 to 64; got 65.",
    );
    expect(parseError({ pool: [{ ...box, gpu: "4090" }] })).toBe(
      "providers[0].pool[0].gpu is not a known field; the fields are: base_url, max_running.",
    );
    expect(parseError({ pool: [box, { ...box, max_running: 2 }] })).toBe(
      "providers[0].pool[1].base_url repeats pool[0]'s (http://10.0.0.1:8188); list each server once (raise its max_running instead).",
    );
    expect(parseError({ base_url: "http://10.0.0.9:8188", pool: [box] })).toBe(
      "providers[0].base_url must be left out or be the first box of pool (http://10.0.0.1:8188).",
    );
  });
});

describe("a comfyui provider over a pool of boxes", () => {
  it("sends a run to the box with the least work: another client's prompt in a box's queue counts", async () => {
    const [a, b] = await boxes(2);
    a!.setMode("hold");
    // Someone else's prompt runs on box A (ComfyUI's queue_remaining counts it).
    await fetch(`${a!.url}/prompt`, { method: "POST", body: JSON.stringify({ prompt: SDXL, client_id: "other" }) });
    await eventually(() => a!.running() !== null);
    const [sdxl] = poolModels([
      { fake: a!, max: 4 },
      { fake: b!, max: 4 },
    ]);
    expect(await runModelForTest(sdxl!, { prompt: "a fox", width: 512, height: 512 })).toHaveLength(1);
    expect([prompts(a!), prompts(b!)]).toEqual([1, 1]);
    expect(b!.prompts[0]!.client_id).toMatch(/^atelier-/);
    expect(a!.requests.filter((r) => r.method === "GET" && r.path === "/prompt")).toHaveLength(1);
  });

  it("keeps each box under its max_running while another has room, then queues at the least busy", async () => {
    const [a, b] = await boxes(2);
    a!.setMode("hold");
    b!.setMode("hold");
    const [sdxl] = poolModels([
      { fake: a!, max: 1 },
      { fake: b!, max: 2 },
    ]);
    const runs: Array<Promise<unknown>> = [];
    const start = async (total: number) => {
      runs.push(runModelForTest(sdxl!, { prompt: `fox ${total}`, width: 512, height: 512 }));
      await eventually(() => prompts(a!) + prompts(b!) === total);
    };
    await start(1);
    await start(2);
    await start(3);
    expect([prompts(a!), prompts(b!)]).toEqual([1, 2]);
    // Every box full: the run waits in the queue of the box with the least work (A: 1, B: 2).
    await start(4);
    expect([prompts(a!), prompts(b!)]).toEqual([2, 2]);
    for (const fake of [a!, b!]) {
      fake.setMode("instant");
      fake.release();
    }
    expect((await Promise.all(runs)).flat()).toHaveLength(4);
  });

  it("gives a slow box (holding its prompt) fewer runs", async () => {
    const [a, b] = await boxes(2);
    a!.setMode("hold");
    const [sdxl] = poolModels([
      { fake: a!, max: 3 },
      { fake: b!, max: 3 },
    ]);
    const held = runModelForTest(sdxl!, { prompt: "slow fox", width: 512, height: 512 });
    await eventually(() => a!.running() !== null);
    for (let i = 0; i < 4; i++) await runModelForTest(sdxl!, { prompt: `fox ${i}`, width: 512, height: 512 });
    expect([prompts(a!), prompts(b!)]).toEqual([1, 4]);
    a!.release();
    expect(await held).toHaveLength(1);
  });

  it("moves a run whose box died to another box (its file uploaded again there); the box is out alone", async () => {
    const [a, b] = await boxes(2);
    a!.setMode("hold");
    const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: "#2a6" } })
      .png()
      .toBuffer();
    const [sdxl, img2img] = poolModels(
      [{ fake: a! }, { fake: b! }],
      [{ ...SDXL_ENTRY, id: "gpu-pool/sdxl" }, img2imgEntry()],
    );
    const tools = testRunTools({ files: { [FILE_ID]: { data: png, contentType: "image/png" } } });
    const moved = runModelForTest(img2img!, { prompt: "the same, in winter", image: FILE_ID }, tools);
    await eventually(() => a!.running() !== null);
    expect(a!.uploads.map((u) => u.name)).toEqual([`${FILE_ID}.png`]);
    // The provider's other runs go on meanwhile, on box B.
    expect(await runModelForTest(sdxl!, { prompt: "a fox", width: 512, height: 512 })).toHaveLength(1);

    await a!.close();
    const [image] = (await moved) as ImageOutput[];
    // Made by box B from its own upload: the fake's image-to-image keeps the loaded image's size.
    expect(image).toMatchObject({ type: "image", width: 96, height: 64 });
    expect(b!.uploads.map((u) => u.name)).toEqual([`${FILE_ID}.png`]);
    expect(b!.prompts.map((p) => p.prompt["6"]!.inputs.text)).toEqual(["a fox", "the same, in winter"]);
    expect(b!.prompts[1]!.prompt["10"]!.inputs.image).toBe(`atelier/${FILE_ID}.png`);
    expect(sdxl!.unavailableReason!()).toBeNull();
    expect(tools.providerReports).toEqual([{ providerId: "gpu-pool", down: null }]);

    // Box A stays out of service: the next run goes to B without asking A.
    const before = b!.requests.length;
    expect(await runModelForTest(sdxl!, { prompt: "an owl", width: 512, height: 512 })).toHaveLength(1);
    expect(b!.requests.slice(before).map((r) => `${r.method} ${r.path.split("?")[0]}`)[0]).toBe("POST /prompt");
  });

  it("fails a run with a transient error, and takes the provider out, when every box is down", async () => {
    const [a, b] = await boxes(2);
    const [sdxl] = poolModels([{ fake: a! }, { fake: b! }]);
    await Promise.all([a!.close(), b!.close()]);
    const tools = testRunTools();
    const failure = await failureOf(runModelForTest(sdxl!, { prompt: "a fox" }, tools));
    expect(failure).toMatchObject({
      transient: true,
      message:
        "The provider gpu-pool has no ComfyUI server in service: each stopped answering a moment ago. Try again later.",
    });
    expect(sdxl!.unavailableReason!()?.message).toMatch(
      /^its provider gpu-pool is failing \(every box is out of service; box [12]: unreachable \(ECONNREFUSED\), at /,
    );
    expect(tools.providerReports).toMatchObject([
      { providerId: "gpu-pool", down: { reason: expect.stringContaining("every box is out of service") } },
    ]);
  });

  it("checks the connection of each box and names the ones that do not answer", async () => {
    const [a, b, c] = await boxes(3);
    await c!.close();
    const config = parse({ pool: [a!, b!, c!].map((fake) => ({ base_url: fake.url })) });
    const check = await checkProviderConnection(config);
    const box =
      "ComfyUI 0.3.66, 1 device(s): cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync; queue: 0 running, 0 pending";
    expect(check).toMatchObject({
      ok: true,
      detail: `2 of 3 boxes answer: box 1 (${box}); box 2 (${box}); box 3 does not answer (unreachable (ECONNREFUSED))`,
    });
    await Promise.all([a!.close(), b!.close()]);
    // No box answers: the first box's failure (a kept-alive socket may be cut rather than refused).
    const down = await checkProviderConnection(config);
    expect(down.ok).toBe(false);
    expect(!down.ok && down.error).toMatch(
      /^The provider gpu-pool could not be reached \((ECONNREFUSED|UND_ERR_SOCKET)\)\. Try again later\.$/,
    );
  });
});
