// For tests: local fakes of four more APIs the AI SDK's packages call, each answering exactly the
// requests the installed package makes (read from node_modules/@ai-sdk/<name>/dist/index.mjs) in
// the shapes the providers document:
//   Luma (@ai-sdk/luma 2.0, lumalabs/lumaai-api openapi.yaml): Bearer key;
//     POST {base}/dream-machine/v1/generations/image → 201 Generation {id, state: "queued"};
//     GET {base}/dream-machine/v1/generations/{id} until state "completed" (assets.image) or
//     "failed" (failure_reason); the image (jpg unless `format: "png"`) from its CDN, no key.
//     Errors {detail: "…"} (a string, though the package's schema expects pydantic's array).
//   Black Forest Labs (@ai-sdk/black-forest-labs 1.0, docs.bfl.ai quick start, get_result, errors):
//     header x-key; POST {base}/{model} → {id, polling_url}; GET polling_url (?id=) → status
//     Pending | Ready (result.sample) | Error | Request Moderated | Content Moderated | Task not
//     found; the sample (jpeg unless output_format png) from a delivery URL (the package sends
//     x-key there too). Errors {detail}: a string, or FastAPI's [{loc, msg, type}] for a 422.
//   xAI (@ai-sdk/xai 3.0, docs.x.ai): Bearer key; POST {base}/images/generations → {data:
//     [{b64_json}]} (JPEG) when asked response_format b64_json, which the package always does;
//     POST {base}/videos/generations → {request_id}; GET {base}/videos/{id} → 202 {status:
//     "pending"} then {status: "done", video: {url, duration, respect_moderation}} or "failed";
//     the MP4 from its own URL; GET {base}/models lists its models. Errors {code, error}.
//   LMNT (@ai-sdk/lmnt 2.0, lmnt-python speech.py, docs.lmnt.com): header X-API-Key; POST
//     https://api.lmnt.com/v1/ai/speech/bytes {text, voice, model, format, sample_rate, seed,
//     temperature, top_p…} → audio bytes in `format` (mp3 by default). The package sends
//     `response_format`, a field the API does not read, so this fake ignores it too. Errors
//     {error: {message, code}} as the package's lmnt-error.ts reads them (unverified).
// Result files are served from the fake's own origin: on loopback, only the provider's own host is
// fetched. Every answer is real media (fake-media.ts). A fake's `mode` makes it refuse (4xx in the
// provider's shape) or fail (5xx) the submit, fail the job, or never finish it; it records every
// request it saw.
import type { ServerResponse } from "node:http";
import sharp from "sharp";
import { fakeMp3, fakeMp4, fakePng, fakeWav } from "../../testing/fake-media";
import { bodyOf, originOf, sendJson, type Handler, type RecordedRequest } from "../../testing/test-server";

export type LabsMode = "ok" | "refuse" | "down" | "job-fails" | "never-done";

export interface LabsState {
  mode: LabsMode;
  requests: RecordedRequest[];
  /** BFL: the status a job ends in instead of Ready ("Request Moderated", "Content Moderated", "Task not found"). */
  jobStatus?: string;
}

export function labsState(): LabsState {
  return { mode: "ok", requests: [] };
}

/** What each fake says when it refuses a submit (its provider's shape, words illustrative). */
export const LABS_REFUSALS = {
  luma: "Prompt not allowed because advanced moderation failed.",
  blackForestLabs: "Aspect ratio must be between 21:9 and 9:21",
  xai: "Generated image rejected by content moderation.",
  lmnt: "The voice 'nobody' does not exist.",
} as const;

/** Why the BFL fake moderates a job (its jobStatus "Request Moderated" or "Content Moderated"). */
export const BFL_MODERATION_REASON = "Derivative Works Filter";

/** What each fake says when it is down. */
export const LABS_OUTAGES = {
  luma: "Internal server error",
  blackForestLabs: "Service temporarily unavailable, please try again later.",
  xai: "The service is currently unavailable.",
  lmnt: "Internal server error",
} as const;

// ---------------------------------------------------------------------------------------------
// Plumbing

/** Small picture sizes for an aspect ratio ("16:9" → 64×36): real media, fast tests. */
function sizeFor(aspectRatio: unknown, long = 64): { width: number; height: number } {
  const [w, h] =
    typeof aspectRatio === "string" && /^\d+:\d+$/.test(aspectRatio) ? aspectRatio.split(":").map(Number) : [1, 1];
  return w! >= h!
    ? { width: long, height: Math.round((long * h!) / w!) }
    : { width: Math.round((long * w!) / h!), height: long };
}

