// The fal kind through the real `@fal-ai/client` (its requests redirected by requestMiddleware)
// against a local fal written from its public queue API reference (fal-fake.ts): a queued request
// followed to the end, the synchronous host, refusals (422 content_policy_violation), outages
// (no client retries: one request each), timeouts, cancel before and after submission, and
// image, video and audio outputs fetched from another origin and measured as real media; file
// inputs inline (small) or through fal storage (large; multipart above 90 MB; before the run's
// cancel point), refused, failing or canceled there.
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { ModelError, type AudioOutput, type ImageOutput, type VideoOutput } from "../../core/catalog/model-definition";
import { fakePng } from "../testing/fake-media";
import { FAKE_FAL_ENDPOINTS, startFalFake, type FalFake } from "./testing/fal-fake";
import { providerKind } from "../kinds";
import { convertOpenApiInput } from "../common/openapi-schema";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "../common/remote-model";
import { INLINE_FILE_MAX_BYTES } from "../common/replicate-fal-shared";
import { failureOf } from "../testing/test-failures";
import { eventually, startTestServer } from "../testing/test-server";

const FAST = { firstPollMs: 10, maxPollMs: 30 };
const FILE_ID = "file_aaaaaaaaaaaaaaaaaaaaaaaa";

function converted(index: number) {
  const doc = FAKE_FAL_ENDPOINTS[index]!.openapi as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const input = Object.entries(doc.components.schemas).find(([name]) => name.endsWith("Input"))![1];
  return convertOpenApiInput(input, doc);
}

function providersFile(fake: FalFake, extra: Record<string, unknown> = {}): string {
  const video = converted(1);
  return JSON.stringify({
    providers: [
      {
        id: "fal",
        kind: "fal",
        base_url: fake.url,
        run_base_url: fake.runUrl,
        rest_base_url: fake.restUrl,
        api_key_env: "FAL_KEY",
        timeout_ms: 5_000,
        ...extra,
        entries: [
          {
            id: "bfl/flux-dev",
            upstream_model: "fal-ai/flux/dev",
            name: "FLUX.1 [dev]",
            description: "FLUX.1 [dev] on fal.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: converted(0).schema,
            pricing: { unit: "image", usd: "0.025", drivers: ["num_images"] },
          },
          {
            id: "kling/v2-image-to-video",
            upstream_model: "fal-ai/kling-video/v2/image-to-video",
            name: "Kling 2 image to video",
            description: "A clip from a still.",
            modality: "video",
            tasks: ["image-to-video"],
            input_schema: video.schema,
            file_list_inputs: video.fileListFields,
            pricing: { unit: "video", usd: "0.25" },
          },
          {
            id: "acme/fal-speech",
            upstream_model: "fal-ai/speech/tts",
            name: "Speech",
            description: "Speaks text.",
            modality: "audio",
            tasks: ["text-to-speech"],
            input_schema: converted(2).schema,
            output_fields: ["audio"],
            pricing: { unit: "request", usd: "0.01" },
          },
        ],
      },
    ],
  });
}

function setup(fake: FalFake, extra: Record<string, unknown> = {}, poll: Record<string, number> = FAST) {
  const [config] = parseProvidersFile(providersFile(fake, extra), { FAL_KEY: fake.key });
  const adapter = providerKind("fal").createAdapter(config!);
  const models = config!.entries.map((entry) => remoteModelDefinition(config!, entry, adapter, poll));
  return { config: config!, adapter, models };
}

function models(
  fake: FalFake,
  extra: Record<string, unknown> = {},
  poll: Record<string, number> = FAST,
): RemoteModelDefinition[] {
  return setup(fake, extra, poll).models;
}

/** A real PNG of noise (it does not compress): about width × height × 3 bytes. */
function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const SMALL_ID = "file_bbbbbbbbbbbbbbbbbbbbbbbb";

const paths = (fake: FalFake) => fake.requests.map((r) => `${r.method} ${r.path}`);

