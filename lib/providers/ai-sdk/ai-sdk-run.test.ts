// The "ai-sdk" kind run for real: the AI SDK's own packages (@ai-sdk/openai, -openai-compatible,
// -elevenlabs, -google) talk to local fakes of the providers' APIs (ai-sdk-fake.ts); the remote
// entry measures what comes back. Success with every output modality, refusals, outages,
// timeouts, the cancel point, providerOptions reaching the wire, and the key in no message.
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
  elevenLabsFake,
  fakeState,
  googleFake,
  openAiFake,
  REFUSALS,
  type FakeMode,
  type FakeState,
} from "./testing/ai-sdk-fake";
import { entry, failureOf, modelsOf, object, useFakeServer, useSoundDecoder } from "./testing/ai-sdk-test-support";
import { eventually, sendJson, startTestServer } from "../testing/test-server";

const KEY = "sk-ai-sdk-test-7d1e";
const ffmpegPath = testRunTools().ffmpegPath;
const decodedSeconds = useSoundDecoder("ai-sdk-run-");

const ENTRIES = {
  openai: [
    entry(
      "openai/image",
      "gpt-image-1",
      "image",
      object(["prompt"], {
        prompt: { type: "string" },
        n: { type: "integer", default: 1 },
        size: { type: "string", default: "64x48" },
        quality: { type: "string" },
      }),
    ),
    entry(
      "openai/speech",
      "gpt-4o-mini-tts",
      "audio",
      object(["text"], {
        text: { type: "string" },
        voice: { type: "string", default: "alloy" },
        output_format: { type: "string", enum: ["mp3", "wav"], default: "mp3" },
        speed: { type: "number" },
      }),
    ),
  ],
  "openai-compatible": [
    entry(
      "local/sd",
      "stable-diffusion",
      "image",
      object(["prompt"], {
        prompt: { type: "string" },
        size: { type: "string", default: "32x32" },
        negative_prompt: { type: "string" },
        step: { type: "integer" },
      }),
      {
        call: { step: "providerOptions.steps" },
        provider_options: { cfg_scale: 7 },
      },
    ),
  ],
  elevenlabs: [
    entry(
      "eleven/v2",
      "eleven_multilingual_v2",
      "audio",
      object(["text"], {
        text: { type: "string" },
        voice: { type: "string", default: "21m00Tcm4TlvDq8ikWAM" },
        seed: { type: "integer" },
        stability: { type: "number" },
      }),
      {
        call: { stability: "providerOptions.voiceSettings.stability" },
      },
    ),
  ],
  google: [
    entry(
      "google/veo",
      "veo-3.0-generate-001",
      "video",
      object(["prompt"], {
        prompt: { type: "string" },
        duration: { type: "integer", default: 4 },
        aspect_ratio: { type: "string", enum: ["16:9", "9:16"], default: "16:9" },
        negativePrompt: { type: "string" },
      }),
      {
        provider_options: { pollIntervalMs: 10 },
      },
    ),
    entry(
      "google/imagen",
      "imagen-4.0-generate-001",
      "image",
      object(["prompt"], { prompt: { type: "string" }, n: { type: "integer", default: 1 } }),
    ),
  ],
};

type Name = keyof typeof ENTRIES;

function models(
  name: Name,
  baseUrl: string,
  options: { timeoutMs?: number; key?: boolean } = {},
): Record<string, ModelDefinition> {
  return modelsOf(
    {
      id: name === "openai-compatible" ? "local" : name,
      kind: "ai-sdk",
      provider: name,
      base_url: baseUrl,
      ...(options.key === false ? {} : { api_key_env: "TEST_KEY" }),
      timeout_ms: options.timeoutMs ?? 10_000,
      entries: ENTRIES[name],
    },
    KEY,
  );
}

const server = useFakeServer();
const { start } = server;

/** Serves the OpenAI fake in `mode`: its image entry. */
async function openAiImage(mode: FakeMode, options: { timeoutMs?: number } = {}): Promise<ModelDefinition> {
  const state = fakeState();
  state.mode = mode;
  const { url } = await start(openAiFake(state, { key: KEY, ffmpegPath }));
  return models("openai", `${url}/v1`, options)["openai/image"]!;
}