async function picture(format: "png" | "jpeg", size: { width: number; height: number }, text: string): Promise<Buffer> {
  const png = await fakePng(size.width, size.height, text);
  return format === "png" ? png : sharp(png).jpeg().toBuffer();
}

function sendBytes(res: ServerResponse, type: string, data: Buffer): void {
  res.writeHead(200, { "content-type": type, "content-length": data.length }).end(data);
}

/** A job of a polling fake: what to make, and how often it was looked at. */
interface Job {
  model: string;
  prompt: string;
  size: { width: number; height: number };
  format: "png" | "jpeg";
  polls: number;
}

/** The job's state at this look: running at the first look, finished at the second (so the package must poll). */
function look(state: LabsState, job: Job): "running" | "done" | "failed" {
  job.polls++;
  if (state.mode === "never-done" || job.polls === 1) return "running";
  return state.mode === "job-fails" ? "failed" : "done";
}

// ---------------------------------------------------------------------------------------------
// Luma: {base} = https://api.lumalabs.ai

export interface LumaFakeOptions {
  key: string;
  /** Where its result links point; its own origin unless a test points them at another host. */
  resultOrigin?: string;
}

export function lumaFake(state: LabsState, options: LumaFakeOptions): Handler {
  const jobs = new Map<string, Job>();
  let next = 0;
  return async (request, res) => {
    state.requests.push(request);
    const url = new URL(request.path, "http://fake");
    const error = (status: number, detail: string) => sendJson(res, status, { detail });
    let match: RegExpExecArray | null;
    // The generated image lives on Luma's CDN, fetched without the key.
    if (request.method === "GET" && (match = /^\/cdn\/([\w-]+)\.(jpg|png)$/.exec(url.pathname))) {
      const job = jobs.get(match[1]!);
      if (!job) return error(404, "Not found");
      return sendBytes(
        res,
        job.format === "png" ? "image/png" : "image/jpeg",
        await picture(job.format, job.size, job.prompt),
      );
    }
    if (request.headers.authorization !== `Bearer ${options.key}`) return error(401, "Invalid API key is provided");
    const generation = (id: string, job: Job, stage: string, extra: Record<string, unknown> = {}) => ({
      id,
      generation_type: "image",
      state: stage,
      failure_reason: null,
      created_at: "2026-01-01T00:00:00.000Z",
      assets: null,
      model: job.model,
      ...extra,
    });
    if (request.method === "POST" && url.pathname === "/dream-machine/v1/generations/image") {
      if (state.mode === "refuse") return error(400, LABS_REFUSALS.luma);
      if (state.mode === "down") return error(500, LABS_OUTAGES.luma);
      const body = bodyOf(request);
      const id = `0b1e4f5a-0000-4000-8000-${String(++next).padStart(12, "0")}`;
      const job: Job = {
        model: String(body.model),
        prompt: String(body.prompt),
        size: sizeFor(body.aspect_ratio ?? "16:9"),
        format: body.format === "png" ? "png" : "jpeg",
        polls: 0,
      };
      jobs.set(id, job);
      return sendJson(res, 201, generation(id, job, "queued"));
    }
    if (request.method === "GET" && (match = /^\/dream-machine\/v1\/generations\/([\w-]+)$/.exec(url.pathname))) {
      const id = match[1]!;
      const job = jobs.get(id);
      if (!job) return error(404, "Generation not found");
      const now = look(state, job);
      if (now === "running") return sendJson(res, 200, generation(id, job, job.polls === 1 ? "queued" : "dreaming"));
      if (now === "failed")
        return sendJson(
          res,
          200,
          generation(id, job, "failed", {
            failure_reason: "The image could not be generated: it may violate our policies.",
          }),
        );
      const ext = job.format === "png" ? "png" : "jpg";
      return sendJson(
        res,
        200,
        generation(id, job, "completed", {
          assets: { image: `${options.resultOrigin ?? originOf(request)}/cdn/${id}.${ext}` },
        }),
      );
    }
    error(404, `No route ${request.method} ${url.pathname}`);
  };
}

// ---------------------------------------------------------------------------------------------
// Black Forest Labs: {base} = https://api.bfl.ai/v1

