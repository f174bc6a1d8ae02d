// The "ai-sdk" kind run for real with four more packages (@ai-sdk/luma, -black-forest-labs, -xai,
// -lmnt) against local fakes of their providers' APIs (ai-sdk-fake-labs.ts); the remote entry
// measures what comes back. For each: success with real media, the key header and a provider
// option on the wire, a refusal (the provider's words, still in service), an outage (out of
// service), and for the polling ones a failed job and a cancel while polling.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import {
  ModelError,
  type AudioOutput,
  type ImageOutput,
  type ModelDefinition,
  type VideoOutput,
} from "../../core/catalog/model-definition";
import {
  BFL_MODERATION_REASON,
  blackForestLabsFake,
  LABS_OUTAGES,
  LABS_REFUSALS,
  labsState,
  lmntFake,
  lumaFake,
  xaiFake,
  type LabsState,
} from "./testing/ai-sdk-fake-labs";
import {
  entry,
  failureOf,
  modelsOf,
  object,
  useFakeServer,
  useSoundDecoder,
  withServerElsewhere,
} from "./testing/ai-sdk-test-support";
import { eventually, type Handler } from "../testing/test-server";

const KEY = "sk-labs-test-3f9a";
const ffmpegPath = testRunTools().ffmpegPath;
const decodedSeconds = useSoundDecoder("ai-sdk-labs-");

// Poll intervals are the packages' own provider options (fixed per entry): milliseconds, not seconds.
const ENTRIES = {
  luma: [
    entry(
      "luma/photon",
      "photon-flash-1",
      "image",
      object(["prompt"], {
        prompt: { type: "string" },
        n: { type: "integer", default: 1 },
        aspect_ratio: { type: "string", enum: ["1:1", "16:9", "3:4"], default: "16:9" },
        format: { type: "string", enum: ["jpg", "png"] },
      }),
      {
        provider_options: { pollIntervalMillis: 10 },
      },
    ),
  ],
  "black-forest-labs": [
    entry(
      "bfl/flux",
      "flux-pro-1.1",
      "image",
      object(["prompt"], {
        prompt: { type: "string" },
        aspect_ratio: { type: "string", enum: ["1:1", "4:3"], default: "1:1" },
        seed: { type: "integer" },
        safety_tolerance: { type: "integer" },
        output_format: { type: "string", enum: ["jpeg", "png"] },
      }),
      {
        // The package reads camelCase options (and drops unknown ones): map the API's names onto them.
        call: { safety_tolerance: "providerOptions.safetyTolerance", output_format: "providerOptions.outputFormat" },
        provider_options: { pollIntervalMillis: 10 },
      },
    ),
  ],
  xai: [
    entry(
      "xai/image",
      "grok-imagine-image",
      "image",
      object(["prompt"], {
        prompt: { type: "string" },
        n: { type: "integer", default: 1 },
        aspect_ratio: { type: "string", enum: ["1:1", "16:9"], default: "1:1" },
        resolution: { type: "string", enum: ["1k", "2k"] },
      }),
    ),
    entry(
      "xai/video",
      "grok-imagine-video",
      "video",
      object(["prompt"], {
        prompt: { type: "string" },
        duration: { type: "integer", default: 1 },
        aspect_ratio: { type: "string", enum: ["16:9", "9:16"], default: "16:9" },
        resolution: { type: "string", enum: ["480p", "720p"], default: "480p" },
      }),
      {
        // As the call's standard `resolution` ("WxH") a "480p" would be dropped with a warning: xAI's own values go as its option.
        call: { resolution: "providerOptions.resolution" },
        provider_options: { pollIntervalMs: 10 },
      },
    ),
  ],
  lmnt: [
    entry(
      "lmnt/blizzard",
      "blizzard",
      "audio",
      object(["text"], {
        text: { type: "string" },
        voice: { type: "string", default: "leah" },
        output_format: { type: "string", enum: ["mp3", "wav"], default: "mp3" },
        temperature: { type: "number" },
        speed: { type: "number" },
      }),
      {
        // Whenever providerOptions.lmnt is sent, the package overwrites the call's `speed` with its option's default (1).
        call: { speed: "providerOptions.speed" },
      },
    ),
  ],
};

