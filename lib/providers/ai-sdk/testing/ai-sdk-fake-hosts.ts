// For tests: local fakes of five more hosts the AI SDK's packages call, each written from the
// package's own code (node_modules/@ai-sdk/<name>/dist/index.mjs: the paths, bodies and answers it
// really uses) and the providers' public API references:
//   Together AI  POST {base}/images/generations → {data: [{b64_json}]}; errors {error: {message}}
//   Fireworks    POST {base}/workflows/{model}/text_to_image → JPEG bytes (flux workflows);
//                POST {base}/workflows/{model} → {request_id}, then POST …/get_result {id} until
//                status "Ready" with result.sample, a link fetched with the key (flux kontext);
//                errors {error: {object, type, message}}
//   DeepInfra    POST {base}/inference/{model} → {images: ["data:image/png;base64,…"]}; errors
//                {detail: {error}}
//   fal          POST {base}/{endpoint} → {images: [{url, width, height, content_type}]} (images)
//                or {audio: {url}} (speech: the body has `text`); the queue host's requests
//                arrive under /queue (the adapter redirects https://queue.fal.run there):
//                POST /queue/{endpoint} → {request_id, response_url on https://queue.fal.run},
//                GET /queue/{owner}/{alias}/requests/{id} (sub-path dropped, as fal does) → 400
//                "Request is still in progress", then {video: {url}}; errors 422 {detail: [{loc,
//                msg, type}]} and {detail, error_type} with X-Fal-Error-Type; `Authorization: Key`
//   Replicate    POST {base}/models/{owner}/{name}/predictions or {base}/predictions {version,
//                input} with `Prefer: wait`: an image model's prediction comes back succeeded, a
//                video model's still starting, then GET urls.get → processing → succeeded;
//                errors RFC 7807 {title, detail, status}
// Together AI (GET {base}/models, a bare array), DeepInfra (GET {base}/openai/models) and
// Replicate (GET {base}/account) also answer what a connection check reads.
// Results are served from the fake's own origin (GET /files/{name}): real hosts use storage
// hosts, but a result link to a loopback address is fetched only from the provider's own host
// (a test may point the links elsewhere with `resultOrigin`, to see them refused).
// Every answer is real media (fake-media.ts). A fake's `mode` (ai-sdk-fake.ts) makes it refuse
// (4xx in the provider's shape), fail (5xx), refuse the key, or end its job badly ("job-fails").
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import sharp from "sharp";
import { answeredByMode, type FakeState } from "./ai-sdk-fake";
import { fakeMp3, fakeMp4, fakePng } from "../../testing/fake-media";
import { bodyOf, originOf, sendJson, type Handler, type RecordedRequest } from "../../testing/test-server";

/** What each fake says when it refuses (its provider's documented shape, words illustrative). */
export const HOST_REFUSALS = {
  togetherai: "Your prompt was flagged as potentially violating our usage policy.",
  fireworks: "The prompt was rejected by the safety filter.",
  deepinfra: "Prompt rejected: it may violate the content policy.",
  fal: "The content could not be processed because it contained material flagged by a content checker.",
  replicate: "- input.prompt: The prompt was flagged by the safety checker",
} as const;

export interface HostFakeOptions {
  key: string;
  ffmpegPath: string;
  /** Where result links point; the fake's own origin unless a test points them at another host. */
  resultOrigin?: string;
  /** Fireworks: the status a kontext job ends in instead of Ready ("Request Moderated", …). */
  jobStatus?: string;
}

// ---------------------------------------------------------------------------------------------
// Plumbing

/**
 * Result files kept by name and served at GET /files/{name} of the fake's own origin, without a
 * key (as storage hosts do); their links name `resultOrigin` instead when a test gives one.
 */
function fileStore(resultOrigin?: string) {
  const files = new Map<string, { type: string; data: Buffer }>();
  return {
    publish(request: RecordedRequest, ext: string, type: string, data: Buffer): string {
      const name = `${randomUUID()}.${ext}`;
      files.set(name, { type, data });
      return `${resultOrigin ?? originOf(request)}/files/${name}`;
    },
    /** True when the request was for a file (answered, or 404). */
    served(request: RecordedRequest, res: ServerResponse): boolean {
      const match = /^\/files\/([^/?]+)$/.exec(request.path);
      if (request.method !== "GET" || !match) return false;
      const file = files.get(match[1]!);
      if (!file) res.writeHead(404, { "content-type": "text/plain" }).end("no such file");
      else res.writeHead(200, { "content-type": file.type }).end(file.data);
      return true;
    },
  };
}

