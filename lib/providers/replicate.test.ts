// The Replicate kind through the real `replicate` client against a local Replicate written from
// its public API reference (replicate-fake.ts): the synchronous answer (Prefer: wait), a queued
// prediction followed to the end, refusals, outages, timeouts, cancel before and after submission,
// and image, video and audio outputs fetched from another origin and measured as real media.
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../models/test-tools";
import { ModelError, type AudioOutput, type ImageOutput, type VideoOutput } from "../models/types";
import { fakePng } from "./fake-media";
import { providerKind } from "./kinds";
import { convertOpenApiInput } from "./openapi-schema";
import { parseProvidersFile } from "./providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "./remote-model";
import { FAKE_REPLICATE_MODELS, startReplicateFake, type ReplicateFake } from "./replicate-fake";
import { failureOf } from "./test-failures";
import { eventually, startTestServer } from "./test-server";

const FAST = { firstPollMs: 10, maxPollMs: 30 };

function schemaOf(index: number): Record<string, unknown> {
  const doc = FAKE_REPLICATE_MODELS[index]!.openapiSchema as { components: { schemas: { Input: Record<string, unknown> } } };
  return convertOpenApiInput(doc.components.schemas.Input, doc).schema;
}

function providersFile(fake: ReplicateFake, extra: Record<string, unknown> = {}): string {
  const [flux, clip, voice] = FAKE_REPLICATE_MODELS;
  return JSON.stringify({
    providers: [
      {
        id: "rep",
        kind: "replicate",
        base_url: fake.url,
        api_key_env: "REPLICATE_API_TOKEN",
        timeout_ms: 5_000,
        ...extra,
        entries: [
          {
            id: "bfl/flux-schnell",
            upstream_model: `${flux!.owner}/${flux!.name}`,
            name: "FLUX.1 [schnell]",
            description: flux!.description,
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: schemaOf(0),
            pricing: { unit: "image", usd: "0.003", drivers: ["num_outputs"] },
          },
          {
            id: "acme/clipmaker",
            upstream_model: `${clip!.owner}/${clip!.name}:${clip!.versionId}`,
            name: "Clipmaker",
            description: clip!.description,
            modality: "video",
            tasks: ["text-to-video", "image-to-video"],
            input_schema: schemaOf(1),
            pricing: { unit: "video", usd: "0.20" },
          },
          {
            id: "acme/speaker",
            upstream_model: `${voice!.owner}/${voice!.name}:${voice!.versionId}`,
            name: "Speaker",
            description: voice!.description,
            modality: "audio",
            tasks: ["text-to-speech"],
            input_schema: schemaOf(2),
            pricing: { unit: "1,000 characters", usd: "0.01" },
          },
        ],
      },
    ],
  });
}

function models(fake: ReplicateFake, extra: Record<string, unknown> = {}, poll: Record<string, number> = FAST): RemoteModelDefinition[] {
  const [config] = parseProvidersFile(providersFile(fake, extra), { REPLICATE_API_TOKEN: fake.token });
  const adapter = providerKind("replicate").createAdapter(config!);
  return config!.entries.map((entry) => remoteModelDefinition(config!, entry, adapter, poll));
}

const apiRequests = (fake: ReplicateFake) => fake.requests.map((r) => `${r.method} ${r.path}`);

let fake: ReplicateFake | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