type Name = keyof typeof ENTRIES;

function models(name: Name, baseUrl: string, options: { timeoutMs?: number } = {}): Record<string, ModelDefinition> {
  return modelsOf(
    {
      id: name,
      kind: "ai-sdk",
      provider: name,
      base_url: baseUrl,
      api_key_env: "TEST_KEY",
      timeout_ms: options.timeoutMs ?? 10_000,
      entries: ENTRIES[name],
    },
    KEY,
  );
}

/** "METHOD path" of each request the fake saw. */
const lines = (state: LabsState) => state.requests.map((r) => `${r.method} ${r.path}`);

async function expectPicture(
  output: ImageOutput,
  format: "png" | "jpeg",
  width: number,
  height: number,
): Promise<void> {
  expect(output).toMatchObject({ type: "image", content_type: `image/${format}`, width, height });
  expect(await sharp(output.data).metadata()).toMatchObject({ format, width, height });
}

const server = useFakeServer();
const { start } = server;

/**
 * Starts `fake`, and cancels the run (without answering) at its `nth` poll, which `isPoll` tells.
 * Resolves with the run's error, once the in-flight poll was abandoned.
 */
async function cancelWhilePolling(
  fake: Handler,
  isPoll: (path: string) => boolean,
  run: (url: string, signal: AbortSignal) => Promise<unknown>,
  nth = 2,
): Promise<unknown> {
  const controller = new AbortController();
  let polls = 0;
  const { url } = await start((request, res) => {
    if (isPoll(request.path) && ++polls === nth) return void controller.abort(new Error("run canceled"));
    return fake(request, res);
  });
  const error = await run(url, controller.signal).then(
    () => null,
    (err: unknown) => err,
  );
  await eventually(() => server.current!.abandoned.length === 1);
  return error;
}