describe("ai-sdk: OpenAI (@ai-sdk/openai at base_url)", () => {
  it("makes images: the key, the call's arguments and a provider option on the wire; real PNGs back, measured", async () => {
    const state = fakeState();
    const { url } = await start(openAiFake(state, { key: KEY, ffmpegPath }));
    const tools = testRunTools();
    const outputs = (await runModelForTest(
      models("openai", `${url}/v1`)["openai/image"]!,
      { prompt: "a red fox", n: 2, quality: "high" },
      tools,
    )) as ImageOutput[];

    expect(tools.uncancelableReasons).toEqual(["provider"]);
    const [request] = state.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/images/generations" });
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(request!.body)).toMatchObject({
      model: "gpt-image-1",
      prompt: "a red fox",
      n: 2,
      size: "64x48",
      quality: "high",
    });
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
      expect(await sharp(output.data).metadata()).toMatchObject({ format: "png", width: 64, height: 48 });
    }
    expect(outputs[0]!.data.equals(outputs[1]!.data)).toBe(false);
    expect(tools.providerReports).toEqual([{ providerId: "openai", down: null }]);
  });

  it("speaks: MP3 and WAV come back as sounds that decode, with their duration", async () => {
    const state = fakeState();
    const { url } = await start(openAiFake(state, { key: KEY, ffmpegPath }));
    const model = models("openai", `${url}/v1`)["openai/speech"]!;
    const [mp3] = (await runModelForTest(model, { text: "Hello there.", speed: 1.25 })) as AudioOutput[];
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      model: "gpt-4o-mini-tts",
      input: "Hello there.",
      voice: "alloy",
      response_format: "mp3",
      speed: 1.25,
    });
    expect(state.requests[0]!.path).toBe("/v1/audio/speech");
    expect(mp3).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
    expect(mp3!.duration).toBeGreaterThan(0.9);
    expect(decodedSeconds(mp3!.data, "speech.mp3")).toBeGreaterThan(0.9);

    const [wav] = (await runModelForTest(model, { text: "Hello there.", output_format: "wav" })) as AudioOutput[];
    expect(JSON.parse(state.requests[1]!.body)).toMatchObject({ response_format: "wav" });
    expect(wav).toMatchObject({ type: "audio", content_type: "audio/wav" });
    expect(wav!.duration).toBeCloseTo(1, 1);
    expect(decodedSeconds(wav!.data, "speech.wav")).toBeCloseTo(1, 1);
  });

  it("passes on the provider's own words when it refuses (4xx): the run fails, the provider stays in service", async () => {
    const model = await openAiImage("refuse");
    const error = await failureOf(runModelForTest(model, { prompt: "something refused" }));
    expect(error.message).toBe(`The provider openai refused the request: ${REFUSALS.openai}`);
    expect(error).toMatchObject({ transient: false });
    expect(model.unavailableReason!()).toBeNull();
  });

  it("fails on a 5xx at once (no SDK retries) and takes the provider's entries out of service, shared with other processes", async () => {
    const state = fakeState();
    state.mode = "down";
    const { url } = await start(openAiFake(state, { key: KEY, ffmpegPath }));
    const all = models("openai", `${url}/v1`);
    const tools = testRunTools();
    const error = await failureOf(runModelForTest(all["openai/speech"]!, { text: "Hello" }, tools));
    expect(error.message).toBe(
      "The provider openai failed (HTTP 500: The server had an error while processing your request. Sorry about that!). Try again later.",
    );
    expect(error).toMatchObject({ transient: true });
    expect(state.requests).toHaveLength(1);
    // Both entries share the provider's health.
    for (const model of Object.values(all))
      expect(model.unavailableReason!()?.message).toMatch(/^its provider openai is failing \(HTTP 500, at .*\)$/);
    expect(tools.providerReports).toEqual([
      { providerId: "openai", down: { until: expect.any(String), reason: expect.stringContaining("HTTP 500") } },
    ]);
  });

  it("gives up after timeout_ms, aborts the request and marks the provider down", async () => {
    const model = await openAiImage("hang", { timeoutMs: 300 });
    const error = await failureOf(runModelForTest(model, { prompt: "a fox" }));
    expect(error.message).toBe("The provider openai did not answer within 0.3 s. Try again later.");
    await eventually(() => server.current!.abandoned.length === 1);
    expect(model.unavailableReason!()?.message).toContain("no answer within 0.3 s");
  });

  it("sends nothing when the run is canceled before it passes its cancel point", async () => {
    const state = fakeState();
    const { url } = await start(openAiFake(state, { key: KEY, ffmpegPath }));
    const tools = testRunTools();
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    await expect(
      runModelForTest(models("openai", `${url}/v1`)["openai/image"]!, { prompt: "a fox" }, tools),
    ).rejects.toThrow("cancel point");
    expect(state.requests).toHaveLength(0);
  });

  it("aborts the call when the run is canceled meanwhile, without blaming the provider", async () => {
    const controller = new AbortController();
    const state = fakeState();
    state.mode = "hang";
    const fake = openAiFake(state, { key: KEY, ffmpegPath });
    const { url } = await start((request, res) => {
      controller.abort(new Error("run canceled"));
      return fake(request, res);
    });
    const model = models("openai", `${url}/v1`)["openai/image"]!;
    const failure = runModelForTest(model, { prompt: "a fox" }, testRunTools({ signal: controller.signal }));
    await expect(failure).rejects.toThrow("run canceled");
    await expect(failure).rejects.not.toBeInstanceOf(ModelError);
    await eventually(() => server.current!.abandoned.length === 1);
    expect(model.unavailableReason!()).toBeNull();
  });

  it("marks the provider down when it cannot be reached", async () => {
    const gone = await startTestServer(() => undefined);
    await gone.close();
    const model = models("openai", `${gone.url}/v1`)["openai/image"]!;
    const error = await failureOf(runModelForTest(model, { prompt: "a fox" }));
    expect(error.message).toBe("The provider openai could not be reached (ECONNREFUSED). Try again later.");
    expect(model.unavailableReason!()?.message).toContain("unreachable (ECONNREFUSED)");
  });

  it("never shows the key: not from a 401's words, nor from a refusal that repeats it, nor in the health record", async () => {
    const model = await openAiImage("unauthorized");
    const unauthorized = await failureOf(runModelForTest(model, { prompt: "a fox" }));
    expect(unauthorized.message).toBe(
      "The provider openai refused this server's credentials (HTTP 401); the operators must check its API key.",
    );
    expect(model.unavailableReason!()?.message).not.toContain(KEY);

    server.current!.handle = (_request, res) =>
      sendJson(res, 400, {
        error: { message: `Header Authorization: Bearer ${KEY} is not allowed with this prompt.` },
      });
    const echoed = await failureOf(runModelForTest(model, { prompt: "a fox" }));
    expect(echoed.message).toBe(
      "The provider openai refused the request: Header Authorization: Bearer [key] is not allowed with this prompt.",
    );
  });
});

