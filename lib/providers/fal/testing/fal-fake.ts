// For tests: a local fal, written from its public queue API reference
// (docs.fal.ai/model-endpoints/queue): POST /{endpoint} queues a request (`Authorization: Key …`);
// GET /{owner}/{alias}/requests/{id}/status?logs=1 and GET /{owner}/{alias}/requests/{id} — the
// endpoint's sub-path dropped, as fal does; PUT …/cancel; the synchronous host under /run/{endpoint};
// and the per-endpoint OpenAPI document fal publishes (GET /api/openapi/queue/openapi.json?
// endpoint_id=…). Requests move only when the test says (mode "manual": IN_QUEUE → IN_PROGRESS →
// COMPLETED) or at once ("auto"); while IN_QUEUE a status (and the submit answer) gives its
// `queue_position` as fal does, 0 for the next to start: the requests ahead of it, those still
// queued here for its endpoint before it and those of other users a test puts there
// (`queueAhead`, `setAhead`). A prompt holding "refuse" ends in fal's 422
// content_policy_violation. Outputs are fal File objects linking to a media host on another origin
// (a 3D endpoint's `model_mesh`: a glb, content_type model/gltf-binary, as fal-ai/trellis answers).
// fal storage, as the client uses it, under /rest (a provider's rest_base_url): POST
// /rest/storage/upload/initiate → {upload_url, file_url}, the bytes then PUT to upload_url on the
// media host (signed, no key) and served at file_url; /rest/storage/upload/initiate-multipart for
// the client's multipart form (parts PUT to {upload_url}/{n}, then POST {upload_url}/complete).
// fal's Platform API under /platform/v1 (a provider's platform_base_url): GET /models/pricing
// ?endpoint_id=… answers {prices: [{endpoint_id, unit_price, unit, currency}], next_cursor, has_more}.
// A request's model reads its input files (data URIs, or media-host URLs: one it does not hold ends
// in fal's 422 file_download_error) into `inputFiles`. A request queued with the `fal_webhook`
// query parameter gets {request_id, gateway_request_id, status: "OK" | "ERROR", payload, error}
// POSTed there once it is COMPLETED (a cancel included), as fal does.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeMedia, type FakeModality } from "../../testing/fake-media";
import {
  injectedAnswers,
  readInputFiles,
  sendFakeWebhook,
  startMediaHost,
  type FakeInputFile,
  type HostedFake,
} from "../../testing/replicate-fal-fake-media";

export interface FakeFalEndpoint {
  id: string;
  modality: FakeModality;
  /** What fal's OpenAPI endpoint publishes for it. */
  openapi: Record<string, unknown>;
}

export type FakeFalStatus = "IN_QUEUE" | "IN_PROGRESS" | "COMPLETED";

export interface FakeFalRequest {
  id: string;
  endpoint: string;
  input: Record<string, unknown>;
  status: FakeFalStatus;
  /** Requests of other fal users ahead of it while IN_QUEUE: counted in its queue_position. */
  ahead: number;
  /** Set when it was canceled (while queued: never run; while running: stopped). */
  canceled: "queued" | "running" | null;
  logs: Array<{ message: string; level: string; source: "USER"; timestamp: string }>;
  /** The result once COMPLETED: an output, or an error answer. */
  result: { status: number; body: unknown } | null;
  /** The files its input names, as its model read them (by field; "field[i]" in a list). */
  inputFiles: Record<string, FakeInputFile>;
  /** Input fields naming a media-host file that is not there (the request fails with 422). */
  missingFiles: string[];
  /** The `fal_webhook` it was queued with; null: none. */
  webhook: string | null;
}