describe("ai-sdk: Luma (@ai-sdk/luma: create a generation, poll it, fetch the image)", () => {
  it("makes images: the key and a provider option on the wire, the generation polled, the image fetched without the key, measured", async () => {
    const state = labsState();
    const { url } = await start(lumaFake(state, { key: KEY }));
    const tools = testRunTools();
    const [image] = (await runModelForTest(
      models("luma", url)["luma/photon"]!,
      { prompt: "a lighthouse", format: "png" },
      tools,
    )) as ImageOutput[];

    expect(lines(state)).toEqual([
      "POST /dream-machine/v1/generations/image",
      "GET /dream-machine/v1/generations/0b1e4f5a-0000-4000-8000-000000000001",
      "GET /dream-machine/v1/generations/0b1e4f5a-0000-4000-8000-000000000001",
      "GET /cdn/0b1e4f5a-0000-4000-8000-000000000001.png",
    ]);
    const [create, poll, , download] = state.requests;
    expect(create!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(poll!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(download!.headers.authorization).toBeUndefined();
    // `format` is no argument of generateImage: it went as providerOptions.luma.format, which the package passes through.
    expect(JSON.parse(create!.body)).toEqual({
      prompt: "a lighthouse",
      aspect_ratio: "16:9",
      model: "photon-flash-1",
      format: "png",
    });
    await expectPicture(image!, "png", 64, 36);
    expect(tools.uncancelableReasons).toEqual(["provider"]);
    expect(tools.providerReports).toEqual([{ providerId: "luma", down: null }]);
  });

  it("n = 2 is two generations (the package makes one image a call), each polled and fetched: two JPEGs, Luma's default format", async () => {
    const state = labsState();
    const { url } = await start(lumaFake(state, { key: KEY }));
    const outputs = (await runModelForTest(models("luma", url)["luma/photon"]!, {
      prompt: "a fox",
      n: 2,
      aspect_ratio: "3:4",
    })) as ImageOutput[];
    expect(lines(state).filter((line) => line.startsWith("POST"))).toHaveLength(2);
    expect(
      lines(state)
        .filter((line) => line.includes("/cdn/"))
        .sort(),
    ).toEqual([
      "GET /cdn/0b1e4f5a-0000-4000-8000-000000000001.jpg",
      "GET /cdn/0b1e4f5a-0000-4000-8000-000000000002.jpg",
    ]);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) await expectPicture(output, "jpeg", 48, 64);
  });

  it("a refusal passes on Luma's `detail` string and keeps it in service; a failed generation fails the run only; a 5xx takes it out of service", async () => {
    const state = labsState();
    const { url } = await start(lumaFake(state, { key: KEY }));
    const model = models("luma", url)["luma/photon"]!;

    state.mode = "refuse";
    const refused = await failureOf(runModelForTest(model, { prompt: "no" }));
    expect(refused.message).toBe(`The provider luma refused the request: ${LABS_REFUSALS.luma}`);
    expect(refused).toMatchObject({ transient: false });
    expect(model.unavailableReason!()).toBeNull();

    // Luma's failure_reason, from the generation the package's error carries (its own words are "Image generation failed.").
    state.mode = "job-fails";
    expect((await failureOf(runModelForTest(model, { prompt: "no" }))).message).toBe(
      "The provider luma could not make it: The image could not be generated: it may violate our policies.",
    );
    expect(model.unavailableReason!()).toBeNull();

    state.mode = "down";
    state.requests.length = 0;
    const down = await failureOf(runModelForTest(model, { prompt: "a fox" }));
    expect(down.message).toBe(`The provider luma failed (HTTP 500: ${LABS_OUTAGES.luma}). Try again later.`);
    expect(down).toMatchObject({ transient: true });
    expect(state.requests).toHaveLength(1);
    expect(model.unavailableReason!()?.message).toMatch(/^its provider luma is failing \(HTTP 500, at .*\)$/);
  });

  it("a cancel while polling aborts the poll in flight: nothing fetched after, the provider not blamed", async () => {
    const state = labsState();
    state.mode = "never-done";
    const ran: { model?: ModelDefinition } = {};
    const error = await cancelWhilePolling(
      lumaFake(state, { key: KEY }),
      (p) => p.startsWith("/dream-machine/v1/generations/0b1e"),
      (url, signal) =>
        runModelForTest(
          (ran.model = models("luma", url)["luma/photon"]!),
          { prompt: "a fox" },
          testRunTools({ signal }),
        ),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe("run canceled");
    expect(lines(state)).toEqual([
      "POST /dream-machine/v1/generations/image",
      "GET /dream-machine/v1/generations/0b1e4f5a-0000-4000-8000-000000000001",
    ]);
    expect(server.current!.abandoned).toEqual(["/dream-machine/v1/generations/0b1e4f5a-0000-4000-8000-000000000001"]);
    expect(ran.model!.unavailableReason!()).toBeNull();
  });

  // Image packages that download their own results (luma, black-forest-labs, xai when given URLs)
  // use provider-utils' getFromApi, which checks no address: the fetch ai-sdk.ts hands them does.
  it("refuses a result link on another local address (127.0.0.2), as result-links.ts says", async () => {
    await withServerElsewhere(async (resultOrigin) => {
      const state = labsState();
      const { url } = await start(lumaFake(state, { key: KEY, resultOrigin }));
      const error = await failureOf(runModelForTest(models("luma", url)["luma/photon"]!, { prompt: "a fox" }));
      expect(error.message).toBe(
        "The provider luma gave a result link Atelier does not fetch (not http(s), or a local or private address).",
      );
    });
  });
});

describe("ai-sdk: Black Forest Labs (@ai-sdk/black-forest-labs: submit, poll polling_url, fetch the sample)", () => {
  it("makes an image: x-key and provider options on the wire, polling_url polled with its id, the JPEG sample fetched and measured", async () => {
    const state = labsState();
    const { url } = await start(blackForestLabsFake(state, { key: KEY }));
    const tools = testRunTools();
    const [image] = (await runModelForTest(
      models("black-forest-labs", `${url}/v1`)["bfl/flux"]!,
      { prompt: "a kite", aspect_ratio: "4:3", seed: 7, safety_tolerance: 2 },
      tools,
    )) as ImageOutput[];

    const id = "5f0c9a1e-0000-4000-8000-000000000001";
    expect(lines(state)).toEqual([
      "POST /v1/flux-pro-1.1",
      `GET /v1/get_result?id=${id}`,
      `GET /v1/get_result?id=${id}`,
      `GET /delivery/${id}/sample.jpeg`,
    ]);
    for (const request of state.requests.slice(0, 3)) expect(request.headers["x-key"]).toBe(KEY);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      prompt: "a kite",
      seed: 7,
      aspect_ratio: "4:3",
      safety_tolerance: 2,
    });
    await expectPicture(image!, "jpeg", 64, 48);
    expect(tools.providerReports).toEqual([{ providerId: "black-forest-labs", down: null }]);
  });

  it("output_format png (a renamed option) comes back as a PNG", async () => {
    const state = labsState();
    const { url } = await start(blackForestLabsFake(state, { key: KEY }));
    const [image] = (await runModelForTest(models("black-forest-labs", `${url}/v1`)["bfl/flux"]!, {
      prompt: "a kite",
      output_format: "png",
    })) as ImageOutput[];
    expect(JSON.parse(state.requests[0]!.body)).toMatchObject({ output_format: "png" });
    await expectPicture(image!, "png", 64, 64);
  });

  it("a 422 passes on FastAPI's detail[0].msg and keeps it in service; a job in Error fails the run only; a 503 takes it out of service", async () => {
    const state = labsState();
    const { url } = await start(blackForestLabsFake(state, { key: KEY }));
    const model = models("black-forest-labs", `${url}/v1`)["bfl/flux"]!;

    state.mode = "refuse";
    expect((await failureOf(runModelForTest(model, { prompt: "a kite" }))).message).toBe(
      `The provider black-forest-labs refused the request: ${LABS_REFUSALS.blackForestLabs}`,
    );
    expect(model.unavailableReason!()).toBeNull();

    // The job's `details`, which the package drops for "Black Forest Labs generation failed.".
    state.mode = "job-fails";
    expect((await failureOf(runModelForTest(model, { prompt: "a kite" }))).message).toBe(
      "The provider black-forest-labs could not make it: Generation failed.",
    );
    expect(model.unavailableReason!()).toBeNull();

    state.mode = "down";
    const down = await failureOf(runModelForTest(model, { prompt: "a kite" }));
    expect(down.message).toBe(
      `The provider black-forest-labs failed (HTTP 503: ${LABS_OUTAGES.blackForestLabs}). Try again later.`,
    );
    expect(down).toMatchObject({ transient: true });
    expect(model.unavailableReason!()?.message).toContain("HTTP 503");
  });

  it("a moderated job is a refusal with BFL's reasons, at the answer that says so (no polling on); a task BFL lost fails the run only", async () => {
    const state = labsState();
    const { url } = await start(blackForestLabsFake(state, { key: KEY }));
    // A short timeout_ms: the package alone polls "Request Moderated" on for a minute.
    const model = models("black-forest-labs", `${url}/v1`, { timeoutMs: 2_000 })["bfl/flux"]!;
    for (const status of ["Request Moderated", "Content Moderated"]) {
      state.jobStatus = status;
      state.requests.length = 0;
      const error = await failureOf(runModelForTest(model, { prompt: "a kite" }));
      expect(error.message).toBe(
        `The provider black-forest-labs refused the request: ${status} (${BFL_MODERATION_REASON})`,
      );
      expect(error).toMatchObject({ transient: false });
      // Pending at the first look, the end at the second; no sample fetched.
      expect(lines(state).map((line) => line.replace(/id=[\w-]+/, "id=ID"))).toEqual([
        "POST /v1/flux-pro-1.1",
        "GET /v1/get_result?id=ID",
        "GET /v1/get_result?id=ID",
      ]);
      expect(model.unavailableReason!()).toBeNull();
    }
    state.jobStatus = "Task not found";
    const lost = await failureOf(runModelForTest(model, { prompt: "a kite" }));
    expect(lost.message).toBe(
      "The provider black-forest-labs could not make it: it no longer knows the task (Task not found).",
    );
    expect(model.unavailableReason!()).toBeNull();
  });

  it("a cancel while polling aborts the poll in flight: no sample fetched, the provider not blamed", async () => {
    const state = labsState();
    state.mode = "never-done";
    const ran: { model?: ModelDefinition } = {};
    const error = await cancelWhilePolling(
      blackForestLabsFake(state, { key: KEY }),
      (p) => p.includes("/get_result"),
      (url, signal) =>
        runModelForTest(
          (ran.model = models("black-forest-labs", `${url}/v1`)["bfl/flux"]!),
          { prompt: "a kite" },
          testRunTools({ signal }),
        ),
    );
    expect((error as Error).message).toBe("run canceled");
    expect(error).not.toBeInstanceOf(ModelError);
    expect(lines(state)).toEqual([
      "POST /v1/flux-pro-1.1",
      "GET /v1/get_result?id=5f0c9a1e-0000-4000-8000-000000000001",
    ]);
    expect(server.current!.abandoned).toEqual(["/v1/get_result?id=5f0c9a1e-0000-4000-8000-000000000001"]);
    expect(ran.model!.unavailableReason!()).toBeNull();
  });
});