/** A size from width and height (numbers or numeric strings), else the fallback. */
function sizeOf(
  width: unknown,
  height: unknown,
  fallback = { width: 64, height: 64 },
): { width: number; height: number } {
  const w = Number(width);
  const h = Number(height);
  return w > 0 && h > 0 ? { width: w, height: h } : fallback;
}

/** A 64-pixel-wide size of an aspect ratio "w:h" (square when absent or odd). */
function sizeOfRatio(ratio: unknown): { width: number; height: number } {
  const [w, h] = String(ratio ?? "1:1")
    .split(":")
    .map(Number) as [number, number];
  return { width: 64, height: Math.round((64 * h) / w) || 64 };
}

const fakeJpeg = async (width: number, height: number, text: string) =>
  sharp(await fakePng(width, height, text))
    .jpeg()
    .toBuffer();

// ---------------------------------------------------------------------------------------------
// Together AI: POST {base}/images/generations, `Authorization: Bearer`

export function togetherFake(state: FakeState, options: HostFakeOptions): Handler {
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, message: string, type: string) =>
      sendJson(res, status, { id: randomUUID(), error: { message, type, param: null, code: null } });
    if (request.headers.authorization !== `Bearer ${options.key}`)
      return error(
        401,
        "Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.",
        "invalid_request_error",
      );
    const handled = answeredByMode(state, {
      refuse: () => error(422, HOST_REFUSALS.togetherai, "invalid_request_error"),
      unauthorized: () => error(401, "Invalid API key provided.", "invalid_request_error"),
      down: () => error(503, "The server is overloaded or not ready yet.", "server_error"),
    });
    if (handled) return;
    const body = bodyOf(request);
    // GET {base}/models: Together answers a bare array of model objects.
    if (request.method === "GET" && request.path.endsWith("/models"))
      return sendJson(
        res,
        200,
        ["black-forest-labs/FLUX.1-schnell", "black-forest-labs/FLUX.1-dev"].map((id) => ({
          id,
          object: "model",
          type: "image",
          display_name: id,
        })),
      );
    if (request.method === "POST" && request.path.endsWith("/images/generations")) {
      const { width, height } = sizeOf(body.width, body.height);
      const n = Number(body.n ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, (_, i) => fakePng(width, height, `${String(body.prompt)}#${String(body.seed)}#${i}`)),
      );
      return sendJson(res, 200, {
        id: randomUUID(),
        model: body.model,
        object: "list",
        data: images.map((png, index) => ({ index, b64_json: png.toString("base64") })),
      });
    }
    error(404, `Unknown route ${request.method} ${request.path}`, "invalid_request_error");
  };
}

// ---------------------------------------------------------------------------------------------
// Fireworks: {base}/workflows/{model}/text_to_image (JPEG bytes), {base}/workflows/{model} and
// {base}/workflows/{model}/get_result (a job polled until Ready), `Authorization: Bearer`

