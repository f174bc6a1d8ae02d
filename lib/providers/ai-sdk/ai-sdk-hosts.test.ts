// The "ai-sdk" kind run for real against five more packages: @ai-sdk/togetherai, -fireworks,
// -deepinfra, -fal (images, speech, video) and -replicate (images, video) talk to local fakes of
// their providers' APIs (ai-sdk-fake-hosts.ts); the remote entry measures what comes back. For each:
// success (the key header and a provider option on the wire, real media measured), a refusal
// (the provider's own words, still in service), an outage (out of service), and for the ones
// whose package polls a job, a cancel during polling that aborts the poll.
import { describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import {
  ModelError,
  type AudioOutput,
  type ImageOutput,
  type ModelDefinition,
  type VideoOutput,
} from "../../core/catalog/model-definition";
import { fakeState, type FakeState } from "./testing/ai-sdk-fake";
import {
  deepInfraFake,
  falHostFake,
  fireworksFake,
  HOST_REFUSALS,
  HOST_REPLICATE_FAILURE,
  HOST_REPLICATE_MODELS,
  replicateHostFake,
  togetherFake,
  type HostFakeOptions,
} from "./testing/ai-sdk-fake-hosts";
import { entry, failureOf, modelsOf, object, useFakeServer, withServerElsewhere } from "./testing/ai-sdk-test-support";
import { eventually, sendJson, type Handler, type RecordedRequest } from "../testing/test-server";

const KEY = "sk-ai-sdk-hosts-51c9";
const ffmpegPath = testRunTools().ffmpegPath;
const WAN_VERSION = HOST_REPLICATE_MODELS["wan-video/wan-2.1-t2v-480p"]!.version;

const prompt = { type: "string" };

const ENTRIES = {
  togetherai: [
    entry(
      "together/flux",
      "black-forest-labs/FLUX.1-schnell",
      "image",
      object(["prompt"], {
        prompt,
        n: { type: "integer", default: 1 },
        size: { type: "string", default: "64x48" },
        seed: { type: "integer" },
        steps: { type: "integer" },
      }),
    ),
  ],
  fireworks: [
    entry(
      "fireworks/flux",
      "accounts/fireworks/models/flux-1-schnell-fp8",
      "image",
      object(["prompt"], {
        prompt,
        aspect_ratio: { type: "string", enum: ["1:1", "16:9"], default: "16:9" },
        guidance_scale: { type: "number" },
      }),
    ),
    entry(
      "fireworks/kontext",
      "accounts/fireworks/models/flux-kontext-pro",
      "image",
      object(["prompt"], { prompt, safety_tolerance: { type: "integer" } }),
    ),
  ],
  deepinfra: [
    entry(
      "deepinfra/flux",
      "black-forest-labs/FLUX-1-schnell",
      "image",
      object(["prompt"], {
        prompt,
        size: { type: "string", default: "64x48" },
        num_inference_steps: { type: "integer" },
      }),
    ),
  ],
  fal: [
    // The SDK's camelCase option becomes fal's snake_case field on the wire.
    entry(
      "fal/flux",
      "fal-ai/flux/schnell",
      "image",
      object(["prompt"], { prompt, size: { type: "string", default: "64x48" }, steps: { type: "integer" } }),
      { call: { steps: "providerOptions.numInferenceSteps" } },
    ),
    entry(
      "fal/speech",
      "fal-ai/minimax/speech-02-hd",
      "audio",
      object(["text"], {
        text: { type: "string" },
        voice: { type: "string", default: "Wise_Woman" },
        language_boost: { type: "string", enum: ["English", "French"] },
      }),
    ),
    entry(
      "fal/kling",
      "fal-ai/kling-video/v2.1/master/text-to-video",
      "video",
      object(["prompt"], {
        prompt,
        duration: { type: "integer", default: 5 },
        aspect_ratio: { type: "string", enum: ["16:9", "9:16"], default: "16:9" },
        cfg_scale: { type: "number" },
      }),
      {
        provider_options: { pollIntervalMs: 10 },
      },
    ),
  ],
  replicate: [
    entry(
      "replicate/flux",
      "black-forest-labs/flux-schnell",
      "image",
      object(["prompt"], {
        prompt,
        aspect_ratio: { type: "string", enum: ["1:1", "16:9"], default: "1:1" },
        output_format: { type: "string", enum: ["png", "webp"], default: "png" },
        go_fast: { type: "boolean" },
      }),
    ),
    entry(
      "replicate/wan",
      `wan-video/wan-2.1-t2v-480p:${WAN_VERSION}`,
      "video",
      object(["prompt"], { prompt, fast_mode: { type: "string", enum: ["Off", "Balanced", "Fast"] } }),
      { provider_options: { pollIntervalMs: 10 } },
    ),
  ],
};

type Name = keyof typeof ENTRIES;

/** Each package's base_url on the fake, as its real default host's path goes. */
const BASE_PATH: Record<Name, string> = {
  togetherai: "/v1",
  fireworks: "/inference/v1",
  deepinfra: "/v1",
  fal: "",
  replicate: "/v1",
};

const FAKES: Record<Name, (state: FakeState, options: HostFakeOptions) => Handler> = {
  togetherai: togetherFake,
  fireworks: fireworksFake,
  deepinfra: deepInfraFake,
  fal: falHostFake,
  replicate: replicateHostFake,
};

function models(name: Name, url: string): Record<string, ModelDefinition> {
  return modelsOf(
    {
      id: name,
      kind: "ai-sdk",
      provider: name,
      base_url: `${url}${BASE_PATH[name]}`,
      api_key_env: "TEST_KEY",
      timeout_ms: 10_000,
      entries: ENTRIES[name],
    },
    KEY,
  );
}

const lines = (requests: RecordedRequest[]) =>
  requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{20,}/g, "ID")}`);

const server = useFakeServer();

/** Starts `name`'s fake; `around` may answer a request itself first (return true). */
async function start(
  name: Name,
  around?: (request: RecordedRequest, res: Parameters<Handler>[1]) => boolean,
  fakeOptions: Partial<HostFakeOptions> = {},
) {
  const state = fakeState();
  const fake = FAKES[name](state, { key: KEY, ffmpegPath, ...fakeOptions });
  const { url } = await server.start((request, res) => (around?.(request, res) ? undefined : fake(request, res)));
  return { state, all: models(name, url) };
}

/** A refusal fails the run with the provider's words and leaves it in service; an outage takes it out. */
async function expectRefusalThenOutage(
  name: Name,
  id: string,
  input: Record<string, unknown>,
  refused: string,
  outage: string,
) {
  const { state, all } = await start(name);
  const model = all[id]!;
  state.mode = "refuse";
  const refusal = await failureOf(runModelForTest(model, input));
  expect(refusal.message).toBe(`The provider ${name} refused the request: ${refused}`);
  expect(model.unavailableReason!()).toBeNull();
  state.mode = "down";
  const tools = testRunTools();
  expect((await failureOf(runModelForTest(model, input, tools))).message).toBe(outage);
  // One request each: no retries inside the SDK.
  expect(state.requests).toHaveLength(2);
  expect(model.unavailableReason!()?.message).toMatch(
    new RegExp(`^its provider ${name} is failing \\(HTTP 5\\d\\d, at .*\\)$`),
  );
  expect(tools.providerReports).toEqual([
    { providerId: name, down: { until: expect.any(String), reason: expect.stringMatching(/HTTP 5\d\d/) } },
  ]);
}

/** A job that ends badly ("job-fails") fails the run with `message` only: the provider stays in service. Resolves with the run's error. */
async function expectJobFailure(name: Name, id: string, message: string): Promise<ModelError> {
  const { state, all } = await start(name);
  state.mode = "job-fails";
  const error = await failureOf(runModelForTest(all[id]!, { prompt: "no" }));
  expect(error.message).toBe(message);
  expect(all[id]!.unavailableReason!()).toBeNull();
  return error;
}

/**
 * Cancels the run when the package first polls (`isPoll`) and never answers that poll: the run
 * ends with the cancel (not a ModelError), the poll is abandoned, the provider stays in service.
 */
async function expectCancelDuringPolling(
  name: Name,
  id: string,
  input: Record<string, unknown>,
  isPoll: (r: RecordedRequest) => boolean,
) {
  const controller = new AbortController();
  const { all } = await start(name, (request) => {
    if (!isPoll(request)) return false;
    controller.abort(new Error("run canceled"));
    return true;
  });
  const failure = runModelForTest(all[id]!, input, testRunTools({ signal: controller.signal }));
  await expect(failure).rejects.toThrow("run canceled");
  await expect(failure).rejects.not.toBeInstanceOf(ModelError);
  await eventually(() => server.current!.abandoned.length === 1);
  expect(isPoll(server.current!.requests.at(-1)!)).toBe(true);
  expect(all[id]!.unavailableReason!()).toBeNull();
}

const REFUSED_LINK = (name: Name) =>
  `The provider ${name} gave a result link Atelier does not fetch (not http(s), or a local or private address).`;

describe("ai-sdk: Together AI (@ai-sdk/togetherai)", () => {
  it("makes images, one request each (maxImagesPerCall 1): the key, the size as width/height and a provider option on the wire; PNGs measured", async () => {
    const { state, all } = await start("togetherai");
    const tools = testRunTools();
    const outputs = (await runModelForTest(
      all["together/flux"]!,
      { prompt: "a red fox", n: 2, seed: 5, steps: 4 },
      tools,
    )) as ImageOutput[];
    expect(tools.uncancelableReasons).toEqual(["provider"]);
    expect(lines(state.requests)).toEqual(["POST /v1/images/generations", "POST /v1/images/generations"]);
    for (const request of state.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(JSON.parse(request.body)).toEqual({
        model: "black-forest-labs/FLUX.1-schnell",
        prompt: "a red fox",
        seed: 5,
        width: 64,
        height: 48,
        response_format: "base64",
        steps: 4,
      });
    }
    expect(outputs.map((o) => [o.type, o.content_type, o.width, o.height])).toEqual([
      ["image", "image/png", 64, 48],
      ["image", "image/png", 64, 48],
    ]);
  });

  it("refusal: the provider's error.message, still in service; outage: out of service", async () => {
    await expectRefusalThenOutage(
      "togetherai",
      "together/flux",
      { prompt: "no" },
      HOST_REFUSALS.togetherai,
      "The provider togetherai failed (HTTP 503: The server is overloaded or not ready yet.). Try again later.",
    );
  });
});

describe("ai-sdk: Fireworks (@ai-sdk/fireworks: flux workflows answer bytes, kontext workflows a polled job)", () => {
  const isPoll = (r: RecordedRequest) => r.path.endsWith("/get_result");

  it("makes a JPEG with a flux workflow: aspect ratio, the key and a provider option on the wire", async () => {
    const { state, all } = await start("fireworks");
    const [image] = (await runModelForTest(all["fireworks/flux"]!, {
      prompt: "a lighthouse",
      guidance_scale: 3.5,
    })) as ImageOutput[];
    const [request] = state.requests;
    expect(lines(state.requests)).toEqual([
      "POST /inference/v1/workflows/accounts/fireworks/models/flux-1-schnell-fp8/text_to_image",
    ]);
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(request!.body)).toEqual({
      prompt: "a lighthouse",
      aspect_ratio: "16:9",
      samples: 1,
      guidance_scale: 3.5,
    });
    expect(image).toMatchObject({ type: "image", content_type: "image/jpeg", width: 64, height: 36 });
  });

  it("makes an image with a kontext workflow: submitted, polled until Ready, the sample fetched from the provider's origin with the key", async () => {
    const { state, all } = await start("fireworks");
    const [image] = (await runModelForTest(all["fireworks/kontext"]!, {
      prompt: "a teapot",
      safety_tolerance: 2,
    })) as ImageOutput[];
    const model = "/inference/v1/workflows/accounts/fireworks/models/flux-kontext-pro";
    expect(lines(state.requests)).toEqual([
      `POST ${model}`,
      `POST ${model}/get_result`,
      `POST ${model}/get_result`,
      "GET /files/ID.jpeg",
    ]);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({ prompt: "a teapot", samples: 1, safety_tolerance: 2 });
    const requestId = (JSON.parse(state.requests[1]!.body) as { id: string }).id;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    for (const request of state.requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(image).toMatchObject({ type: "image", content_type: "image/jpeg", width: 64, height: 64 });
  });

  it("refusal: the provider's error.message, still in service; outage: out of service", async () => {
    await expectRefusalThenOutage(
      "fireworks",
      "fireworks/flux",
      { prompt: "no" },
      HOST_REFUSALS.fireworks,
      "The provider fireworks failed (HTTP 500: Internal server error). Try again later.",
    );
  });

  it("a job that ends in Error fails the run only", async () => {
    await expectJobFailure(
      "fireworks",
      "fireworks/kontext",
      "The provider fireworks could not make it: Fireworks image generation failed with status: Error",
    );
  });

  it("a cancel while the job is polled aborts the poll", async () => {
    await expectCancelDuringPolling("fireworks", "fireworks/kontext", { prompt: "a teapot" }, isPoll);
  });

  it("a kontext job moderated (a status its package would poll past for two minutes) is a refusal at once: polled no further, still in service", async () => {
    const { state, all } = await start("fireworks", undefined, { jobStatus: "Request Moderated" });
    const error = await failureOf(runModelForTest(all["fireworks/kontext"]!, { prompt: "no" }));
    expect(error.message).toBe("The provider fireworks refused the request: Request Moderated");
    expect(error).toMatchObject({ transient: false });
    expect(lines(state.requests).filter((line) => line.endsWith("/get_result"))).toHaveLength(2);
    expect(all["fireworks/kontext"]!.unavailableReason!()).toBeNull();
  });
});

describe("ai-sdk: DeepInfra (@ai-sdk/deepinfra: images under {base_url}/inference)", () => {
  it("makes images: data-URL PNGs decoded and measured, the key and a provider option on the wire", async () => {
    const { state, all } = await start("deepinfra");
    const [image] = (await runModelForTest(all["deepinfra/flux"]!, {
      prompt: "a kite",
      num_inference_steps: 4,
    })) as ImageOutput[];
    expect(lines(state.requests)).toEqual(["POST /v1/inference/black-forest-labs/FLUX-1-schnell"]);
    expect(state.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    // The package sends width and height as strings, as it splits them from `size`.
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      prompt: "a kite",
      num_images: 1,
      width: "64",
      height: "48",
      num_inference_steps: 4,
    });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
  });

  it("refusal: the provider's detail.error, still in service; outage: out of service", async () => {
    await expectRefusalThenOutage(
      "deepinfra",
      "deepinfra/flux",
      { prompt: "no" },
      HOST_REFUSALS.deepinfra,
      "The provider deepinfra failed (HTTP 500: Internal error: the model is not available right now). Try again later.",
    );
  });
});

describe("ai-sdk: fal (@ai-sdk/fal: images at base_url, speech and video on fixed hosts redirected there)", () => {
  const isPoll = (r: RecordedRequest) => r.method === "GET" && r.path.startsWith("/queue/");

  it("makes images: the run host answers links, fetched from its origin; Key auth and a renamed provider option on the wire", async () => {
    const { state, all } = await start("fal");
    const [image] = (await runModelForTest(all["fal/flux"]!, { prompt: "a harbour", steps: 4 })) as ImageOutput[];
    expect(lines(state.requests)).toEqual(["POST /fal-ai/flux/schnell", "GET /files/ID.png"]);
    expect(state.requests[0]!.headers.authorization).toBe(`Key ${KEY}`);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      prompt: "a harbour",
      image_size: { width: 64, height: 48 },
      num_images: 1,
      num_inference_steps: 4,
    });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
  });

  it("speaks through the fixed https://fal.run host: an MP3 link fetched and measured, a provider option on the wire", async () => {
    const { state, all } = await start("fal");
    const [sound] = (await runModelForTest(all["fal/speech"]!, {
      text: "Hello there.",
      language_boost: "English",
    })) as AudioOutput[];
    expect(lines(state.requests)).toEqual(["POST /fal-ai/minimax/speech-02-hd", "GET /files/ID.mp3"]);
    expect(state.requests[0]!.headers.authorization).toBe(`Key ${KEY}`);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      text: "Hello there.",
      output_format: "url",
      voice: "Wise_Woman",
      language_boost: "English",
    });
    expect(sound).toMatchObject({ type: "audio", content_type: "audio/mpeg" });
    expect(sound!.duration).toBeGreaterThan(0.9);
  });

  it("makes a video through the fixed queue host: queued, its response_url polled with the key until done, the MP4 measured with its poster", async () => {
    const { state, all } = await start("fal");
    const [video] = (await runModelForTest(all["fal/kling"]!, {
      prompt: "waves at dusk",
      cfg_scale: 0.5,
    })) as VideoOutput[];
    expect(lines(state.requests)).toEqual([
      "POST /queue/fal-ai/kling-video/v2.1/master/text-to-video",
      "GET /queue/fal-ai/kling-video/requests/ID",
      "GET /queue/fal-ai/kling-video/requests/ID",
      "GET /files/ID.mp4",
    ]);
    for (const request of state.requests.slice(0, 3)) expect(request.headers.authorization).toBe(`Key ${KEY}`);
    // pollIntervalMs is the package's own option: it stays out of the body.
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      prompt: "waves at dusk",
      aspect_ratio: "16:9",
      duration: "5s",
      cfg_scale: 0.5,
    });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 160, height: 90 });
    expect(video!.duration).toBeCloseTo(1, 0);
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 160, height: 90 });
  });

  it("refusal: fal's 422 detail[].msg, still in service; outage: out of service", async () => {
    await expectRefusalThenOutage(
      "fal",
      "fal/flux",
      { prompt: "no" },
      HOST_REFUSALS.fal,
      "The provider fal failed (HTTP 503: No runner is available for this application right now.). Try again later.",
    );
  });

  it("a video refused when its result is fetched fails the run with fal's words only", async () => {
    await expectJobFailure(
      "fal",
      "fal/kling",
      `The provider fal refused to hand over what it made: ${HOST_REFUSALS.fal}`,
    );
  });

  it("a cancel while the video is polled aborts the poll", async () => {
    await expectCancelDuringPolling("fal", "fal/kling", { prompt: "waves" }, isPoll);
  });

  it("never fetches an image link to another local address (127.0.0.2)", async () => {
    await withServerElsewhere(async (origin, asked) => {
      const { state, all } = await start("fal", undefined, { resultOrigin: origin });
      const error = await failureOf(runModelForTest(all["fal/flux"]!, { prompt: "a harbour" }));
      expect(error.message).toBe(REFUSED_LINK("fal"));
      expect(lines(state.requests)).toEqual(["POST /fal-ai/flux/schnell"]);
      expect(asked).toEqual([]);
      expect(all["fal/flux"]!.unavailableReason!()).toBeNull();
    });
  });

  it("never follows a redirect from the provider's own host to a private address", async () => {
    await withServerElsewhere(async (origin, asked) => {
      const { all } = await start("fal", (request, res) => {
        if (request.method !== "GET" || !request.path.startsWith("/files/")) return false;
        res.writeHead(302, { location: `${origin}${request.path}` }).end();
        return true;
      });
      const error = await failureOf(runModelForTest(all["fal/flux"]!, { prompt: "a harbour" }));
      expect(error.message).toBe(REFUSED_LINK("fal"));
      expect(lines(server.current!.requests)).toEqual(["POST /fal-ai/flux/schnell", "GET /files/ID.png"]);
      expect(asked).toEqual([]);
    });
  });
});

describe("ai-sdk: Replicate (@ai-sdk/replicate: images in one Prefer: wait request, videos polled)", () => {
  const isPoll = (r: RecordedRequest) => r.method === "GET" && r.path.startsWith("/v1/predictions/");

  it("makes images by the model's endpoint with Prefer: wait; the output links fetched, measured; provider options in the input", async () => {
    const { state, all } = await start("replicate");
    const [image] = (await runModelForTest(all["replicate/flux"]!, {
      prompt: "a red fox",
      go_fast: true,
    })) as ImageOutput[];
    expect(lines(state.requests)).toEqual([
      "POST /v1/models/black-forest-labs/flux-schnell/predictions",
      "GET /files/ID.png",
    ]);
    expect(state.requests[0]!.headers).toMatchObject({ authorization: `Bearer ${KEY}`, prefer: "wait" });
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      input: { prompt: "a red fox", aspect_ratio: "1:1", num_outputs: 1, output_format: "png", go_fast: true },
    });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 64 });
  });

  it("makes a video by version: answered still starting, urls.get polled with the key until succeeded, the MP4 measured with its poster", async () => {
    const { state, all } = await start("replicate");
    const [video] = (await runModelForTest(all["replicate/wan"]!, {
      prompt: "a paper boat",
      fast_mode: "Balanced",
    })) as VideoOutput[];
    expect(lines(state.requests)).toEqual([
      "POST /v1/predictions",
      "GET /v1/predictions/ID",
      "GET /v1/predictions/ID",
      "GET /files/ID.mp4",
    ]);
    for (const request of state.requests.slice(0, 3)) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(state.requests[0]!.body)).toEqual({
      input: { prompt: "a paper boat", fast_mode: "Balanced" },
      version: WAN_VERSION,
    });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 160, height: 90 });
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 160, height: 90 });
  });

  it("refusal: the problem's detail, still in service; outage: out of service", async () => {
    await expectRefusalThenOutage(
      "replicate",
      "replicate/flux",
      { prompt: "no" },
      HOST_REFUSALS.replicate,
      "The provider replicate failed (HTTP 503: Replicate is temporarily unavailable. Please try again later.). Try again later.",
    );
  });

  it("a video prediction that fails fails the run with its error only", async () => {
    await expectJobFailure(
      "replicate",
      "replicate/wan",
      "The provider replicate could not make it: Video generation failed: NSFW content detected. Try running it again, or try a different prompt.",
    );
  });

  it("a cancel while the video is polled aborts the poll", async () => {
    await expectCancelDuringPolling("replicate", "replicate/wan", { prompt: "a paper boat" }, isPoll);
  });

  it("never fetches a video link to another local address", async () => {
    const { all } = await start("replicate", (request, res) => {
      if (request.method !== "POST") return false;
      const get = `http://${request.headers.host}/v1/predictions/p1`;
      sendJson(res, 201, {
        id: "p1",
        status: "succeeded",
        output: "http://127.0.0.2:9/out.mp4",
        error: null,
        urls: { get },
      });
      return true;
    });
    const error = await failureOf(runModelForTest(all["replicate/wan"]!, { prompt: "a paper boat" }));
    expect(error.message).toBe(
      "The provider replicate gave a result link Atelier does not fetch (not http(s), or a local or private address).",
    );
    expect(lines(server.current!.requests)).toEqual(["POST /v1/predictions"]);
  });

  it("never fetches an image link to another local address (127.0.0.2)", async () => {
    await withServerElsewhere(async (origin, asked) => {
      const { state, all } = await start("replicate", undefined, { resultOrigin: origin });
      const error = await failureOf(runModelForTest(all["replicate/flux"]!, { prompt: "a red fox" }));
      expect(error.message).toBe(REFUSED_LINK("replicate"));
      expect(lines(state.requests)).toEqual(["POST /v1/models/black-forest-labs/flux-schnell/predictions"]);
      expect(asked).toEqual([]);
    });
  });

  it("an image prediction that failed within the wait fails the run with Replicate's error, the provider still in service", async () => {
    const error = await expectJobFailure(
      "replicate",
      "replicate/flux",
      `The provider replicate could not make it: ${HOST_REPLICATE_FAILURE}`,
    );
    expect(error).toMatchObject({ transient: false });
  });

  it("an image prediction still running after the wait fails the run, pointing at the native kind, the provider still in service", async () => {
    for (const status of ["starting", "processing"]) {
      const { all } = await start("replicate", (request, res) => {
        if (request.method !== "POST") return false;
        sendJson(res, 201, {
          id: "p1",
          status,
          output: null,
          error: null,
          urls: { get: `http://${request.headers.host}/v1/predictions/p1` },
        });
        return true;
      });
      const error = await failureOf(runModelForTest(all["replicate/flux"]!, { prompt: "a red fox" }));
      expect(error.message).toBe(
        'The provider replicate could not make it: the model did not finish within Replicate\'s synchronous wait (Prefer: wait, at most 60 s); for long-running models use the native "replicate" kind, which polls.',
      );
      expect(all["replicate/flux"]!.unavailableReason!()).toBeNull();
      await server.current!.close();
    }
  });
});