describe("ai-sdk: xAI (@ai-sdk/xai: images, and video by request_id polling)", () => {
  it("makes images: the Bearer key and a provider option on the wire, base64 JPEGs back, measured", async () => {
    const state = labsState();
    const { url } = await start(xaiFake(state, { key: KEY, ffmpegPath }));
    const outputs = (await runModelForTest(models("xai", `${url}/v1`)["xai/image"]!, {
      prompt: "a red fox",
      n: 2,
      aspect_ratio: "16:9",
      resolution: "1k",
    })) as ImageOutput[];
    expect(lines(state)).toEqual(["POST /v1/images/generations"]);
    expect(state.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      model: "grok-imagine-image",
      prompt: "a red fox",
      n: 2,
      response_format: "b64_json",
      aspect_ratio: "16:9",
      resolution: "1k",
    });
    expect(outputs).toHaveLength(2);
    for (const output of outputs) await expectPicture(output, "jpeg", 64, 36);
    expect(outputs[0]!.data.equals(outputs[1]!.data)).toBe(false);
  });

  it("makes a video: submitted, polled through 202 pending until done, the MP4 fetched from the provider's origin without the key, measured with its poster", async () => {
    const state = labsState();
    const { url } = await start(xaiFake(state, { key: KEY, ffmpegPath }));
    const tools = testRunTools();
    const [video] = (await runModelForTest(
      models("xai", `${url}/v1`)["xai/video"]!,
      { prompt: "waves at dusk", duration: 1 },
      tools,
    )) as VideoOutput[];

    const id = "d7c3e2b1-0000-4000-8000-000000000001";
    expect(lines(state)).toEqual([
      "POST /v1/videos/generations",
      `GET /v1/videos/${id}`,
      `GET /v1/videos/${id}`,
      `GET /xai-vidgen-bucket/${id}.mp4`,
    ]);
    expect(state.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(state.requests[3]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      model: "grok-imagine-video",
      prompt: "waves at dusk",
      duration: 1,
      aspect_ratio: "16:9",
      resolution: "480p",
    });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 160, height: 90 });
    expect(video!.duration).toBeCloseTo(1, 0);
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 160, height: 90 });
    expect(tools.uncancelableReasons).toEqual(["provider"]);
  });

  it("a refusal passes on xAI's `error` words and keeps it in service; a failed video fails the run only; a 503 takes it out of service", async () => {
    const state = labsState();
    const { url } = await start(xaiFake(state, { key: KEY, ffmpegPath }));
    const all = models("xai", `${url}/v1`);

    state.mode = "refuse";
    expect((await failureOf(runModelForTest(all["xai/image"]!, { prompt: "no" }))).message).toBe(
      `The provider xai refused the request: ${LABS_REFUSALS.xai}`,
    );
    expect(all["xai/image"]!.unavailableReason!()).toBeNull();

    // The status's error.message, which the package drops for "Video generation failed.".
    state.mode = "job-fails";
    expect((await failureOf(runModelForTest(all["xai/video"]!, { prompt: "no" }))).message).toBe(
      "The provider xai could not make it: The video was rejected by content moderation.",
    );
    expect(all["xai/video"]!.unavailableReason!()).toBeNull();

    state.mode = "down";
    const down = await failureOf(runModelForTest(all["xai/video"]!, { prompt: "waves" }));
    expect(down.message).toBe(`The provider xai failed (HTTP 503: ${LABS_OUTAGES.xai}). Try again later.`);
    // One provider, one health: the image entry is out of service too.
    for (const model of Object.values(all)) expect(model.unavailableReason!()?.message).toContain("HTTP 503");
  });

  it("a cancel while polling a video aborts the poll in flight: nothing fetched, the provider not blamed", async () => {
    const state = labsState();
    state.mode = "never-done";
    const ran: { model?: ModelDefinition } = {};
    const error = await cancelWhilePolling(
      xaiFake(state, { key: KEY, ffmpegPath }),
      (p) => p.startsWith("/v1/videos/d7c3"),
      (url, signal) =>
        runModelForTest(
          (ran.model = models("xai", `${url}/v1`)["xai/video"]!),
          { prompt: "waves" },
          testRunTools({ signal }),
        ),
    );
    expect((error as Error).message).toBe("run canceled");
    expect(error).not.toBeInstanceOf(ModelError);
    expect(lines(state)).toEqual([
      "POST /v1/videos/generations",
      "GET /v1/videos/d7c3e2b1-0000-4000-8000-000000000001",
    ]);
    expect(ran.model!.unavailableReason!()).toBeNull();
  });
});