export function fireworksFake(state: FakeState, options: HostFakeOptions): Handler {
  const files = fileStore(options.resultOrigin);
  const jobs = new Map<string, { polls: number; prompt: string }>();
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, message: string, type: string) =>
      sendJson(res, status, { error: { object: "error", type, message } });
    if (files.served(request, res)) return;
    if (request.headers.authorization !== `Bearer ${options.key}`)
      return error(401, "The API key you provided is invalid.", "unauthorized");
    const handled = answeredByMode(state, {
      refuse: () => error(400, HOST_REFUSALS.fireworks, "invalid_request_error"),
      unauthorized: () => error(401, "The API key you provided is invalid.", "unauthorized"),
      down: () => error(500, "Internal server error", "internal_server_error"),
    });
    if (handled) return;
    const body = bodyOf(request);
    const size = sizeOfRatio(body.aspect_ratio);
    let match: RegExpExecArray | null;
    if (
      request.method !== "POST" ||
      !(match = /\/workflows\/(.+?)(\/text_to_image|\/get_result)?$/.exec(request.path))
    ) {
      return error(404, `Unknown route ${request.method} ${request.path}`, "not_found");
    }
    if (match[2] === "/text_to_image") {
      return void res
        .writeHead(200, { "content-type": "image/jpeg" })
        .end(await fakeJpeg(size.width, size.height, String(body.prompt)));
    }
    if (match[2] === "/get_result") {
      const id = String(body.id);
      const job = jobs.get(id);
      if (!job) return sendJson(res, 200, { id, status: "Task not found", result: null });
      // Pending at the first look, done at the second: the SDK must poll.
      if (job.polls++ === 0) return sendJson(res, 200, { id, status: "Pending", result: null });
      if (state.mode === "job-fails") return sendJson(res, 200, { id, status: "Error", result: null });
      if (options.jobStatus) return sendJson(res, 200, { id, status: options.jobStatus, result: null });
      const sample = files.publish(request, "jpeg", "image/jpeg", await fakeJpeg(size.width, size.height, job.prompt));
      return sendJson(res, 200, { id, status: "Ready", result: { sample, prompt: job.prompt, seed: 1 } });
    }
    const id = randomUUID();
    jobs.set(id, { polls: 0, prompt: String(body.prompt) });
    sendJson(res, 200, { request_id: id });
  };
}

// ---------------------------------------------------------------------------------------------
// DeepInfra: POST {base}/inference/{model} (base …/v1), `Authorization: Bearer`

export function deepInfraFake(state: FakeState, options: HostFakeOptions): Handler {
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, message: string) => sendJson(res, status, { detail: { error: message } });
    if (request.headers.authorization !== `Bearer ${options.key}`) return error(401, "Unauthorized: invalid API key");
    const handled = answeredByMode(state, {
      refuse: () => error(400, HOST_REFUSALS.deepinfra),
      unauthorized: () => error(401, "Unauthorized: invalid API key"),
      down: () => error(500, "Internal error: the model is not available right now"),
    });
    if (handled) return;
    const body = bodyOf(request);
    // GET {base}/openai/models: its OpenAI-compatible model list.
    if (request.method === "GET" && request.path.endsWith("/openai/models"))
      return sendJson(res, 200, {
        object: "list",
        data: ["black-forest-labs/FLUX-1-schnell", "stabilityai/sdxl-turbo"].map((id) => ({
          id,
          object: "model",
          created: 1_700_000_000,
          owned_by: "deepinfra",
        })),
      });
    if (request.method === "POST" && /\/inference\/.+/.test(request.path)) {
      const { width, height } = sizeOf(body.width, body.height);
      const n = Number(body.num_images ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, (_, i) => fakePng(width, height, `${String(body.prompt)}#${i}`)),
      );
      return sendJson(res, 200, {
        images: images.map((png) => `data:image/png;base64,${png.toString("base64")}`),
        nsfw_content_detected: images.map(() => false),
        seed: body.seed ?? 42,
        request_id: randomUUID(),
        inference_status: { status: "succeeded", runtime_ms: 120, cost: 0.0005 },
      });
    }
    error(404, `Unknown route ${request.method} ${request.path}`);
  };
}

// ---------------------------------------------------------------------------------------------
// fal: the run host at the base (POST /{endpoint}) and the queue host under /queue, `Authorization: Key`

