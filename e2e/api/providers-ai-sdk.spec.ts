// Issue 12 over HTTP: the "ai-sdk" provider kind end to end. This file starts its own server
// (port 3385, a fresh data dir) whose PROVIDERS_FILE (fixtures/ai-sdk/providers.json) points the
// AI SDK's real packages at local fakes of the providers' APIs (lib/providers/ai-sdk/testing/ai-sdk-fake.ts):
// OpenAI on 3386 (images, speech), ElevenLabs on 3387 (its fixed host redirected), an
// OpenAI-compatible server on 3388 (no key) and Google's Gemini API on 3389 (Veo video). Each run
// goes through POST /v1/generations with `Prefer: wait`: succeeded, its provider named, outputs
// served by Atelier's signed links as real media, exactly the price charged; a refusal fails with
// the provider's words and charges nothing; an outage takes the provider's entries out of service.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "./fixtures";
import { parseBuffer } from "music-metadata";
import sharp from "sharp";
import { decodeWav } from "../../lib/models/audio/wav";
import { findFfmpeg } from "../../lib/providers/testing/fake-media";
import {
  elevenLabsFake,
  fakeState,
  googleFake,
  listenFake,
  openAiFake,
  REFUSALS,
  type FakeState,
} from "../../lib/providers/ai-sdk/testing/ai-sdk-fake";
import { expectError, expectOk } from "./helpers";
import { newTenant, startOwnServer, stopWorker, type Generation, type WorkerProcess } from "./runs-helpers";
import { REPO_ROOT, serverSpec, type ServerSpec } from "./servers";

const KEYS = {
  AI_SDK_E2E_OPENAI_KEY: "sk-e2e-openai-5c0ffee",
  AI_SDK_E2E_ELEVENLABS_KEY: "xi-e2e-elevenlabs-7a11",
  AI_SDK_E2E_GOOGLE_KEY: "AIza-e2e-google-3b3b",
};

const spec: ServerSpec = serverSpec("providers-ai-sdk", 3385, 100_000, 100_000, {
  workers: 2,
  env: { PROVIDERS_FILE: path.join(REPO_ROOT, "e2e", "api", "fixtures", "ai-sdk", "providers.json"), ...KEYS },
});

// The fakes' media and the test's decoding use this machine's ffmpeg, found as the fakes find it
// (Playwright cannot load lib/media/ffmpeg.ts).
const ffmpegPath = findFfmpeg();
const scratch = mkdtempSync(path.join(os.tmpdir(), "atelier-e2e-ai-sdk-"));

const fakes = {
  openai: fakeState(),
  elevenlabs: fakeState(),
  local: fakeState(),
  google: fakeState(),
} satisfies Record<string, FakeState>;
const closers: Array<() => Promise<void>> = [];
let server: WorkerProcess | null = null;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const servers = await Promise.all([
    listenFake(openAiFake(fakes.openai, { key: KEYS.AI_SDK_E2E_OPENAI_KEY, ffmpegPath }), 3386),
    listenFake(elevenLabsFake(fakes.elevenlabs, { key: KEYS.AI_SDK_E2E_ELEVENLABS_KEY, ffmpegPath }), 3387),
    listenFake(openAiFake(fakes.local, { key: null, ffmpegPath }), 3388),
    listenFake(googleFake(fakes.google, { key: KEYS.AI_SDK_E2E_GOOGLE_KEY, ffmpegPath }), 3389),
  ]);
  closers.push(...servers.map((s) => s.close));
  rmSync(spec.dataDir, { recursive: true, force: true });
  server = await startOwnServer(spec);
});

test.afterAll(async () => {
  await stopWorker(server);
  await Promise.all(closers.map((close) => close()));
  rmSync(scratch, { recursive: true, force: true });
  // The keys never reach the server's log either.
  for (const key of Object.values(KEYS)) expect(server?.stderr() ?? "").not.toContain(key);
});

/** An output's bytes, fetched through Atelier's own signed link (never a provider's). */
async function fetchOutput(request: APIRequestContext, url: string): Promise<Buffer> {
  const link = new URL(url);
  expect([link.port, link.pathname.startsWith("/v1/")], url).toEqual([String(spec.port), true]);
  const res = await request.get(url);
  expect(res.status(), url).toBe(200);
  return res.body();
}

async function run(
  api: ReturnType<typeof newTenant>["api"],
  model: string,
  input: Record<string, unknown>,
): Promise<Generation> {
  const { gen } = await api.create({ model, input }, { prefer: "wait=60" });
  return gen.status === "succeeded" || gen.status === "failed" ? gen : api.waitFinal(gen.id);
}