describe("ai-sdk: LMNT (@ai-sdk/lmnt, which has no baseURL: its fetch is redirected)", () => {
  it("speaks MP3 through the redirected host, with X-API-Key and provider options on the wire", async () => {
    const state = labsState();
    const { url } = await start(lmntFake(state, { key: KEY, ffmpegPath }));
    const [sound] = (await runModelForTest(models("lmnt", url)["lmnt/blizzard"]!, {
      text: "Hello there.",
      temperature: 0.5,
      speed: 1.5,
    })) as AudioOutput[];
    expect(lines(state)).toEqual(["POST /v1/ai/speech/bytes"]);
    expect(state.requests[0]!.headers["x-api-key"]).toBe(KEY);
    // With any providerOptions.lmnt, the package adds its defaults (conversational, top_p, sample_rate).
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      model: "blizzard",
      text: "Hello there.",
      voice: "leah",
      response_format: "mp3",
      speed: 1.5,
      conversational: false,
      temperature: 0.5,
      top_p: 1,
      sample_rate: 24000,
    });
    expect(sound).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
    expect(sound!.duration).toBeGreaterThan(0.9);
    expect(decodedSeconds(sound!.data, "lmnt.mp3")).toBeGreaterThan(0.9);
  });

  it("output_format wav goes out as `response_format`, which LMNT does not read: its MP3 is measured as the MP3 it is", async () => {
    const state = labsState();
    const { url } = await start(lmntFake(state, { key: KEY, ffmpegPath }));
    const [sound] = (await runModelForTest(models("lmnt", url)["lmnt/blizzard"]!, {
      text: "Hello.",
      output_format: "wav",
    })) as AudioOutput[];
    const body = JSON.parse(state.requests[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ response_format: "wav" });
    expect(body.format).toBeUndefined();
    expect(sound).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
  });

  it("refusal: the provider's error.message, still in service; outage: out of service", async () => {
    const state = labsState();
    const { url } = await start(lmntFake(state, { key: KEY, ffmpegPath }));
    const model = models("lmnt", url)["lmnt/blizzard"]!;
    state.mode = "refuse";
    expect((await failureOf(runModelForTest(model, { text: "No.", voice: "nobody" }))).message).toBe(
      `The provider lmnt refused the request: ${LABS_REFUSALS.lmnt}`,
    );
    expect(model.unavailableReason!()).toBeNull();
    state.mode = "down";
    const down = await failureOf(runModelForTest(model, { text: "No." }));
    expect(down.message).toBe(`The provider lmnt failed (HTTP 500: ${LABS_OUTAGES.lmnt}). Try again later.`);
    expect(down).toMatchObject({ transient: true });
    expect(model.unavailableReason!()?.message).toContain("HTTP 500");
  });
});