export function blackForestLabsFake(state: LabsState, options: { key: string }): Handler {
  const jobs = new Map<string, Job>();
  let next = 0;
  return async (request, res) => {
    state.requests.push(request);
    const url = new URL(request.path, "http://fake");
    const error = (status: number, detail: unknown) => sendJson(res, status, { detail });
    let match: RegExpExecArray | null;
    // Results are signed delivery links (valid for ten minutes), not behind the key.
    if (request.method === "GET" && (match = /^\/delivery\/([\w-]+)\/sample\.(jpeg|png)$/.exec(url.pathname))) {
      const job = jobs.get(match[1]!);
      if (!job) return error(404, "Not Found");
      return sendBytes(res, `image/${job.format}`, await picture(job.format, job.size, job.prompt));
    }
    if (request.headers["x-key"] !== options.key) return error(403, "Not authenticated - Invalid Authentication");
    if (request.method === "GET" && url.pathname.endsWith("/get_result")) {
      const id = url.searchParams.get("id") ?? "";
      const job = jobs.get(id);
      if (!job) return sendJson(res, 200, { id, status: "Task not found", result: null });
      const now = look(state, job);
      if (now === "running") return sendJson(res, 200, { id, status: "Pending", result: null, progress: 0.5 });
      if (now === "failed")
        return sendJson(res, 200, { id, status: "Error", result: null, details: { message: "Generation failed." } });
      // A moderated job names its reasons (the shape BFL's clients read).
      if (state.jobStatus) {
        const details = state.jobStatus.endsWith("Moderated")
          ? { details: { "Moderation Reasons": [BFL_MODERATION_REASON] } }
          : {};
        return sendJson(res, 200, { id, status: state.jobStatus, result: null, ...details });
      }
      const sample = `${originOf(request)}/delivery/${id}/sample.${job.format}`;
      return sendJson(res, 200, {
        id,
        status: "Ready",
        result: { sample, prompt: job.prompt, seed: 42, start_time: 1767225600, end_time: 1767225604, duration: 4 },
        progress: 1,
      });
    }
    if (request.method === "POST" && (match = /^(.*)\/([\w.-]+)$/.exec(url.pathname))) {
      if (state.mode === "refuse")
        return error(422, [{ loc: ["body", "aspect_ratio"], msg: LABS_REFUSALS.blackForestLabs, type: "value_error" }]);
      if (state.mode === "down") return error(503, LABS_OUTAGES.blackForestLabs);
      const body = bodyOf(request);
      const id = `5f0c9a1e-0000-4000-8000-${String(++next).padStart(12, "0")}`;
      // width/height (multiples of 16 from 256) shrink to a sixteenth; else the aspect ratio decides.
      const size =
        typeof body.width === "number" && typeof body.height === "number"
          ? { width: body.width / 16, height: body.height / 16 }
          : sizeFor(body.aspect_ratio);
      jobs.set(id, {
        model: match[2]!,
        prompt: String(body.prompt),
        size,
        format: body.output_format === "png" ? "png" : "jpeg",
        polls: 0,
      });
      // Real polling URLs name a regional host (api.us1.bfl.ai); here, the fake itself.
      return sendJson(res, 200, {
        id,
        polling_url: `${originOf(request)}${match[1]}/get_result?id=${id}`,
        cost: 4,
        input_mp: 0,
        output_mp: 1,
      });
    }
    error(404, "Not Found");
  };
}

// ---------------------------------------------------------------------------------------------
// xAI: {base} = https://api.x.ai/v1