describe("ai-sdk: an OpenAI-compatible local server (@ai-sdk/openai-compatible)", () => {
  it("sends no key when the file names none, and every other field as it is in the body (renamed where `call` says, fixed options too)", async () => {
    const state = fakeState();
    const { url } = await start(openAiFake(state, { key: null, ffmpegPath }));
    const [image] = (await runModelForTest(models("openai-compatible", `${url}/v1`, { key: false })["local/sd"]!, {
      prompt: "a lighthouse",
      negative_prompt: "fog",
      step: 20,
    })) as ImageOutput[];
    const request = state.requests[0]!;
    expect(request.path).toBe("/v1/images/generations");
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.body)).toEqual({
      model: "stable-diffusion",
      prompt: "a lighthouse",
      n: 1,
      size: "32x32",
      negative_prompt: "fog",
      steps: 20,
      cfg_scale: 7,
      response_format: "b64_json",
    });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 32, height: 32 });
  });
});

describe("ai-sdk: ElevenLabs (@ai-sdk/elevenlabs, which has no baseURL: its fetch is redirected)", () => {
  it("speaks MP3 through the redirected host, with the key header and provider options on the wire", async () => {
    const state = fakeState();
    const { url } = await start(elevenLabsFake(state, { key: KEY, ffmpegPath }));
    const [sound] = (await runModelForTest(models("elevenlabs", url)["eleven/v2"]!, {
      text: "Bonjour.",
      seed: 7,
      stability: 0.3,
    })) as AudioOutput[];
    const request = state.requests[0]!;
    expect(request.path).toBe("/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128");
    expect(request.headers["xi-api-key"]).toBe(KEY);
    expect(JSON.parse(request.body)).toEqual({
      text: "Bonjour.",
      model_id: "eleven_multilingual_v2",
      seed: 7,
      voice_settings: { stability: 0.3 },
    });
    expect(sound).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
    expect(decodedSeconds(sound!.data, "eleven.mp3")).toBeGreaterThan(0.9);
  });

  it("refusal: the provider's detail.message; outage: out of service", async () => {
    const state = fakeState();
    state.mode = "refuse";
    const { url } = await start(elevenLabsFake(state, { key: KEY, ffmpegPath }));
    const model = models("elevenlabs", url)["eleven/v2"]!;
    expect((await failureOf(runModelForTest(model, { text: "No." }))).message).toBe(
      `The provider elevenlabs refused the request: ${REFUSALS.elevenlabs}`,
    );
    expect(model.unavailableReason!()).toBeNull();
    state.mode = "down";
    expect((await failureOf(runModelForTest(model, { text: "No." }))).message).toBe(
      "The provider elevenlabs failed (HTTP 503: The service is temporarily unavailable.). Try again later.",
    );
    expect(model.unavailableReason!()?.message).toContain("HTTP 503");
  });
});