export interface FalFake extends HostedFake {
  /** The queue host, as a provider's base_url. */
  url: string;
  /** The synchronous host, as a provider's run_base_url. */
  runUrl: string;
  /** fal's REST host (storage uploads start there), as a provider's rest_base_url. */
  restUrl: string;
  /** fal's Platform API (model pricing), as a provider's platform_base_url. */
  platformUrl: string;
  key: string;
  queue: Map<string, FakeFalRequest>;
  /** Requests of other fal users each new request finds ahead of it (its `ahead`); 0 unless a test says. */
  queueAhead: number;
  nextRequest(): Promise<FakeFalRequest>;
  /** Sets how many requests of other users are still ahead of a queued request (they started meanwhile). */
  setAhead(id: string, ahead: number): void;
  start(id: string): void;
  /** Logs a step of an IN_PROGRESS request, as fal's diffusion endpoints do. */
  step(id: string, done: number, total: number): void;
  complete(id: string): Promise<void>;
  /** Completes the request with fal's error answer for it (e.g. 500 runner error). */
  completeWithError(id: string, status: number, body: unknown): void;
}

/** What the fake's pricing answers per modality (fal's units: image, second, 1000 characters, request). */
const PRICES: Record<FakeModality, { unit_price: number; unit: string }> = {
  image: { unit_price: 0.025, unit: "image" },
  video: { unit_price: 0.07, unit: "second" },
  audio: { unit_price: 0.1, unit: "1000 characters" },
  "3d": { unit_price: 0.02, unit: "request" },
};

const IMAGE_SIZE_ENUM = ["square_hd", "square", "portrait_4_3", "portrait_16_9", "landscape_4_3", "landscape_16_9"];

/** fal-ai/flux/dev's input as fal's OpenAPI document gives it (trimmed to the input and the queue paths). */
export function falFluxDevOpenApi(endpoint = "fal-ai/flux/dev"): Record<string, unknown> {
  return {
    openapi: "3.0.4",
    info: {
      title: "Queue OpenAPI for fal-ai/flux/dev",
      version: "1.0.0",
      description:
        "FLUX.1 [dev] is a 12 billion parameter flow transformer that generates high-quality images from text.",
      "x-fal-metadata": { endpointId: endpoint, category: "text-to-image" },
    },
    components: {
      securitySchemes: { apiKeyAuth: { type: "apiKey", in: "header", name: "Authorization", description: "Fal Key" } },
      schemas: {
        QueueStatus: {
          type: "object",
          properties: {
            status: { type: "string", enum: ["IN_QUEUE", "IN_PROGRESS", "COMPLETED"] },
            request_id: { type: "string" },
          },
          required: ["status", "request_id"],
        },
        FluxDevInput: {
          title: "BaseInput",
          type: "object",
          "x-fal-order-properties": [
            "prompt",
            "image_size",
            "num_inference_steps",
            "seed",
            "guidance_scale",
            "sync_mode",
            "num_images",
            "enable_safety_checker",
            "output_format",
            "acceleration",
          ],
          required: ["prompt"],
          properties: {
            prompt: {
              title: "Prompt",
              type: "string",
              description: "The prompt to generate an image from.",
              examples: ["Extreme close-up of a single tiger eye"],
            },
            image_size: {
              title: "Image Size",
              description: "The size of the generated image.",
              default: "landscape_4_3",
              anyOf: [{ $ref: "#/components/schemas/ImageSize" }, { type: "string", enum: IMAGE_SIZE_ENUM }],
            },
            num_inference_steps: {
              title: "Num Inference Steps",
              type: "integer",
              description: "The number of inference steps to perform.",
              minimum: 1,
              maximum: 50,
              default: 28,
            },
            seed: {
              anyOf: [{ type: "integer" }, { type: "null" }],
              title: "Seed",
              description:
                "The same seed and the same prompt given to the same version of the model will output the same image every time.",
            },
            guidance_scale: {
              title: "Guidance scale (CFG)",
              type: "number",
              description:
                "The CFG (Classifier Free Guidance) scale is a measure of how close you want the model to stick to your prompt when looking for a related image to show you.",
              minimum: 1,
              maximum: 20,
              default: 3.5,
            },
            sync_mode: {
              title: "Sync Mode",
              type: "boolean",
              description:
                "If set to true, the function will wait for the image to be generated and uploaded before returning the response.",
              default: false,
            },
            num_images: {
              title: "Num Images",
              type: "integer",
              description: "The number of images to generate.",
              minimum: 1,
              maximum: 4,
              default: 1,
            },
            enable_safety_checker: {
              title: "Enable Safety Checker",
              type: "boolean",
              description: "If set to true, the safety checker will be enabled.",
              default: true,
            },
            output_format: {
              title: "Output Format",
              type: "string",
              enum: ["jpeg", "png"],
              description: "The format of the generated image.",
              default: "jpeg",
            },
            acceleration: {
              title: "Acceleration",
              type: "string",
              enum: ["none", "regular", "high"],
              description: "The speed of the generation. The higher the speed, the faster the generation.",
              default: "none",
            },
          },
        },
        ImageSize: {
          title: "ImageSize",
          type: "object",
          "x-fal-order-properties": ["width", "height"],
          properties: {
            width: {
              title: "Width",
              type: "integer",
              description: "The width of the generated image.",
              exclusiveMinimum: 0,
              maximum: 14142,
              default: 512,
            },
            height: {
              title: "Height",
              type: "integer",
              description: "The height of the generated image.",
              exclusiveMinimum: 0,
              maximum: 14142,
              default: 512,
            },
          },
        },
        FluxDevOutput: {
          title: "Output",
          type: "object",
          required: ["images", "timings", "seed", "has_nsfw_concepts", "prompt"],
          properties: {
            images: { title: "Images", type: "array", items: { $ref: "#/components/schemas/Image" } },
            seed: { type: "integer" },
            prompt: { type: "string" },
          },
        },
        Image: {
          title: "Image",
          type: "object",
          properties: {
            url: { type: "string" },
            width: { type: "integer" },
            height: { type: "integer" },
            content_type: { type: "string", default: "image/jpeg" },
          },
          required: ["url"],
        },
      },
    },
    paths: {
      [`/${endpoint}/requests/{request_id}/status`]: {
        get: {
          parameters: [{ name: "request_id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/QueueStatus" } } } },
          },
        },
      },
      [`/${endpoint}/requests/{request_id}/cancel`]: {
        put: { responses: { "200": { description: "The request was cancelled." } } },
      },
      [`/${endpoint}`]: {
        post: {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/FluxDevInput" } } },
          },
          responses: {
            "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/QueueStatus" } } } },
          },
        },
      },
      [`/${endpoint}/requests/{request_id}`]: {
        get: {
          responses: {
            "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/FluxDevOutput" } } } },
          },
        },
      },
    },
    servers: [{ url: "https://queue.fal.run" }],
    security: [{ apiKeyAuth: [] }],
  };
}

