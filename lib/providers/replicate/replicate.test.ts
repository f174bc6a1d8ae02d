// The Replicate kind through the real `replicate` client against a local Replicate written from
// its public API reference (replicate-fake.ts): the synchronous answer (Prefer: wait), a queued
// prediction followed to the end, refusals, outages, timeouts, cancel before and after submission,
// and image, video and audio outputs fetched from another origin and measured as real media;
// file inputs inline (small) or through the Files API (large, before the run's cancel point),
// refused, failing or canceled there; and, through the real engine and store, a cancel during an
// upload that cancels the run.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import pino from "pino";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { registerRemoteModels } from "../../core/catalog/catalog";
import { readBalance } from "../../core/credits/credits";
import { createImageFile } from "../../core/files/files";
import { cancelGeneration, createGeneration, getGeneration } from "../../core/runs/generations";
import { createWorkspace } from "../../core/workspaces/workspaces";
import { startEngine, type Engine } from "../../engine/engine";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { ModelError, type AudioOutput, type ImageOutput, type VideoOutput } from "../../core/catalog/model-definition";
import { fakePng } from "../testing/fake-media";
import { providerKind } from "../kinds";
import { convertOpenApiInput } from "../common/openapi-schema";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "../common/remote-model";
import { FAKE_REPLICATE_MODELS, startReplicateFake, type ReplicateFake } from "./testing/replicate-fake";
import { INLINE_FILE_MAX_BYTES } from "../common/replicate-fal-shared";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { failureOf } from "../testing/test-failures";
import { eventually, startTestServer } from "../testing/test-server";

const FAST = { firstPollMs: 10, maxPollMs: 30 };