export function falHostFake(state: FakeState, options: HostFakeOptions): Handler {
  const files = fileStore(options.resultOrigin);
  const queued = new Map<string, { polls: number }>();
  return async (request, res) => {
    state.requests.push(request);
    const detail = (status: number, body: unknown, errorType?: string): void =>
      void res
        .writeHead(status, {
          "content-type": "application/json",
          ...(errorType ? { "x-fal-error-type": errorType } : {}),
        })
        .end(JSON.stringify(body));
    const refusal = () =>
      detail(422, {
        detail: [
          {
            loc: ["body", "prompt"],
            msg: HOST_REFUSALS.fal,
            type: "content_policy_violation",
            url: "https://docs.fal.ai/errors#content_policy_violation",
          },
        ],
      });
    if (files.served(request, res)) return;
    if (request.headers.authorization !== `Key ${options.key}`)
      return detail(401, { detail: "Invalid Key Authorization header format" });
    const handled = answeredByMode(state, {
      refuse: refusal,
      unauthorized: () => detail(401, { detail: "Cannot access application: invalid key" }),
      down: () =>
        detail(
          503,
          { detail: "No runner is available for this application right now.", error_type: "runner_unavailable" },
          "runner_unavailable",
        ),
    });
    if (handled) return;
    const url = new URL(request.path, "http://fake");
    const body = bodyOf(request);
    let match: RegExpExecArray | null;
    if (request.method === "GET" && (match = /^\/queue\/([^/]+\/[^/]+)\/requests\/([^/]+)$/.exec(url.pathname))) {
      const job = queued.get(match[2]!);
      if (!job) return detail(404, { detail: `Request ${match[2]} not found` });
      // Still running at the first look, done at the second: the SDK must poll.
      if (job.polls++ === 0) return detail(400, { detail: "Request is still in progress" });
      if (state.mode === "job-fails") return refusal();
      const video = await fakeMp4({ width: 160, height: 90, fps: 12, seconds: 1, ffmpegPath: options.ffmpegPath });
      return sendJson(res, 200, {
        video: {
          url: files.publish(request, "mp4", "video/mp4", video),
          content_type: "video/mp4",
          file_name: "output.mp4",
          file_size: video.length,
        },
        seed: 7,
      });
    }
    if (request.method === "POST" && (match = /^\/queue\/(([^/]+\/[^/]+)(?:\/.+)?)$/.exec(url.pathname))) {
      const id = randomUUID();
      queued.set(id, { polls: 0 });
      // The links name fal's queue host, which the adapter's fetch sends back here.
      const link = `https://queue.fal.run/${match[2]}/requests/${id}`;
      return sendJson(res, 200, {
        request_id: id,
        response_url: link,
        status_url: `${link}/status`,
        cancel_url: `${link}/cancel`,
        queue_position: 0,
      });
    }
    if (request.method === "POST" && /^\/[^/]+\/[^/]+/.test(url.pathname)) {
      if (typeof body.text === "string") {
        const mp3 = await fakeMp3(options.ffmpegPath);
        return sendJson(res, 200, {
          audio: {
            url: files.publish(request, "mp3", "audio/mpeg", mp3),
            content_type: "audio/mpeg",
            file_name: "speech.mp3",
            file_size: mp3.length,
          },
          duration_ms: 1000,
        });
      }
      const imageSize = body.image_size as { width?: number; height?: number } | undefined;
      const { width, height } = sizeOf(imageSize?.width, imageSize?.height);
      const n = Number(body.num_images ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, async (_, i) => ({
          url: files.publish(request, "png", "image/png", await fakePng(width, height, `${String(body.prompt)}#${i}`)),
          width,
          height,
          content_type: "image/png",
        })),
      );
      return sendJson(res, 200, {
        images,
        timings: { inference: 0.4 },
        seed: 7,
        has_nsfw_concepts: images.map(() => false),
        prompt: body.prompt,
      });
    }
    detail(404, { detail: `Path ${url.pathname} not found` });
  };
}

// ---------------------------------------------------------------------------------------------
// Replicate: POST {base}/models/{owner}/{name}/predictions | {base}/predictions, GET {base}/predictions/{id}

/** The models this fake serves: what each makes and its one version. */
export const HOST_REPLICATE_MODELS: Record<string, { makes: "image" | "video"; version: string }> = {
  "black-forest-labs/flux-schnell": {
    makes: "image",
    version: "c846a69991daf4c0e5d016514849d14ee5b2e6846ce6b9d6f21369e564cfe51e",
  },
  "wan-video/wan-2.1-t2v-480p": {
    makes: "video",
    version: "a3a0e8d1a1f5c3e2b7d6e9f4c2b1a0d9e8f7c6b5a4d3c2b1a0f9e8d7c6b5a4d3",
  },
};

/** Why a prediction fails in "job-fails" (Replicate's safety checker's words). */
export const HOST_REPLICATE_FAILURE = "NSFW content detected. Try running it again, or try a different prompt.";

interface HostPrediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: "starting" | "processing" | "succeeded" | "failed";
  output: string | string[] | null;
  error: string | null;
}