/** An endpoint's queue OpenAPI document in fal's shape: its input schema (the first of `schemas`) and any it refers to. */
function falQueueOpenApi(
  endpoint: string,
  meta: { description: string; category: string },
  schemas: Record<string, unknown>,
): Record<string, unknown> {
  const input = Object.keys(schemas)[0]!;
  return {
    openapi: "3.0.4",
    info: {
      title: `Queue OpenAPI for ${endpoint}`,
      version: "1.0.0",
      description: meta.description,
      "x-fal-metadata": { endpointId: endpoint, category: meta.category },
    },
    components: { schemas },
    paths: {
      [`/${endpoint}`]: {
        post: {
          requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${input}` } } } },
        },
      },
    },
  };
}

/** An image-to-video endpoint (an `image_url` input, a `video` File output). */
const falVideoOpenApi = (endpoint: string) =>
  falQueueOpenApi(
    endpoint,
    { description: "Animates an image into a short clip.", category: "image-to-video" },
    {
      VideoInput: {
        title: "ImageToVideoInput",
        type: "object",
        "x-fal-order-properties": ["prompt", "image_url", "duration", "image_urls"],
        required: ["prompt", "image_url"],
        properties: {
          prompt: { title: "Prompt", type: "string", description: "What happens in the clip.", maxLength: 2500 },
          image_url: { title: "Image Url", type: "string", description: "URL of the image to use as the first frame." },
          image_urls: {
            title: "Reference Image Urls",
            type: "array",
            items: { type: "string" },
            description: "Reference images for the subject's look.",
          },
          duration: {
            title: "Duration",
            type: "string",
            enum: ["5", "10"],
            description: "The duration of the generated video in seconds.",
            default: "5",
          },
        },
      },
    },
  );

/** A text-to-speech endpoint (an `audio` File output). */
const falSpeechOpenApi = (endpoint: string) =>
  falQueueOpenApi(
    endpoint,
    { description: "Speaks text.", category: "text-to-speech" },
    {
      SpeechInput: {
        type: "object",
        "x-fal-order-properties": ["text", "voice"],
        required: ["text"],
        properties: {
          text: { title: "Text", type: "string", minLength: 1, description: "The text to speak." },
          voice: {
            title: "Voice",
            type: "string",
            enum: ["Rachel", "Aria"],
            default: "Rachel",
            description: "The voice.",
          },
        },
      },
    },
  );

/** An image-to-3D endpoint in fal-ai/trellis's shape (an `image_url` input, a `model_mesh` File output), trimmed. */
const fal3dOpenApi = (endpoint: string) =>
  falQueueOpenApi(
    endpoint,
    { description: "Generate 3D models from your images using Trellis.", category: "image-to-3d" },
    {
      InputModel: {
        title: "InputModel",
        type: "object",
        "x-fal-order-properties": ["image_url", "seed", "texture_size", "mesh_simplify"],
        required: ["image_url"],
        properties: {
          image_url: { title: "Image Url", type: "string", description: "URL of the input image to convert to 3D" },
          seed: {
            anyOf: [{ type: "integer" }, { type: "null" }],
            title: "Seed",
            description: "Random seed for reproducibility",
          },
          texture_size: {
            title: "Texture Size",
            type: "integer",
            enum: [512, 1024, 2048],
            default: 1024,
            description: "Texture resolution",
          },
          mesh_simplify: {
            title: "Mesh Simplify",
            type: "number",
            minimum: 0.9,
            maximum: 0.98,
            default: 0.95,
            description: "Mesh simplification factor",
          },
        },
      },
      ObjectOutput: {
        title: "ObjectOutput",
        type: "object",
        required: ["model_mesh", "timings"],
        properties: {
          model_mesh: { $ref: "#/components/schemas/File" },
          timings: { type: "object", title: "Timings" },
        },
      },
      File: {
        title: "File",
        type: "object",
        properties: {
          url: { type: "string" },
          content_type: { type: "string" },
          file_name: { type: "string" },
          file_size: { type: "integer" },
        },
        required: ["url"],
      },
    },
  );

export const FAKE_FAL_ENDPOINTS: FakeFalEndpoint[] = [
  { id: "fal-ai/flux/dev", modality: "image", openapi: falFluxDevOpenApi() },
  {
    id: "fal-ai/kling-video/v2/image-to-video",
    modality: "video",
    openapi: falVideoOpenApi("fal-ai/kling-video/v2/image-to-video"),
  },
  { id: "fal-ai/speech/tts", modality: "audio", openapi: falSpeechOpenApi("fal-ai/speech/tts") },
  { id: "fal-ai/trellis", modality: "3d", openapi: fal3dOpenApi("fal-ai/trellis") },
];

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

const CONTENT_POLICY = {
  detail: [
    {
      loc: ["body", "prompt"],
      msg: "The content could not be processed because it contained material flagged by a content checker.",
      type: "content_policy_violation",
      url: "https://docs.fal.ai/errors#content_policy_violation",
    },
  ],
};

export async function startFalFake(
  options: { port?: number; mediaPort?: number; key?: string; endpoints?: FakeFalEndpoint[] } = {},
): Promise<FalFake> {
  const key = options.key ?? "fal_fake_key_id:fal_fake_key_secret";
  const endpoints = options.endpoints ?? FAKE_FAL_ENDPOINTS;
  const media = await startMediaHost(options.mediaPort ?? 0);
  const created: Array<(r: FakeFalRequest) => void> = [];
  const injected = injectedAnswers();

  async function outputOf(endpoint: FakeFalEndpoint, r: FakeFalRequest): Promise<{ status: number; body: unknown }> {
    const { input, id } = r;
    if (r.missingFiles.length > 0) {
      const detail = r.missingFiles.map((field) => ({
        loc: [
          "body",
          ...field
            .split(/[[\]]/)
            .filter(Boolean)
            .map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
        ],
        msg: "Failed to download the file. Please check if the URL is accessible.",
        type: "file_download_error",
        url: "https://docs.fal.ai/errors#file_download_error",
      }));
      return { status: 422, body: { detail } };
    }
    if (/refuse/i.test(String(input.prompt ?? input.text ?? ""))) return { status: 422, body: CONTENT_POLICY };
    if (endpoint.modality === "image") {
      const count = typeof input.num_images === "number" ? input.num_images : 1;
      const images = [];
      for (let i = 0; i < count; i++) {
        const file = await fakeMedia("image", `${String(input.prompt)}#${i}`);
        images.push({
          url: media.put(`fal/${id}/${i}.${file.ext}`, file.data, file.type),
          width: 64,
          height: 48,
          content_type: file.type,
        });
      }
      return {
        status: 200,
        body: {
          images,
          timings: { inference: 0.4 },
          seed: 42,
          has_nsfw_concepts: images.map(() => false),
          prompt: input.prompt,
        },
      };
    }
    const file = await fakeMedia(endpoint.modality, String(input.prompt ?? input.text ?? input.image_url));
    const fileObject = {
      url: media.put(`fal/${id}/output.${file.ext}`, file.data, file.type),
      content_type: file.type,
      file_name: `output.${file.ext}`,
      file_size: file.data.length,
    };
    if (endpoint.modality === "3d")
      return { status: 200, body: { model_mesh: fileObject, timings: { prepare: 0.1, generation: 0.6, export: 0.2 } } };
    // A thumbnail beside the video, as some endpoints give: not an output of a video entry.
    if (endpoint.modality === "video") {
      const thumb = await fakeMedia("image", "thumbnail");
      return {
        status: 200,
        body: {
          video: fileObject,
          thumbnail: { url: media.put(`fal/${id}/thumb.png`, thumb.data, thumb.type), content_type: "image/png" },
        },
      };
    }
    return { status: 200, body: { audio: fileObject } };
  }

  async function complete(r: FakeFalRequest): Promise<void> {
    const endpoint = endpoints.find((e) => e.id === r.endpoint)!;
    const result = await outputOf(endpoint, r);
    ended(r, result);
    r.logs.push({ message: "Done.", level: "INFO", source: "USER", timestamp: new Date().toISOString() });
  }

  /** COMPLETED with `result`, told to the request's webhook as fal tells it (the result's body as `payload`). */
  function ended(r: FakeFalRequest, result: { status: number; body: unknown }): void {
    r.result = result;
    r.status = "COMPLETED";
    if (!r.webhook) return;
    const ok = result.status >= 200 && result.status < 300;
    sendFakeWebhook(fake.webhooks, r.webhook, "completed", {
      request_id: r.id,
      gateway_request_id: r.id,
      status: ok ? "OK" : "ERROR",
      payload: result.body,
      error: ok ? null : `Invalid status code: ${result.status}`,
    });
  }

  /** The endpoint a queue URL names: fal drops the sub-path for status/result/cancel. */
  function requestFor(owner: string, alias: string, id: string): FakeFalRequest | null {
    const r = fake.queue.get(id);
    return r && r.endpoint.split("/").slice(0, 2).join("/") === `${owner}/${alias}` ? r : null;
  }

  /** fal's `queue_position` of a queued request: how many are ahead of it (0: it starts next). */
  function queuePosition(r: FakeFalRequest): number {
    let earlier = 0;
    for (const other of fake.queue.values()) {
      if (other === r) break;
      if (other.endpoint === r.endpoint && other.status === "IN_QUEUE") earlier += 1;
    }
    return r.ahead + earlier;
  }

  function urls(r: FakeFalRequest) {
    const base = `${fake.url}/${r.endpoint.split("/").slice(0, 2).join("/")}/requests/${r.id}`;
    return { request_id: r.id, response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
  }

  async function route(
    method: string,
    url: URL,
    headers: IncomingHttpHeaders,
    body: string,
    res: ServerResponse,
  ): Promise<void> {
    const path = url.pathname;
    if (method === "GET" && path === "/api/openapi/queue/openapi.json") {
      const endpoint = endpoints.find((e) => e.id === url.searchParams.get("endpoint_id"));
      return endpoint ? json(res, 200, endpoint.openapi) : json(res, 404, { detail: "Endpoint not found" });
    }
    if (headers.authorization !== `Key ${key}`) return json(res, 401, { detail: "Unauthorized" });
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/platform/v1/models/pricing") {
      // fal's Platform API pricing (docs.fal.ai/platform-apis/v1/models/pricing): 1–50 endpoint
      // ids, comma-separated or repeated. An id it does not price is left out (not documented).
      const ids = url.searchParams
        .getAll("endpoint_id")
        .flatMap((v) => v.split(","))
        .filter(Boolean);
      if (ids.length < 1 || ids.length > 50)
        return json(res, 422, {
          detail: [{ loc: ["query", "endpoint_id"], msg: "1 to 50 endpoint ids", type: "value_error" }],
        });
      const prices = endpoints
        .filter((e) => ids.includes(e.id))
        .map((e) => ({ endpoint_id: e.id, ...PRICES[e.modality], currency: "USD" }));
      return json(res, 200, { prices, next_cursor: null, has_more: false });
    }
    if (method === "POST" && (m = /^\/rest\/storage\/upload\/(initiate|initiate-multipart)$/.exec(path))) {
      let file: { content_type?: unknown; file_name?: unknown };
      try {
        file = JSON.parse(body || "{}") as typeof file;
      } catch {
        return json(res, 422, { detail: [{ loc: ["body"], msg: "Invalid JSON", type: "value_error.jsondecode" }] });
      }
      const missing = (["content_type", "file_name"] as const).filter(
        (field) => typeof file[field] !== "string" || !file[field],
      );
      if (missing.length > 0)
        return json(res, 422, {
          detail: missing.map((field) => ({
            loc: ["body", field],
            msg: "field required",
            type: "value_error.missing",
          })),
        });
      const open = m[1] === "initiate" ? fake.media.openUpload : fake.media.openMultipartUpload;
      const slot = open(String(file.file_name), String(file.content_type));
      return json(res, 200, { upload_url: slot.uploadUrl, file_url: slot.fileUrl });
    }
    if ((m = /^\/([^/]+)\/([^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(path))) {
      const r = requestFor(m[1]!, m[2]!, m[3]!);
      if (m[4] === "/cancel" && method === "PUT") {
        if (!r) return json(res, 404, { status: "NOT_FOUND" });
        if (r.status === "COMPLETED") return json(res, 400, { status: "ALREADY_COMPLETED" });
        r.canceled = r.status === "IN_QUEUE" ? "queued" : "running";
        ended(r, { status: 400, body: { detail: "Request was cancelled" } });
        return json(res, 202, { status: "CANCELLATION_REQUESTED" });
      }
      if (!r) return json(res, 404, { detail: "Request not found" });
      if (m[4] === "/status" && method === "GET") {
        const logs = url.searchParams.get("logs") === "1" ? r.logs : [];
        if (r.status === "IN_QUEUE")
          return json(res, 200, { status: "IN_QUEUE", queue_position: queuePosition(r), ...urls(r) });
        if (r.status === "IN_PROGRESS") return json(res, 202, { status: "IN_PROGRESS", logs, ...urls(r) });
        return json(res, 200, { status: "COMPLETED", logs, metrics: { inference_time: 0.4 }, ...urls(r) });
      }
      if (!m[4] && method === "GET") {
        if (r.status !== "COMPLETED" || !r.result) return json(res, 400, { detail: "Request is still in progress" });
        return json(res, r.result.status, r.result.body, { "x-fal-request-id": r.id });
      }
    }
    const sync = path.startsWith("/run/");
    const endpoint =
      method === "POST" ? endpoints.find((e) => `/${e.id}` === (sync ? path.slice(4) : path)) : undefined;
    if (!endpoint) return json(res, 404, { detail: "Application not found" });
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body || "{}") as Record<string, unknown>;
    } catch {
      return json(res, 422, { detail: [{ loc: ["body"], msg: "Invalid JSON", type: "value_error.jsondecode" }] });
    }
    // The model reads its input files: a data URI, or a file on fal's media host (uploaded there).
    const read = readInputFiles(
      input,
      (url) => url.startsWith(`${fake.media.url}/`),
      (url) => {
        const file = fake.media.read(url);
        return file ? { data: file.data, contentType: file.type } : null;
      },
    );
    const r: FakeFalRequest = {
      id: randomUUID(),
      endpoint: endpoint.id,
      input,
      status: "IN_QUEUE",
      ahead: fake.queueAhead,
      canceled: null,
      logs: [],
      result: null,
      inputFiles: read.files,
      missingFiles: read.missing,
      webhook: sync ? null : url.searchParams.get("fal_webhook"),
    };
    if (sync) {
      const result = await outputOf(endpoint, r);
      return json(res, result.status, result.body, { "x-fal-request-id": r.id });
    }
    fake.queue.set(r.id, r);
    for (const notify of created.splice(0)) notify(r);
    if (fake.mode === "auto" && fake.autoDelayMs > 0) {
      // It runs on its own and ends later.
      const timer = setTimeout(() => {
        if (r.status !== "COMPLETED") void complete(r).catch(() => undefined);
      }, fake.autoDelayMs);
      timer.unref();
    } else if (fake.mode === "auto") await complete(r);
    return json(res, 200, { status: "IN_QUEUE", queue_position: queuePosition(r), ...urls(r) });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const url = new URL(req.url ?? "/", "http://fal.local");
      const body = Buffer.concat(chunks).toString("utf8");
      fake.requests.push({ method, path: url.pathname + url.search, headers: req.headers, body });
      const next = url.pathname.startsWith("/api/openapi/") ? undefined : injected.next();
      if (next === "hang") return;
      if (next) return json(res, next.status, next.body, next.headers);
      route(method, url, req.headers, body, res).catch((err: Error) => {
        if (!res.headersSent) json(res, 500, { detail: err.message, error_type: "internal_error" });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = (id: string) => {
    const r = fake.queue.get(id);
    if (!r) throw new Error(`fal fake: no request ${id}`);
    return r;
  };
  const fake: FalFake = {
    url: origin,
    runUrl: `${origin}/run`,
    restUrl: `${origin}/rest`,
    platformUrl: `${origin}/platform/v1`,
    key,
    media,
    mode: "auto",
    requests: [],
    queue: new Map(),
    queueAhead: 0,
    autoDelayMs: 0,
    webhooks: [],
    failNext: injected.failNext,
    hangNext: injected.hangNext,
    nextRequest: () => new Promise((resolve) => created.push(resolve)),
    setAhead(id, ahead) {
      get(id).ahead = ahead;
    },
    start(id) {
      const r = get(id);
      r.status = "IN_PROGRESS";
      r.logs.push({ message: "Generating...", level: "INFO", source: "USER", timestamp: new Date().toISOString() });
    },
    step(id, done, total) {
      get(id).logs.push({
        message: `${Math.round((done / total) * 100)}%|| ${done}/${total} [00:01<00:01]`,
        level: "INFO",
        source: "USER",
        timestamp: new Date().toISOString(),
      });
    },
    complete: (id) => complete(get(id)),
    completeWithError(id, status, body) {
      ended(get(id), { status, body });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await media.close();
    },
  };
  return fake;
}