let fake: FalFake | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/**
 * Runs `clip` on a large PNG (uploaded to fal storage), cancels the run once its upload has begun
 * (the test made the upload hang), and sees the run end with the cancel: the run's tools.
 */
async function cancelDuringUpload(clip: RemoteModelDefinition) {
  const controller = new AbortController();
  const tools = testRunTools({
    signal: controller.signal,
    files: { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } },
  });
  const run = runModelForTest(clip, { prompt: "waves", image_url: FILE_ID }, tools);
  await eventually(() => fake!.media.requests.some((r) => r.method === "PUT"));
  controller.abort(new Error("run canceled"));
  await expect(run).rejects.toThrow("run canceled");
  return tools;
}

describe("fal provider", () => {
  it("queues a request, follows its status (sub-path dropped) until COMPLETED, and fetches the images without the key", async () => {
    fake = await startFalFake();
    fake.mode = "manual";
    const [flux] = models(fake);
    const tools = testRunTools();
    const run = runModelForTest(
      flux!,
      { prompt: "a red fox", num_images: 2, image_size: { width: 64, height: 48 } },
      tools,
    );
    const request = await fake.nextRequest();
    expect(request.input).toEqual({
      prompt: "a red fox",
      image_size: { width: 64, height: 48 },
      num_inference_steps: 28,
      guidance_scale: 3.5,
      sync_mode: false,
      num_images: 2,
      enable_safety_checker: true,
      output_format: "jpeg",
      acceleration: "none",
    });
    await eventually(() => fake!.requests.length >= 3);
    fake.start(request.id);
    const seen = fake.requests.length;
    await eventually(() => fake!.requests.length >= seen + 2);
    fake.step(request.id, 14, 28);
    await eventually(() => tools.progress.includes(0.5));
    await fake.complete(request.id);
    const outputs = (await run) as ImageOutput[];
    // Progress came from the request's logs while IN_PROGRESS; nothing while queued.
    expect([...new Set(tools.progress)]).toEqual([0.5]);

    // Cancelable while queued (fal drops it unbilled); once fal started it, past the cancel point.
    expect(tools.uncancelableReasons).toEqual(["provider"]);
    const statusPath = `GET /fal-ai/flux/requests/${request.id}/status?logs=1`;
    expect(paths(fake)[0]).toBe("POST /fal-ai/flux/dev");
    expect(
      paths(fake)
        .slice(1, -1)
        .every((p) => p === statusPath),
    ).toBe(true);
    expect(paths(fake).at(-1)).toBe(`GET /fal-ai/flux/requests/${request.id}`);
    expect(fake.requests.every((r) => r.headers.authorization === `Key ${fake!.key}`)).toBe(true);
    expect(outputs).toHaveLength(2);
    for (const [i, output] of outputs.entries()) {
      expect(output).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
      expect(output.data.equals(await fakePng(64, 48, `a red fox#${i}`))).toBe(true);
      expect((await sharp(output.data).stats()).channels.some((c) => c.stdev > 0)).toBe(true);
    }
    expect(fake.media.requests).toHaveLength(2);
    expect(fake.media.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("says when fal has started a request (it bills from then on), so the engine can pass the cancel point then", async () => {
    fake = await startFalFake();
    fake.mode = "manual";
    const { adapter, config } = setup(fake);
    const entry = config.entries[0]!;
    const signal = new AbortController().signal;
    const submitted = await adapter.submit(
      {
        upstreamModel: entry.upstreamModel,
        input: { prompt: "x" },
        entry,
        readFile: async () => ({ data: Buffer.alloc(0), contentType: "" }),
      },
      signal,
    );
    expect(submitted).toMatchObject({ kind: "pending", started: false });
    const job = { id: (submitted as { jobId: string }).jobId, entry };
    expect(await adapter.poll(job, signal)).toMatchObject({ kind: "pending", started: false });
    fake.start([...fake.queue.keys()][0]!);
    expect(await adapter.poll(job, signal)).toMatchObject({ kind: "pending", started: true });
  });

  it("gives a request's place in fal's queue (0 = next) while it waits there, and none once fal started it", async () => {
    fake = await startFalFake();
    fake.mode = "manual";
    // One request of another fal user is ahead of each of ours.
    fake.queueAhead = 1;
    const { adapter, config } = setup(fake);
    const entry = config.entries[0]!;
    const signal = new AbortController().signal;
    const submit = async (prompt: string) => {
      const submitted = await adapter.submit(
        {
          upstreamModel: entry.upstreamModel,
          input: { prompt },
          entry,
          readFile: async () => ({ data: Buffer.alloc(0), contentType: "" }),
        },
        signal,
      );
      return { id: (submitted as { jobId: string }).jobId, entry };
    };
    const first = await submit("first");
    const job = await submit("second");
    // Ahead of the second: the other user's request and our first.
    expect(await adapter.poll(job, signal)).toMatchObject({ kind: "pending", started: false, queuePosition: 2 });
    fake.setAhead(job.id, 0);
    expect(await adapter.poll(job, signal)).toMatchObject({ kind: "pending", started: false, queuePosition: 1 });
    fake.start(first.id);
    expect(await adapter.poll(job, signal)).toMatchObject({ kind: "pending", started: false, queuePosition: 0 });
    fake.start(job.id);
    const started = await adapter.poll(job, signal);
    expect(started).toMatchObject({ kind: "pending", started: true });
    expect((started as { queuePosition?: number | null }).queuePosition ?? null).toBeNull();
  });

  it("tells the run its place in fal's queue as it moves up, and clears it once fal starts the request, before the cancel point", async () => {
    fake = await startFalFake();
    fake.mode = "manual";
    fake.queueAhead = 2;
    const [flux] = models(fake);
    const tools = testRunTools();
    const run = runModelForTest(flux!, { prompt: "a long queue" }, tools);
    const request = await fake.nextRequest();
    await eventually(() => tools.queuePositions.includes(2));
    fake.setAhead(request.id, 1);
    await eventually(() => tools.queuePositions.includes(1));
    fake.setAhead(request.id, 0);
    await eventually(() => tools.queuePositions.includes(0));
    expect(tools.uncancelableReasons).toEqual([]);
    fake.start(request.id);
    await eventually(() => tools.uncancelableReasons.length > 0);
    // Cleared in the poll that saw the start, before the run passed its cancel point.
    expect(tools.queuePositions.at(-1)).toBeNull();
    await fake.complete(request.id);
    await run;
    // Every poll tells the place (the engine sends only moves); in order, never back up.
    const told = tools.queuePositions.filter((place, i, all) => i === 0 || place !== all[i - 1]);
    expect(told).toEqual([2, 1, 0, null]);
  });

  it("runs on fal's synchronous host in mode run (billed on submit: cancel answers 409), sends file inputs as data URIs, keeps only the video", async () => {
    fake = await startFalFake();
    const [, clip] = models(fake, { mode: "run" });
    const still = await fakePng(32, 24, "still");
    const tools = testRunTools({
      files: {
        [FILE_ID]: { data: still, contentType: "image/png" },
        file_bbbbbbbbbbbbbbbbbbbbbbbb: { data: still, contentType: "image/png" },
      },
    });
    const [video, ...rest] = (await runModelForTest(
      clip!,
      { prompt: "waves", image_url: FILE_ID, image_urls: "file_bbbbbbbbbbbbbbbbbbbbbbbb" },
      tools,
    )) as VideoOutput[];

    expect(tools.uncancelableReasons).toEqual(["provider"]);
    expect(paths(fake)).toEqual(["POST /run/fal-ai/kling-video/v2/image-to-video"]);
    const uri = `data:image/png;base64,${still.toString("base64")}`;
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({
      prompt: "waves",
      image_url: uri,
      image_urls: [uri],
      duration: "5",
    });
    expect(rest).toEqual([]);
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 64, height: 48 });
    expect(video!.duration).toBeCloseTo(1, 1);
  });

  it("stores a spoken answer as audio", async () => {
    fake = await startFalFake();
    const [, , speech] = models(fake);
    const [audio] = (await runModelForTest(speech!, { text: "Hello" })) as AudioOutput[];
    expect(audio).toMatchObject({ type: "audio", content_type: "audio/wav" });
    expect(audio!.duration).toBeCloseTo(1, 1);
  });

  it("fails the run with fal's words on a content policy refusal (422), and stays in service", async () => {
    fake = await startFalFake();
    const [flux] = models(fake);
    const error = await failureOf(runModelForTest(flux!, { prompt: "please refuse" }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe(
      "The provider fal refused the request: prompt: The content could not be processed because it contained material flagged by a content checker.",
    );
    expect(flux!.unavailableReason!()).toBeNull();
  });

  it("takes the provider out of service on an infrastructure error, after one request (no client retries)", async () => {
    fake = await startFalFake();
    const [flux] = models(fake);
    fake.failNext(503, { detail: "No runners are available", error_type: "runner_unavailable" }, 1, {
      "x-fal-error-type": "runner_unavailable",
    });
    const error = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(error.message).toBe("The provider fal failed (HTTP 503: No runners are available). Try again later.");
    expect(fake.requests).toHaveLength(1);
    expect(flux!.unavailableReason!()?.message).toMatch(/^its provider fal is failing \(HTTP 503, at /);

    // A runner that fails a queued request: its result is the error.
    fake.mode = "manual";
    const [other] = models(fake);
    const run = runModelForTest(other!, { prompt: "a fox" });
    const request = await fake.nextRequest();
    fake.completeWithError(request.id, 500, { detail: "Runner crashed", error_type: "runner_server_error" });
    expect((await failureOf(run)).message).toBe("The provider fal failed (HTTP 500: Runner crashed). Try again later.");
    expect(other!.unavailableReason!()).not.toBeNull();

    const closed = await startTestServer(() => undefined);
    await closed.close();
    const [gone] = models({ ...fake, url: closed.url });
    expect((await failureOf(runModelForTest(gone!, { prompt: "a fox" }))).message).toBe(
      "The provider fal could not be reached (ECONNREFUSED). Try again later.",
    );
  });

  it("gives up a call after timeout_ms and marks the provider down", async () => {
    fake = await startFalFake();
    fake.hangNext();
    const [flux] = models(fake, { timeout_ms: 300 });
    const error = await failureOf(runModelForTest(flux!, { prompt: "a fox" }));
    expect(error.message).toBe("The provider fal did not answer within 0.3 s. Try again later.");
    expect(fake.requests).toHaveLength(1);
    expect(flux!.unavailableReason!()?.message).toContain("no answer within 0.3 s");
  });

  it("sends nothing when the run is canceled before submission", async () => {
    fake = await startFalFake();
    const [flux] = models(fake);
    const controller = new AbortController();
    controller.abort(new Error("run canceled"));
    await expect(
      runModelForTest(flux!, { prompt: "a fox" }, testRunTools({ signal: controller.signal })),
    ).rejects.toThrow("run canceled");
    expect(fake.requests).toHaveLength(0);
  });

  it("cancels a queued request at fal when the run is canceled after submission (dropped unbilled)", async () => {
    fake = await startFalFake();
    fake.mode = "manual";
    const [flux] = models(fake);
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    const run = runModelForTest(flux!, { prompt: "a fox" }, tools);
    const request = await fake.nextRequest();
    await eventually(() => fake!.requests.length >= 2);
    controller.abort(new Error("run canceled"));
    await expect(run).rejects.toThrow("run canceled");
    await eventually(() => request.canceled !== null);
    expect(request.canceled).toBe("queued");
    expect(paths(fake).at(-1)).toBe(`PUT /fal-ai/flux/requests/${request.id}/cancel`);
    expect(tools.uncancelableReasons).toEqual([]);
    expect(flux!.unavailableReason!()).toBeNull();
  });

  it("puts a file input above 256 KB in fal storage (initiate, then PUT without the key) and sends its file_url; a small one stays a data URI", async () => {
    fake = await startFalFake();
    const [, clip] = models(fake);
    const large = await noisePng(450, 450);
    expect(large.length).toBeGreaterThan(2 * INLINE_FILE_MAX_BYTES);
    const small = await fakePng(32, 24, "reference");
    const tools = testRunTools({
      files: {
        [FILE_ID]: { data: large, contentType: "image/png" },
        [SMALL_ID]: { data: small, contentType: "image/png" },
      },
    });
    const submitted = fake.nextRequest();
    const [video] = (await runModelForTest(
      clip!,
      { prompt: "waves", image_url: FILE_ID, image_urls: SMALL_ID },
      tools,
    )) as VideoOutput[];
    const request = await submitted;

    expect(paths(fake).slice(0, 2)).toEqual([
      "POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3",
      "POST /fal-ai/kling-video/v2/image-to-video",
    ]);
    const initiate = fake.requests[0]!;
    expect(initiate.headers.authorization).toBe(`Key ${fake.key}`);
    expect(JSON.parse(initiate.body)).toEqual({ content_type: "image/png", file_name: "image_url.png" });
    expect(JSON.parse(String(initiate.headers["x-fal-object-lifecycle"]))).toEqual({
      expiration_duration_seconds: 2 * 86_400,
    });
    // The bytes went to the storage host's signed URL, without the key.
    const [put, ...others] = fake.media.requests.filter((r) => r.method === "PUT");
    expect(others).toEqual([]);
    expect(put!.path).toMatch(/^\/uploads\/[0-9a-f]+$/);
    expect(put!.headers.authorization).toBeUndefined();
    expect(put!.headers["content-type"]).toBe("image/png");

    // The request names the upload by its file_url, and the model read the very bytes back.
    expect(request.input.image_url).toMatch(new RegExp(`^${fake.media.url}/files/[0-9a-f]+/image_url\\.png$`));
    expect(request.input.image_urls).toEqual([`data:image/png;base64,${small.toString("base64")}`]);
    expect(request.inputFiles.image_url!.via).toBe("upload");
    expect(request.inputFiles.image_url!.data.equals(large)).toBe(true);
    expect(await sharp(request.inputFiles.image_url!.data).metadata()).toMatchObject({
      format: "png",
      width: 450,
      height: 450,
    });
    expect(request.inputFiles["image_urls[0]"]).toMatchObject({ via: "inline", contentType: "image/png" });
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4" });
  });

  it("uploads a file above 90 MB in parts (the client's multipart form), byte-identical", async () => {
    fake = await startFalFake();
    const [, clip] = models(fake, { timeout_ms: 60_000 });
    const huge = randomBytes(91 * 1024 * 1024);
    const submitted = fake.nextRequest();
    await runModelForTest(
      clip!,
      { prompt: "waves", image_url: FILE_ID },
      testRunTools({ files: { [FILE_ID]: { data: huge, contentType: "video/mp4" } } }),
    );
    const request = await submitted;
    expect(paths(fake)[0]).toBe("POST /rest/storage/upload/initiate-multipart?storage_type=fal-cdn-v3");
    const storage = fake.media.requests
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{24}/, "T")}`);
    expect(storage).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `PUT /multipart/T/${i + 1}`),
      "POST /multipart/T/complete",
    ]);
    expect(request.inputFiles.image_url!.via).toBe("upload");
    expect(request.inputFiles.image_url!.contentType).toBe("video/mp4");
    expect(request.inputFiles.image_url!.data.equals(huge)).toBe(true);
  }, 60_000);

  it("fails the run when the upload is refused (a 4xx: fal's words, stays in service) or fails (a 5xx at storage: out of service); nothing is queued", async () => {
    fake = await startFalFake();
    const files = { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } };
    const [, clip] = models(fake);
    fake.failNext(400, { detail: "Unsupported content type" });
    const refused = await failureOf(
      runModelForTest(clip!, { prompt: "waves", image_url: FILE_ID }, testRunTools({ files })),
    );
    expect(refused).toBeInstanceOf(ModelError);
    expect(refused.message).toBe("The provider fal refused the file input image_url: Unsupported content type");
    expect(clip!.unavailableReason!()).toBeNull();

    fake.media.failNext(503, { detail: "Storage is unavailable" });
    const failed = await failureOf(
      runModelForTest(clip!, { prompt: "waves", image_url: FILE_ID }, testRunTools({ files })),
    );
    expect(failed.message).toBe("The provider fal failed (HTTP 503: Storage is unavailable). Try again later.");
    expect(clip!.unavailableReason!()?.message).toMatch(/^its provider fal is failing \(HTTP 503, at /);
    expect(paths(fake)).toEqual([
      "POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3",
      "POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3",
    ]);
    expect(fake.queue.size).toBe(0);
  });

  it("does not send a file to a local address fal's answer names, other than the provider's own host", async () => {
    fake = await startFalFake();
    const files = { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } };
    // The provider's host is "localhost": the storage answer's 127.0.0.1 is another local host.
    const [, clip] = models(fake, { base_url: fake.url.replace("127.0.0.1", "localhost") });
    const error = await failureOf(
      runModelForTest(clip!, { prompt: "waves", image_url: FILE_ID }, testRunTools({ files })),
    );
    expect(error.message).toBe(
      "The provider fal named an address to upload a file to that Atelier does not send files to (a local or private address).",
    );
    expect(fake.media.requests).toEqual([]);
    expect(fake.queue.size).toBe(0);
  });

  it("aborts an upload when the run is canceled meanwhile (the client's PUT takes no signal: ours does)", async () => {
    fake = await startFalFake();
    fake.media.hangNext();
    // A limit far off: only the run's own signal can end this upload.
    const [, clip] = models(fake, { timeout_ms: 120_000 });
    const tools = await cancelDuringUpload(clip!);
    expect(fake.queue.size).toBe(0);
    expect(tools.uncancelableReasons).toEqual([]);
    expect(clip!.unavailableReason!()).toBeNull();
  });

  it("in mode run (billed on submit) uploads before the cancel point: a cancel during the upload cancels the run, and fal runs nothing", async () => {
    fake = await startFalFake();
    fake.media.hangNext();
    const [, clip] = models(fake, { mode: "run", timeout_ms: 120_000 });
    const tools = await cancelDuringUpload(clip!);
    expect(tools.uncancelableReasons).toEqual([]);
    expect(paths(fake)).toEqual(["POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3"]);

    // Uploaded, then past the cancel point, then run: the request names the upload.
    const done = testRunTools({ files: { [FILE_ID]: { data: await noisePng(450, 450), contentType: "image/png" } } });
    const atCancelPoint: string[][] = [];
    done.markUncancelable = async (reason) => {
      atCancelPoint.push(paths(fake!));
      done.uncancelableReasons.push(reason);
    };
    fake.requests.length = 0;
    await runModelForTest(clip!, { prompt: "waves", image_url: FILE_ID }, done);
    expect(atCancelPoint).toEqual([["POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3"]]);
    expect(paths(fake)).toEqual([
      "POST /rest/storage/upload/initiate?storage_type=fal-cdn-v3",
      "POST /run/fal-ai/kling-video/v2/image-to-video",
    ]);
    expect(JSON.parse(fake.requests[1]!.body).image_url).toMatch(
      new RegExp(`^${fake.media.url}/files/[0-9a-f]+/image_url\\.png$`),
    );
  });
});