export function replicateHostFake(state: FakeState, options: HostFakeOptions): Handler {
  const files = fileStore(options.resultOrigin);
  const predictions = new Map<string, HostPrediction>();
  const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
    sendJson(res, status, { title, detail, status });
  const view = (request: RecordedRequest, p: HostPrediction) => {
    const get = `${originOf(request)}/v1/predictions/${p.id}`;
    const done = p.status === "succeeded" || p.status === "failed";
    return {
      ...p,
      logs: "",
      data_removed: false,
      created_at: new Date().toISOString(),
      completed_at: done ? new Date().toISOString() : null,
      urls: { get, cancel: `${get}/cancel`, stream: `${get}/stream` },
      metrics: done ? { predict_time: 1.2 } : {},
    };
  };
  /** A video model finishes at the second look, so the SDK must poll through processing. */
  async function advance(request: RecordedRequest, p: HostPrediction): Promise<void> {
    if (p.status === "starting") p.status = "processing";
    else if (p.status === "processing" && state.mode === "job-fails")
      Object.assign(p, { status: "failed", error: HOST_REPLICATE_FAILURE });
    else if (p.status === "processing") {
      const video = await fakeMp4({ width: 160, height: 90, fps: 12, seconds: 1, ffmpegPath: options.ffmpegPath });
      Object.assign(p, { status: "succeeded", output: files.publish(request, "mp4", "video/mp4", video) });
    }
  }
  return async (request, res) => {
    state.requests.push(request);
    if (files.served(request, res)) return;
    if (request.headers.authorization !== `Bearer ${options.key}`)
      return problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token");
    const handled = answeredByMode(state, {
      refuse: () =>
        sendJson(res, 422, {
          title: "Input validation failed",
          detail: HOST_REFUSALS.replicate,
          status: 422,
          invalid_fields: [{ type: "content_policy", field: "input.prompt" }],
        }),
      unauthorized: () => problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token"),
      down: () =>
        problem(res, 503, "Service Unavailable", "Replicate is temporarily unavailable. Please try again later."),
    });
    if (handled) return;
    // GET {base}/account: the account the token belongs to.
    if (request.method === "GET" && request.path === "/v1/account")
      return sendJson(res, 200, { type: "user", username: "ada", name: "Ada", github_url: "https://github.com/ada" });
    const body = bodyOf(request) as { input?: Record<string, unknown>; version?: string };
    let match: RegExpExecArray | null;
    if (request.method === "GET" && (match = /^\/v1\/predictions\/([^/]+)$/.exec(request.path))) {
      const p = predictions.get(match[1]!);
      if (!p) return problem(res, 404, "Not found", "The requested resource could not be found.");
      await advance(request, p);
      return sendJson(res, 200, view(request, p));
    }
    const byModel = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(request.path)?.[1];
    const byVersion =
      request.path === "/v1/predictions"
        ? Object.keys(HOST_REPLICATE_MODELS).find((m) => HOST_REPLICATE_MODELS[m]!.version === body.version)
        : undefined;
    if (request.method !== "POST" || !(byModel ?? request.path === "/v1/predictions"))
      return problem(res, 404, "Not found", "The requested resource could not be found.");
    const model = byModel ?? byVersion;
    const known = model ? HOST_REPLICATE_MODELS[model] : undefined;
    if (!model || !known) return problem(res, 404, "Not found", `Model or version not found: ${model ?? body.version}`);
    const input = body.input ?? {};
    const p: HostPrediction = {
      id: randomUUID().replace(/-/g, "").slice(0, 26),
      model,
      version: known.version,
      input,
      status: "starting",
      output: null,
      error: null,
    };
    predictions.set(p.id, p);
    // `Prefer: wait` holds the request until the prediction ends: an image model ends within it
    // (failed, in "job-fails"), a video model outlasts it and is answered still starting.
    const waited = known.makes === "image" && /^wait\b/.test(String(request.headers.prefer ?? ""));
    if (waited && state.mode === "job-fails") Object.assign(p, { status: "failed", error: HOST_REPLICATE_FAILURE });
    else if (waited) {
      const { width, height } = sizeOfRatio(input.aspect_ratio);
      const n = Number(input.num_outputs ?? 1);
      const pngs = await Promise.all(
        Array.from({ length: n }, (_, i) => fakePng(width, height, `${String(input.prompt)}#${i}`)),
      );
      Object.assign(p, {
        status: "succeeded",
        output: pngs.map((png) => files.publish(request, "png", "image/png", png)),
      });
    }
    sendJson(res, 201, view(request, p));
  };
}