function schemaOf(index: number): Record<string, unknown> {
  const doc = FAKE_REPLICATE_MODELS[index]!.openapiSchema as {
    components: { schemas: { Input: Record<string, unknown> } };
  };
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

function models(
  fake: ReplicateFake,
  extra: Record<string, unknown> = {},
  poll: Record<string, number> = FAST,
): RemoteModelDefinition[] {
  const [config] = parseProvidersFile(providersFile(fake, extra), { REPLICATE_API_TOKEN: fake.token });
  const adapter = providerKind("replicate").createAdapter(config!);
  return config!.entries.map((entry) => remoteModelDefinition(config!, entry, adapter, poll));
}

/** A real PNG of noise (it does not compress): about width × height × 3 bytes. */
function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const FILE_ID = "file_aaaaaaaaaaaaaaaaaaaaaaaa";

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
    const created = fake.nextPrediction().then((p) => ((pastCancelPoint = [...tools.uncancelableReasons]), p));
    const outputs = (await runModelForTest(
      flux!,
      { prompt: "a red fox", num_outputs: 2, seed: 7 },
      tools,
    )) as ImageOutput[];

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
    expect(prediction.input).toEqual({
      prompt: "waves",
      start_image: `data:image/png;base64,${frame.toString("base64")}`,
      duration: 5,
      fps: 24,
    });
    await eventually(() => fake!.requests.filter((r) => r.method === "GET").length >= 2);
    fake.start(prediction.id);
    fake.step(prediction.id, 3, 12);
    await eventually(() => tools.progress.includes(0.25));
    fake.step(prediction.id, 9, 12);
    await eventually(() => tools.progress.includes(0.75));
    await fake.succeed(prediction.id);

    const [video] = (await run) as VideoOutput[];
    // Progress came from the prediction's logs (tqdm bars), in order; the fake's last bar is 100 %.
    expect([...new Set(tools.progress)]).toEqual(expect.arrayContaining([0.25, 0.75]));
    expect([...new Set(tools.progress)].slice(0, 2)).toEqual([0.25, 0.75]);
    expect([...new Set(tools.progress)].slice(2).every((p) => p === 1)).toBe(true);
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 64, height: 48 });
    expect(video!.duration).toBeCloseTo(1, 1);
    expect(video!.poster).toMatchObject({ content_type: "image/jpeg", width: 64, height: 48 });
    expect(apiRequests(fake)[0]).toBe("POST /v1/predictions");
    expect(
      apiRequests(fake)
        .slice(1)
        .every((r) => r === `GET /v1/predictions/${prediction.id}`),
    ).toBe(true);
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
    expect(error.message).toBe(
      "The provider rep failed the prediction: NSFW content detected. Try running it again, or try a different prompt.",
    );
    expect(flux!.unavailableReason!()).toBeNull();

    fake.failNext(422, { title: "Input validation failed", status: 422, detail: "- input.seed: Expected integer" });
    const invalid = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(invalid.message).toBe("The provider rep refused the prediction: - input.seed: Expected integer");
    expect(flux!.unavailableReason!()).toBeNull();
  });

  it("never fetches a result link to another local address, nor follows a redirect there (guardedFetch)", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [flux] = models(fake, { wait_seconds: 0 });
    // Listening on 127.0.0.2 itself, so that a fetch there would arrive (and the test could fail).
    const reached: string[] = [];
    const elsewhere = createServer(
      (req, res) => (reached.push(req.url ?? ""), res.writeHead(200, { "content-type": "image/png" }).end("secret")),
    );
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.2", resolve));
    const other = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}/secret.png`;
    try {
      const direct = runModelForTest(flux!, { prompt: "a fox" });
      const first = await fake.nextPrediction();
      Object.assign(first, { status: "succeeded", output: [other], completed_at: new Date().toISOString() });
      expect((await failureOf(direct)).message).toBe(
        "The provider rep gave a result link Atelier does not fetch (a local or private address).",
      );

      // The provider's own host answers with a redirect to that address: the hop is checked too.
      const redirect = await startTestServer((_req, res) => {
        res.writeHead(302, { location: other }).end();
      });
      try {
        const hop = runModelForTest(flux!, { prompt: "a fox" });
        const second = await fake.nextPrediction();
        Object.assign(second, {
          status: "succeeded",
          output: [`${redirect.url}/out.png`],
          completed_at: new Date().toISOString(),
        });
        expect((await failureOf(hop)).message).toBe(
          "The provider rep gave a result link Atelier does not fetch (a local or private address).",
        );
      } finally {
        await redirect.close();
      }
      expect(reached).toEqual([]);
      expect(flux!.unavailableReason!()).toBeNull();
    } finally {
      elsewhere.closeAllConnections();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
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
    expect((await failureOf(aborted)).message).toBe(
      "The provider rep gave the prediction up before it started (its deadline passed).",
    );
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
    expect(refused.message).toBe(
      "The provider rep refused this server's credentials (HTTP 401); the operators must check its API key.",
    );
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

  it("a result link that answers 401 (an expired signed URL) fails the run only: the key was not refused", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [flux] = models(fake, { wait_seconds: 0 });
    const storage = await startTestServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ detail: "signature expired" }));
    });
    try {
      const run = runModelForTest(flux!, { prompt: "a fox" });
      const prediction = await fake.nextPrediction();
      Object.assign(prediction, {
        status: "succeeded",
        output: [`${storage.url}/out.png`],
        completed_at: new Date().toISOString(),
      });
      expect((await failureOf(run)).message).toBe(
        "The provider rep refused to hand over a result it made: signature expired",
      );
      expect(flux!.unavailableReason!()).toBeNull();
      // The storage host is not the API's origin: the token stayed home.
      expect(storage.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it("a provider without api_key_env is refused when the file is read, naming the field", async () => {
    fake = await startReplicateFake();
    const file = JSON.parse(providersFile(fake)) as { providers: Array<Record<string, unknown>> };
    delete file.providers[0]!.api_key_env;
    expect(() => parseProvidersFile(JSON.stringify(file), {})).toThrow(
      "providers[0].api_key_env is required: the name of the environment variable that holds the provider's key, such as REPLICATE_API_TOKEN.",
    );
    file.providers[0]!.api_key_env = "not a name";
    expect(() => parseProvidersFile(JSON.stringify(file), {})).toThrow(
      /providers\[0\]\.api_key_env must be the name of an environment variable/,
    );
  });

  it("bills once submitted (cancel answers 409); a prediction given up is canceled at Replicate", async () => {
    fake = await startReplicateFake();
    fake.mode = "manual";
    const [flux] = models(fake, { wait_seconds: 0 }, { ...FAST, maxWaitMs: 150 });
    expect(
      providerKind("replicate").createAdapter(parseProvidersFile(providersFile(fake), { REPLICATE_API_TOKEN: "x" })[0]!)
        .billsOnSubmit,
    ).toBe(true);
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

  it("uploads a file input above 256 KB through the Files API and sends its urls.get; one at the threshold stays a data URI", async () => {
    fake = await startReplicateFake();
    const [, clip] = models(fake);

    const atThreshold = randomBytes(INLINE_FILE_MAX_BYTES);
    await runModelForTest(
      clip!,
      { prompt: "waves", start_image: FILE_ID },
      testRunTools({ files: { [FILE_ID]: { data: atThreshold, contentType: "image/png" } } }),
    );
    expect(apiRequests(fake)).toEqual(["POST /v1/predictions"]);
    const inline = [...fake.predictions.values()][0]!;
    expect(inline.input.start_image).toBe(`data:image/png;base64,${atThreshold.toString("base64")}`);
    expect(inline.inputFiles.start_image).toMatchObject({ via: "inline", contentType: "image/png" });

    fake.requests.length = 0;
    const large = await noisePng(450, 450);
    expect(large.length).toBeGreaterThan(2 * INLINE_FILE_MAX_BYTES);
    const created = fake.nextPrediction();
    const tools = testRunTools({ files: { [FILE_ID]: { data: large, contentType: "image/png" } } });
    // The upload bills nothing: it is done before the run passes its cancel point.
    const atCancelPoint: string[][] = [];
    tools.markUncancelable = async (reason) => {
      atCancelPoint.push(apiRequests(fake!));
      tools.uncancelableReasons.push(reason);
    };
    const [video] = (await runModelForTest(clip!, { prompt: "waves", start_image: FILE_ID }, tools)) as VideoOutput[];
    const prediction = await created;

    expect(atCancelPoint).toEqual([["POST /v1/files"]]);
    expect(apiRequests(fake)).toEqual(["POST /v1/files", "POST /v1/predictions"]);
    const [upload, create] = fake.requests;
    expect(upload!.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(upload!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const [file, ...others] = [...fake.files.values()];
    expect(others).toEqual([]);
    expect(file).toMatchObject({ name: "start_image.png", contentType: "image/png", metadata: {} });
    expect(file!.data.equals(large)).toBe(true);
    // The prediction names the file by its urls.get, and the model read the very bytes back.
    expect(JSON.parse(create!.body).input.start_image).toBe(`${fake.url}/files/${file!.id}`);
    expect(prediction.inputFiles.start_image!.via).toBe("upload");
    expect(prediction.inputFiles.start_image!.data.equals(large)).toBe(true);
    expect(await sharp(prediction.inputFiles.start_image!.data).metadata()).toMatchObject({
      format: "png",
      width: 450,
      height: 450,
    });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4" });
  });

  it("fails the run when the upload is refused (a 4xx: the provider's words, stays in service) or fails (a 5xx: out of service); no prediction is made", async () => {
    fake = await startReplicateFake();
    fake.maxFileBytes = 300_000;
    const large = await noisePng(450, 450);
    const files = { [FILE_ID]: { data: large, contentType: "image/png" } };
    const [, clip] = models(fake);
    const refused = await failureOf(
      runModelForTest(clip!, { prompt: "waves", start_image: FILE_ID }, testRunTools({ files })),
    );
    expect(refused).toBeInstanceOf(ModelError);
    expect(refused.message).toBe(
      "The provider rep refused the file input start_image: The file is larger than the 300000 bytes a file may have.",
    );
    expect(clip!.unavailableReason!()).toBeNull();

    fake.maxFileBytes = 100 * 1024 * 1024;
    fake.failNext(503, { title: "Service Unavailable", status: 503, detail: "File storage is unavailable" });
    const failed = await failureOf(
      runModelForTest(clip!, { prompt: "waves", start_image: FILE_ID }, testRunTools({ files })),
    );
    expect(failed.message).toBe("The provider rep failed (HTTP 503: File storage is unavailable). Try again later.");
    expect(clip!.unavailableReason!()?.message).toMatch(/^its provider rep is failing \(HTTP 503, at /);
    expect(apiRequests(fake)).toEqual(["POST /v1/files", "POST /v1/files"]);
    expect(fake.predictions.size).toBe(0);
  });

  it("gives an upload up after timeout_ms, and aborts it when the run is canceled meanwhile", async () => {
    fake = await startReplicateFake();
    const files = { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } };
    fake.hangNext();
    const [, slow] = models(fake, { timeout_ms: 300 });
    expect(
      (await failureOf(runModelForTest(slow!, { prompt: "waves", start_image: FILE_ID }, testRunTools({ files }))))
        .message,
    ).toBe("The provider rep did not answer within 0.3 s. Try again later.");

    // A limit far off: only the run's own signal can end this upload.
    fake.hangNext();
    const [, clip] = models(fake, { timeout_ms: 120_000 });
    const controller = new AbortController();
    const tools = testRunTools({ files, signal: controller.signal });
    const run = runModelForTest(clip!, { prompt: "waves", start_image: FILE_ID }, tools);
    await eventually(() => fake!.requests.length === 2);
    controller.abort(new Error("run canceled"));
    await expect(run).rejects.toThrow("run canceled");
    // Still cancelable when it was canceled: the upload comes before the cancel point.
    expect(tools.uncancelableReasons).toEqual([]);
    expect(apiRequests(fake)).toEqual(["POST /v1/files", "POST /v1/files"]);
    expect(fake.predictions.size).toBe(0);
    expect(clip!.unavailableReason!()).toBeNull();
  });

  it("creates no prediction when the run is canceled between its upload and its cancel point", async () => {
    fake = await startReplicateFake();
    const [, clip] = models(fake);
    const tools = testRunTools({ files: { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } } });
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    await expect(runModelForTest(clip!, { prompt: "waves", start_image: FILE_ID }, tools)).rejects.toThrow(
      "cancel point",
    );
    expect(apiRequests(fake)).toEqual(["POST /v1/files"]);
    expect(fake.predictions.size).toBe(0);
  });
});

// Through the real engine, store and cancel verb: what the person sees when they cancel a run
// whose large file input is still on its way to Replicate.
describe(`replicate provider: cancel during an upload, through the engine (${testDialect()})`, () => {
  let t: TestStore | null = null;
  let engine: Engine | null = null;
  afterEach(async () => {
    // The fake first: a run it still holds ends when its connections close, so the engine can stop.
    await fake?.close();
    fake = null;
    await engine?.stop();
    engine = null;
    await t?.cleanup();
    t = null;
  });

  it("cancels the run (not 409, not failed): the hold is released, nothing is charged, and no prediction is created", async () => {
    fake = await startReplicateFake();
    t = await openTestStore();
    const db = t.store.db;
    // A limit far off: only the run's cancel can end the upload.
    const [, clip] = models(fake, { timeout_ms: 120_000 });
    registerRemoteModels([clip!]);
    const workspace = await createWorkspace({ db }, { name: "replicate upload cancel", creditMicros: 1_000_000 });
    const ctx = testCtx(t, workspace.id);
    const file = await createImageFile(ctx, { data: await noisePng(450, 450), filename: "frame.png" });
    const { generation: created } = await createGeneration(ctx, {
      model: clip!.id,
      input: { prompt: "waves", start_image: file.id },
    });
    expect(await readBalance(db, workspace.id)).toMatchObject({ heldMicros: 200_000, chargedMicros: 0 });

    fake.hangNext();
    engine = startEngine({
      db,
      dialect: t.store.dialect,
      services: ctx.services,
      logger: pino({ level: "silent" }),
      concurrency: 1,
      leaseMs: 1_500,
      idlePollMs: 25,
    });
    await eventually(() => apiRequests(fake!).includes("POST /v1/files"));
    const { generation: canceled } = await cancelGeneration(ctx, { id: created.id });
    expect(canceled.status).toBe("canceled");

    // The worker lets the run go (its upload is aborted) and never creates the prediction.
    await engine.stop();
    engine = null;
    expect((await getGeneration(ctx, { id: created.id })).generation).toMatchObject({
      status: "canceled",
      usage: { cost_usd: null },
    });
    expect(await readBalance(db, workspace.id)).toMatchObject({
      availableMicros: 1_000_000,
      heldMicros: 0,
      chargedMicros: 0,
    });
    expect(apiRequests(fake)).toEqual(["POST /v1/files"]);
    expect(fake.predictions.size).toBe(0);
  });
});