function noKeyIn(value: unknown): void {
  const text = JSON.stringify(value);
  for (const key of Object.values(KEYS)) expect(text).not.toContain(key);
}

test("the catalog lists the AI SDK entries in service, with their prices and no key anywhere", async ({ request }) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-catalog");
  const list = await expectOk<{ data: { id: string; modality: string; availability: { status: string } }[] }>(
    await api.get("/v1/models"),
  );
  const ours = [
    "openai/gpt-image-1",
    "openai/gpt-4o-mini-tts",
    "elevenlabs/multilingual-v2",
    "local/sd-turbo",
    "google/veo-3",
  ];
  for (const id of ours)
    expect(
      list.data.find((m) => m.id === id),
      id,
    ).toMatchObject({ availability: { status: "available" } });
  noKeyIn(list);
  expect(await api.quote("openai/gpt-image-1", { prompt: "x", n: 3 })).toBe(120_000);
  expect(await api.quote("google/veo-3", { prompt: "x", duration: 8 })).toBe(400_000);
});

test("OpenAI images: succeeded, provider named, real PNGs through Atelier's links, exactly the price charged", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-image");
  const gen = await run(api, "openai/gpt-image-1", { prompt: "a red fox", n: 2, size: "96x64" });
  expect(gen).toMatchObject({
    status: "succeeded",
    provider: "openai",
    modality: "image",
    usage: { cost_usd: "0.08" },
  });
  expect(gen.output).toHaveLength(2);
  for (const item of gen.output) {
    expect(item).toMatchObject({ type: "image", content_type: "image/png", width: 96, height: 64 });
    expect(await sharp(await fetchOutput(request, item.url)).metadata()).toMatchObject({
      format: "png",
      width: 96,
      height: 64,
    });
  }
  const sent = fakes.openai.requests.at(-1)!;
  expect(sent.headers.authorization).toBe(`Bearer ${KEYS.AI_SDK_E2E_OPENAI_KEY}`);
  expect(JSON.parse(sent.body)).toMatchObject({
    model: "gpt-image-1",
    prompt: "a red fox",
    n: 2,
    size: "96x64",
    quality: "low",
  });
  expect(await api.credits()).toEqual({ available: 1_000_000 - 80_000, held: 0 });
});

test("OpenAI speech: a WAV that decodes to a second of sound, charged once", async ({ request }) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-speech");
  const gen = await run(api, "openai/gpt-4o-mini-tts", { text: "Welcome to Atelier." });
  expect(gen).toMatchObject({
    status: "succeeded",
    provider: "openai",
    modality: "audio",
    usage: { cost_usd: "0.015" },
  });
  expect(gen.output).toHaveLength(1);
  expect(gen.output[0]).toMatchObject({ type: "audio", content_type: "audio/wav" });
  const wav = decodeWav(await fetchOutput(request, gen.output[0]!.url));
  expect(wav.channels[0]!.length / wav.sampleRate).toBeCloseTo(1, 1);
  expect(JSON.parse(fakes.openai.requests.at(-1)!.body)).toEqual({
    model: "gpt-4o-mini-tts",
    input: "Welcome to Atelier.",
    voice: "alloy",
    response_format: "wav",
  });
  expect(await api.credits()).toEqual({ available: 1_000_000 - 15_000, held: 0 });
});

test("ElevenLabs speech (its fixed host redirected to the fake): an MP3 that decodes; provider options on the wire", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-eleven");
  const gen = await run(api, "elevenlabs/multilingual-v2", { text: "Bonjour tout le monde.", stability: 0.25 });
  expect(gen).toMatchObject({ status: "succeeded", provider: "elevenlabs", usage: { cost_usd: "0.03" } });
  expect(gen.output[0]).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
  const mp3 = await fetchOutput(request, gen.output[0]!.url);
  const meta = await parseBuffer(mp3, { mimeType: "audio/mpeg" });
  expect(meta.format.codec).toMatch(/MPEG .*Layer 3/);
  expect(meta.format.duration).toBeGreaterThan(0.9);
  const sent = fakes.elevenlabs.requests.at(-1)!;
  expect(sent.path).toBe("/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128");
  expect(sent.headers["xi-api-key"]).toBe(KEYS.AI_SDK_E2E_ELEVENLABS_KEY);
  expect(JSON.parse(sent.body)).toEqual({
    text: "Bonjour tout le monde.",
    model_id: "eleven_multilingual_v2",
    voice_settings: { stability: 0.25 },
  });
  expect(await api.credits()).toEqual({ available: 1_000_000 - 30_000, held: 0 });
});