describe("replicate provider", () => {
  it("answers a fast model in one call (Prefer: wait), past the cancel point first, with the full input and real images", async () => {
    fake = await startReplicateFake();
    const [flux] = models(fake);
    const tools = testRunTools();
    let pastCancelPoint: string[] | null = null;
    const created = fake.nextPrediction().then((p) => (pastCancelPoint = [...tools.uncancelableReasons], p));
    const outputs = (await runModelForTest(flux!, { prompt: "a red fox", num_outputs: 2, seed: 7 }, tools)) as ImageOutput[];

    expect(pastCancelPoint).toEqual(["provider"]);
    expect(apiRequests(fake)).toEqual(["POST /v1/models/black-forest-labs/flux-schnell/predictions"]);
    const [create] = fake.requests;
    expect(create!.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(create!.headers.prefer).toBe("wait=4");
    expect(JSON.parse(create!.body)).toEqual({
      input: {
        prompt: "a red fox",
        aspect_ratio: "1:1",
        num_outputs: 2,
        seed: 7,
        output_format: "webp",
        output_quality: 80,
        disable_safety_checker: false,
        go_fast: true,
        megapixels: "1",
        num_inference_steps: 4,
      },
    });
    expect((await created).status).toBe("succeeded");

    expect(outputs).toHaveLength(2);
    for (const [i, output] of outputs.entries()) {
      expect(output).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
      expect(output.data.equals(await fakePng(64, 48, `a red fox#${i}`))).toBe(true);
      expect((await sharp(output.data).stats()).channels.some((c) => c.stdev > 0)).toBe(true);
    }
    // The outputs came from the media host, without the key.
    expect(fake.media.requests.map((r) => r.path)).toHaveLength(2);
    expect(fake.media.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("follows a queued prediction (starting → processing → succeeded) and sends a file input as a data URI", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [, clip] = models(fake, { wait_seconds: 0 });
    const frame = await fakePng(32, 24, "first frame");
    const tools = testRunTools({ files: { file_aaaaaaaaaaaaaaaaaaaaaaaa: { data: frame, contentType: "image/png" } } });
    const run = runModelForTest(clip!, { prompt: "waves", start_image: "file_aaaaaaaaaaaaaaaaaaaaaaaa" }, tools);

    const prediction = await fake.nextPrediction();
    expect(prediction.preferWait).toBeNull();
    expect(prediction.version).toBe(FAKE_REPLICATE_MODELS[1]!.versionId);
    expect(prediction.input).toEqual({ prompt: "waves", start_image: `data:image/png;base64,${frame.toString("base64")}`, duration: 5, fps: 24 });
    await eventually(() => fake!.requests.filter((r) => r.method === "GET").length >= 2);
    fake.start(prediction.id);
    const polls = fake.requests.length;
    await eventually(() => fake!.requests.length >= polls + 2);
    await fake.succeed(prediction.id);

    const [video] = (await run) as VideoOutput[];
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 64, height: 48 });
    expect(video!.duration).toBeCloseTo(1, 1);
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 64, height: 48 });
    expect(apiRequests(fake)[0]).toBe("POST /v1/predictions");
    expect(apiRequests(fake).slice(1).every((r) => r === `GET /v1/predictions/${prediction.id}`)).toBe(true);
  });

  it("stores a spoken answer as audio", async () => {
    fake = await startReplicateFake();
    const [, , speaker] = models(fake);
    const [audio] = (await runModelForTest(speaker!, { text: "Hello there" })) as AudioOutput[];
    expect(audio).toMatchObject({ type: "audio", content_type: "audio/wav" });
    expect(audio!.duration).toBeCloseTo(1, 1);
    expect(JSON.parse(fake.requests[0]!.body).input).toEqual({ text: "Hello there", voice: "af_bella", speed: 1 });
  });

  it("fails the run with the provider's words when the prediction fails (a refusal), and stays in service", async () => {
    fake = await startReplicateFake();
    const [flux] = models(fake);
    const error = await failureOf(runModelForTest(flux!, { prompt: "please refuse this" }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("The provider rep failed the prediction: NSFW content detected. Try running it again, or try a different prompt.");
    expect(flux!.unavailableReason!()).toBeNull();

    fake.failNext(422, { title: "Input validation failed", status: 422, detail: "- input.seed: Expected integer" });
    const invalid = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(invalid.message).toBe("The provider rep refused the prediction: - input.seed: Expected integer");
    expect(flux!.unavailableReason!()).toBeNull();
  });

  it("fails a queued prediction that fails or is aborted at Replicate (never polls forever)", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [flux] = models(fake, { wait_seconds: 0 });
    const failing = runModelForTest(flux!, { prompt: "a fox" });
    const first = await fake.nextPrediction();
    fake.start(first.id);
    fake.fail(first.id, "CUDA out of memory");
    expect((await failureOf(failing)).message).toBe("The provider rep failed the prediction: CUDA out of memory");

    const aborted = runModelForTest(flux!, { prompt: "a fox" });
    fake.abort((await fake.nextPrediction()).id);
    expect((await failureOf(aborted)).message).toBe("The provider rep gave the prediction up before it started (its deadline passed).");
  });

  it("takes the provider out of service on a 5xx, a refused key or no connection; the key never shows", async () => {
    fake = await startReplicateFake();
    const [flux] = models(fake);
    fake.failNext(503, { title: "Service Unavailable", status: 503, detail: "Replicate is under maintenance" });
    const error = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("The provider rep failed (HTTP 503: Replicate is under maintenance). Try again later.");
    expect(flux!.unavailableReason!()?.message).toMatch(/^its provider rep is failing \(HTTP 503, at /);

    const [other] = models(fake);
    fake.failNext(401, { title: "Unauthenticated", status: 401, detail: `Invalid token ${fake.token}` });
    const refused = await failureOf(runModelForTest(other!, { prompt: "a fox" }));
    expect(refused.message).toBe("The provider rep refused this server's credentials (HTTP 401); the operators must check its API key.");
    expect(refused.message).not.toContain(fake.token);

    const closed = await startTestServer(() => undefined);
    await closed.close();
    const [gone] = models({ ...fake, url: `${closed.url}/v1` });
    const unreachable = await failureOf(runModelForTest(gone!, { prompt: "a fox" }));
    expect(unreachable.message).toBe("The provider rep could not be reached (ECONNREFUSED). Try again later.");
    expect(gone!.unavailableReason!()?.message).toContain("unreachable (ECONNREFUSED)");
  });

  it("gives up a call after timeout_ms and marks the provider down", async () => {
    fake = await startReplicateFake();
    fake.hangNext(6);
    const [flux] = models(fake, { timeout_ms: 300 });
    const error = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(error.message).toBe("The provider rep did not answer within 0.3 s. Try again later.");
    expect(fake.requests).toHaveLength(1);
    expect(flux!.unavailableReason!()?.message).toContain("no answer within 0.3 s");
  });

  it("sends nothing when the run is canceled before submission", async () => {
    fake = await startReplicateFake();
    const [flux] = models(fake);
    const tools = testRunTools();
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    await expect(runModelForTest(flux!, { prompt: "a fox" }, tools)).rejects.toThrow("cancel point");
    expect(fake.requests).toHaveLength(0);
  });

  it("bills once submitted (cancel answers 409); a prediction given up is canceled at Replicate", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [flux] = models(fake, { wait_seconds: 0 }, { ...FAST, maxWaitMs: 150 });
    expect(providerKind("replicate").createAdapter(parseProvidersFile(providersFile(fake), { REPLICATE_API_TOKEN: "x" })[0]!).billsOnSubmit).toBe(true);
    const tools = testRunTools();
    const run = runModelForTest(flux!, { prompt: "a fox" }, tools);
    const prediction = await fake.nextPrediction();
    expect(tools.uncancelableReasons).toEqual(["provider"]);
    fake.start(prediction.id);
    const error = await failureOf(run);
    expect(error.message).toBe("The provider rep did not finish within 0.1 s.");
    expect(apiRequests(fake).at(-1)).toBe(`POST /v1/predictions/${prediction.id}/cancel`);
    expect(prediction.status).toBe("canceled");
  });
});