export function xaiFake(state: LabsState, options: { key: string; ffmpegPath: string }): Handler {
  const jobs = new Map<string, Job & { duration: number }>();
  let next = 0;
  return async (request, res) => {
    state.requests.push(request);
    const url = new URL(request.path, "http://fake");
    const error = (status: number, code: string, message: string) => sendJson(res, status, { code, error: message });
    let match: RegExpExecArray | null;
    // Videos are served from their own bucket URL, without the key.
    if (request.method === "GET" && (match = /^\/xai-vidgen-bucket\/([\w-]+)\.mp4$/.exec(url.pathname))) {
      if (!jobs.has(match[1]!)) return error(404, "Not found", "No such video.");
      return sendBytes(
        res,
        "video/mp4",
        await fakeMp4({ width: 160, height: 90, fps: 12, seconds: 1, ffmpegPath: options.ffmpegPath }),
      );
    }
    if (request.headers.authorization !== `Bearer ${options.key}`) {
      return error(
        401,
        "The caller does not have permission to execute the specified operation",
        "Incorrect API key provided.",
      );
    }
    // GET {base}/models: the models the key may use (OpenAI's list object).
    if (request.method === "GET" && url.pathname.endsWith("/models"))
      return sendJson(res, 200, {
        object: "list",
        data: ["grok-2-image", "grok-imagine-video"].map((id) => ({
          id,
          object: "model",
          created: 1_700_000_000,
          owned_by: "xai",
        })),
      });
    const submit = request.method === "POST" && /\/(images|videos)\/generations$/.test(url.pathname);
    if (submit && state.mode === "refuse") return error(400, "Client specified an invalid argument", LABS_REFUSALS.xai);
    if (submit && state.mode === "down") return error(503, "Service unavailable", LABS_OUTAGES.xai);
    const body = bodyOf(request);
    if (request.method === "POST" && url.pathname.endsWith("/images/generations")) {
      // Only base64 is served here: the package always asks for it (real xAI defaults to URLs).
      if (body.response_format !== "b64_json")
        return error(400, "Client specified an invalid argument", "This fake serves b64_json only.");
      const n = Number(body.n ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, (_, i) => picture("jpeg", sizeFor(body.aspect_ratio), `${String(body.prompt)}#${i}`)),
      );
      return sendJson(res, 200, {
        data: images.map((jpeg) => ({
          b64_json: jpeg.toString("base64"),
          mime_type: "image/jpeg",
          revised_prompt: String(body.prompt),
        })),
        usage: { cost_in_usd_ticks: 200_000_000 },
      });
    }
    if (request.method === "POST" && url.pathname.endsWith("/videos/generations")) {
      const id = `d7c3e2b1-0000-4000-8000-${String(++next).padStart(12, "0")}`;
      jobs.set(id, {
        model: String(body.model),
        prompt: String(body.prompt),
        size: { width: 160, height: 90 },
        format: "jpeg",
        polls: 0,
        duration: Number(body.duration ?? 1),
      });
      return sendJson(res, 200, { request_id: id });
    }
    if (request.method === "GET" && (match = /\/videos\/([\w-]+)$/.exec(url.pathname))) {
      const id = match[1]!;
      const job = jobs.get(id);
      if (!job) return error(404, "Not found", `No video request ${id}.`);
      const now = look(state, job);
      if (now === "running") return sendJson(res, 202, { status: "pending", progress: 40 });
      if (now === "failed")
        return sendJson(res, 200, {
          status: "failed",
          error: { code: "content_moderation", message: "The video was rejected by content moderation." },
        });
      const video = {
        url: `${originOf(request)}/xai-vidgen-bucket/${id}.mp4`,
        duration: job.duration,
        respect_moderation: true,
      };
      return sendJson(res, 200, {
        status: "done",
        video,
        model: job.model,
        progress: 100,
        usage: { cost_in_usd_ticks: 500_000_000 },
      });
    }
    error(404, "Not found", `No route ${request.method} ${url.pathname}`);
  };
}

// ---------------------------------------------------------------------------------------------
// LMNT: https://api.lmnt.com (the package has no baseURL; the adapter redirects its fetch)

export function lmntFake(state: LabsState, options: { key: string; ffmpegPath: string }): Handler {
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, message: string) => sendJson(res, status, { error: { message, code: status } });
    if (request.headers["x-api-key"] !== options.key) return error(401, "Invalid API key.");
    if (request.method === "POST" && request.path === "/v1/ai/speech/bytes") {
      if (state.mode === "refuse") return error(400, LABS_REFUSALS.lmnt);
      if (state.mode === "down") return error(500, LABS_OUTAGES.lmnt);
      const body = bodyOf(request);
      // `format` as LMNT's API reference names it; the package's `response_format` is not read.
      const format = body.format ?? "mp3";
      if (format === "wav") return sendBytes(res, "audio/wav", fakeWav(1, 440, Number(body.sample_rate ?? 24_000)));
      if (format === "mp3") return sendBytes(res, "audio/mpeg", await fakeMp3(options.ffmpegPath));
      return error(400, `This fake makes mp3 and wav only, not ${String(format)}.`);
    }
    error(404, `No route ${request.method} ${request.path}`);
  };
}