test("an OpenAI-compatible local server: no key sent, a schema field reaches the body as a provider option", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-local");
  const gen = await run(api, "local/sd-turbo", { prompt: "a lighthouse", step: 8 });
  expect(gen).toMatchObject({ status: "succeeded", provider: "local", usage: { cost_usd: "0.001" } });
  expect(await sharp(await fetchOutput(request, gen.output[0]!.url)).metadata()).toMatchObject({
    format: "png",
    width: 32,
    height: 32,
  });
  const sent = fakes.local.requests.at(-1)!;
  expect(sent.headers.authorization).toBeUndefined();
  expect(JSON.parse(sent.body)).toEqual({
    model: "sd-turbo",
    prompt: "a lighthouse",
    n: 1,
    size: "32x32",
    steps: 8,
    response_format: "b64_json",
  });
  expect(await api.credits()).toEqual({ available: 1_000_000 - 1_000, held: 0 });
});

test("Google Veo: the operation polled to the end, the MP4 stored, served and decodable, charged per second", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-video");
  const gen = await run(api, "google/veo-3", { prompt: "waves at dusk" });
  expect(gen).toMatchObject({
    status: "succeeded",
    provider: "google",
    modality: "video",
    usage: { cost_usd: "0.20" },
  });
  expect(gen.output[0]).toMatchObject({ type: "video", content_type: "video/mp4", width: 160, height: 90 });
  const file = path.join(scratch, "veo.mp4");
  writeFileSync(file, await fetchOutput(request, gen.output[0]!.url));
  const decoded = spawnSync(ffmpegPath, ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", "-"], {
    maxBuffer: 64 << 20,
  });
  expect(decoded.status, String(decoded.stderr)).toBe(0);
  expect(decoded.stdout.length).toBe(160 * 90 * 12);
  expect(fakes.google.requests.map((r) => r.method + " " + new URL(r.path, "http://x").pathname)).toEqual([
    "POST /v1beta/models/veo-3.0-generate-001:predictLongRunning",
    "GET /v1beta/models/veo-3.0-generate-001/operations/op1",
    "GET /v1beta/models/veo-3.0-generate-001/operations/op1",
    "GET /v1beta/files/op1:download",
  ]);
  noKeyIn(gen);
  expect(await api.credits()).toEqual({ available: 1_000_000 - 200_000, held: 0 });
});

test("a refusal fails the run with the provider's words, charges nothing, and leaves the provider in service", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-refusal");
  fakes.openai.mode = "refuse";
  try {
    const gen = await run(api, "openai/gpt-image-1", { prompt: "something refused" });
    expect(gen).toMatchObject({ status: "failed", provider: "openai", output: [], usage: { cost_usd: null } });
    expect(gen.error!.message).toBe(`The provider openai refused the request: ${REFUSALS.openai}`);
  } finally {
    fakes.openai.mode = "ok";
  }
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
  await expectOk(await api.post("/v1/quotes", { model: "openai/gpt-4o-mini-tts", input: { text: "again" } }));
});

// Last: the provider stays out of service for 30 s after this.
test("an outage (5xx) fails the run, charges nothing, and takes the provider's entries out of service (503 + Retry-After)", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "ai-sdk-outage");
  fakes.elevenlabs.mode = "down";
  const gen = await run(api, "elevenlabs/multilingual-v2", { text: "Hello" });
  fakes.elevenlabs.mode = "ok";
  expect(gen).toMatchObject({ status: "failed", provider: "elevenlabs", usage: { cost_usd: null } });
  expect(gen.error!.message).toBe(
    "The provider elevenlabs failed (HTTP 503: The service is temporarily unavailable.). Try again later.",
  );
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
  const quote = await api.post("/v1/quotes", { model: "elevenlabs/multilingual-v2", input: { text: "again" } });
  const err = await expectError(quote, 503, "service_unavailable");
  expect(err.message).toContain("its provider elevenlabs is failing (HTTP 503");
  expect(Number(quote.headers()["retry-after"])).toBeGreaterThan(0);
  // Other providers are not touched.
  await expectOk(await api.post("/v1/quotes", { model: "openai/gpt-image-1", input: { prompt: "still fine" } }));
});