describe("ai-sdk: Google (@ai-sdk/google: Veo's long-running operation, Imagen)", () => {
  it("makes a video: the operation is polled until done, the MP4 fetched from the provider's origin with the key, measured with its poster", async () => {
    const state = fakeState();
    const { url } = await start(googleFake(state, { key: KEY, ffmpegPath }));
    const [video] = (await runModelForTest(models("google", `${url}/v1beta`)["google/veo"]!, {
      prompt: "waves at dusk",
      negativePrompt: "people",
    })) as VideoOutput[];
    const paths = state.requests.map((r) => `${r.method} ${r.path.replace(KEY, "KEY")}`);
    expect(paths).toEqual([
      "POST /v1beta/models/veo-3.0-generate-001:predictLongRunning",
      "GET /v1beta/models/veo-3.0-generate-001/operations/op1",
      "GET /v1beta/models/veo-3.0-generate-001/operations/op1",
      "GET /v1beta/files/op1:download?alt=media&key=KEY",
    ]);
    expect(state.requests[0]!.headers["x-goog-api-key"]).toBe(KEY);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      instances: [{ prompt: "waves at dusk" }],
      parameters: { sampleCount: 1, aspectRatio: "16:9", durationSeconds: 4, negativePrompt: "people" },
    });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 160, height: 90 });
    expect(video!.duration).toBeCloseTo(1, 0);
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 160, height: 90 });
  });

  it("makes images with Imagen", async () => {
    const state = fakeState();
    const { url } = await start(googleFake(state, { key: KEY, ffmpegPath }));
    const outputs = (await runModelForTest(models("google", `${url}/v1beta`)["google/imagen"]!, {
      prompt: "a kite",
      n: 2,
    })) as ImageOutput[];
    expect(state.requests[0]!.path).toBe("/v1beta/models/imagen-4.0-generate-001:predict");
    expect(outputs.map((o) => [o.type, o.content_type, o.width, o.height])).toEqual([
      ["image", "image/png", 64, 64],
      ["image", "image/png", 64, 64],
    ]);
  });

  it("a refused request, a failed operation, a result that cannot be fetched: messages without the key", async () => {
    const state: FakeState = fakeState();
    const fake = googleFake(state, { key: KEY, ffmpegPath });
    const { url } = await start(fake);
    const model = models("google", `${url}/v1beta`)["google/veo"]!;

    state.mode = "refuse";
    expect((await failureOf(runModelForTest(model, { prompt: "no" }))).message).toBe(
      `The provider google refused the request: ${REFUSALS.google}`,
    );

    state.mode = "job-fails";
    const failed = await failureOf(runModelForTest(model, { prompt: "no" }));
    expect(failed.message).toBe(
      "The provider google could not make it: Video generation failed: The video could not be generated: it may violate our policies.",
    );
    expect(model.unavailableReason!()).toBeNull();

    // The result link carries ?key=: a failure to fetch it must not show it.
    state.mode = "ok";
    server.current!.handle = (request, res) =>
      request.path.includes(":download")
        ? sendJson(res, 502, { error: { message: `bad gateway for ${request.path}` } })
        : fake(request, res);
    const lost = await failureOf(runModelForTest(model, { prompt: "waves" }));
    expect(lost.message).toBe("The provider google failed (HTTP 502). Try again later.");
    expect(lost.message).not.toContain(KEY);
    expect(model.unavailableReason!()?.message).not.toContain(KEY);
  });
});
