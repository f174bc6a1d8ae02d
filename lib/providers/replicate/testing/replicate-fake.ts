// For tests: a local Replicate, written from its public HTTP API reference
// (replicate.com/docs/reference/http): predictions created through a version or a model's
// endpoint, `Prefer: wait[=n]` holding the create request, GET and cancel, models and versions
// with their OpenAPI schemas, RFC 7807 errors, Bearer auth. Jobs move only when the test says
// (mode "manual": starting → processing → succeeded/failed) or at once (mode "auto"); a prompt
// holding "refuse" fails its prediction as Replicate's safety checker does; a succeeded one tells
// the seconds it ran in `metrics.predict_time` (`predictTime`, 0.5 unless set). Outputs link to a
// media host on another origin (replicate.delivery), as real media; a 3D model answers an object
// of them, as firtoz/trellis does (`model_file`: the .glb; `no_background_images`: PNGs). The Files API takes uploads
// (POST /v1/files, multipart `content` + `metadata`, up to `maxFileBytes`, else 413; GET, list,
// DELETE); a prediction's model reads its input files (data URIs, or the `urls.get` of an
// uploaded file: one it does not hold fails the prediction) into `inputFiles`. GET /v1/account
// answers the token's account (what a connection check reads). A prediction created with a
// `webhook` gets the prediction POSTed there at the events its `webhook_events_filter` names
// (start, output, logs, completed; output and completed when it names none), as Replicate does;
// a filter naming anything else is refused with 422.
import { createHash, randomBytes } from "node:crypto";
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

export interface FakeReplicateModel {
  owner: string;
  name: string;
  description: string;
  isOfficial: boolean;
  versionId: string;
  modality: FakeModality;
  /** The version's OpenAPI schema (components.schemas.Input / Output). */
  openapiSchema: Record<string, unknown>;
  /** The input of the model's `default_example` (a prediction shown on its page); none when absent. */
  defaultExample?: Record<string, unknown>;
}

export type FakeStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled" | "aborted";

export interface FakePrediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: FakeStatus;
  output: unknown;
  error: string | null;
  logs: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** Whether the create request asked to wait (Prefer: wait). */
  preferWait: string | null;
  /** The files its input names, as its model read them (by field; "field[i]" in a list). */
  inputFiles: Record<string, FakeInputFile>;
  /** Seconds it ran, as Replicate bills it: its `metrics.predict_time` once it succeeded. */
  predictTime: number;
  /** The `webhook` it was created with; null: none. */
  webhook: string | null;
  /** Its `webhook_events_filter`; null: none given. */
  webhookEventsFilter: WebhookEvent[] | null;
}

/** Replicate's webhook events. */
export const WEBHOOK_EVENTS = ["start", "output", "logs", "completed"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A file uploaded through the Files API. */
export interface FakeReplicateFile {
  id: string;
  name: string;
  contentType: string;
  data: Buffer;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export interface ReplicateFake extends HostedFake {
  /** The API base, as a provider's base_url: http://127.0.0.1:P/v1 */
  url: string;
  token: string;
  predictions: Map<string, FakePrediction>;
  /** Files uploaded through the Files API, by id. */
  files: Map<string, FakeReplicateFile>;
  /** The largest file POST /v1/files takes (Replicate documents 100 MB); larger ones answer 413. */
  maxFileBytes: number;
  /** The `metrics.predict_time` of the predictions created from now on (seconds; 0.5 unless set). */
  predictTime: number;
  /** Resolves with the next prediction created (or the first already created after `after`). */
  nextPrediction(): Promise<FakePrediction>;
  start(id: string): void;
  /** Prints a tqdm bar of a processing prediction's steps to its logs, as diffusion models do. */
  step(id: string, done: number, total: number): void;
  succeed(id: string): Promise<void>;
  fail(id: string, error: string): void;
  abort(id: string): void;
}

/** A version's OpenAPI schema in the shape Cog publishes: its Input (required fields and properties), its Output and the enums they refer to. */
function cogSchema(
  required: string[],
  properties: Record<string, unknown>,
  output: Record<string, unknown>,
  enums: Record<string, unknown>,
) {
  return {
    openapi: "3.0.2",
    info: { title: "Cog", version: "0.1.0" },
    paths: {},
    components: {
      schemas: { Input: { type: "object", title: "Input", required, properties }, Output: output, ...enums },
    },
  };
}

/** Black Forest Labs' FLUX.1 [schnell] as Replicate publishes its version's schema (trimmed to the input that matters). */
export const FLUX_SCHNELL_SCHEMA = cogSchema(
  ["prompt"],
  {
    seed: { type: "integer", title: "Seed", "x-order": 3, description: "Random seed. Set for reproducible generation" },
    prompt: { type: "string", title: "Prompt", "x-order": 0, description: "Prompt for generated image" },
    go_fast: {
      type: "boolean",
      title: "Go Fast",
      default: true,
      "x-order": 7,
      description:
        "Run faster predictions with model optimized for speed (currently fp8 quantized); disable to run in original bf16",
    },
    megapixels: {
      allOf: [{ $ref: "#/components/schemas/megapixels" }],
      default: "1",
      "x-order": 8,
      description: "Approximate number of megapixels for generated image",
    },
    num_outputs: {
      type: "integer",
      title: "Num Outputs",
      default: 1,
      maximum: 4,
      minimum: 1,
      "x-order": 2,
      description: "Number of outputs to generate",
    },
    aspect_ratio: {
      allOf: [{ $ref: "#/components/schemas/aspect_ratio" }],
      default: "1:1",
      "x-order": 1,
      description: "Aspect ratio for the generated image",
    },
    output_format: {
      allOf: [{ $ref: "#/components/schemas/output_format" }],
      default: "webp",
      "x-order": 4,
      description: "Format of the output images",
    },
    output_quality: {
      type: "integer",
      title: "Output Quality",
      default: 80,
      maximum: 100,
      minimum: 0,
      "x-order": 5,
      description:
        "Quality when saving the output images, from 0 to 100. 100 is best quality, 0 is lowest quality. Not relevant for .png outputs",
    },
    num_inference_steps: {
      type: "integer",
      title: "Num Inference Steps",
      default: 4,
      maximum: 4,
      minimum: 1,
      "x-order": 9,
      description:
        "Number of denoising steps. 4 is recommended, and lower number of steps produce lower quality outputs, faster.",
    },
    disable_safety_checker: {
      type: "boolean",
      title: "Disable Safety Checker",
      default: false,
      "x-order": 6,
      description: "Disable safety checker for generated images.",
    },
  },
  { type: "array", items: { type: "string", format: "uri" }, title: "Output" },
  {
    Status: {
      enum: ["starting", "processing", "succeeded", "canceled", "failed"],
      type: "string",
      title: "Status",
      description: "An enumeration.",
    },
    megapixels: { enum: ["1", "0.25"], type: "string", title: "megapixels", description: "An enumeration." },
    aspect_ratio: {
      enum: ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"],
      type: "string",
      title: "aspect_ratio",
      description: "An enumeration.",
    },
    output_format: {
      enum: ["webp", "jpg", "png"],
      type: "string",
      title: "output_format",
      description: "An enumeration.",
    },
  },
);

/** An image-to-video model in the shape Cog publishes (an image URL input, a URL output). */
export const IMAGE_TO_VIDEO_SCHEMA = cogSchema(
  ["prompt"],
  {
    prompt: { type: "string", title: "Prompt", "x-order": 0, description: "Text prompt for video generation" },
    start_image: {
      type: "string",
      title: "Start Image",
      format: "uri",
      "x-order": 1,
      description: "First frame of the video (optional)",
    },
    duration: {
      allOf: [{ $ref: "#/components/schemas/duration" }],
      default: 5,
      "x-order": 2,
      description: "Duration of the video in seconds",
    },
    fps: {
      type: "integer",
      title: "Fps",
      default: 24,
      minimum: 8,
      maximum: 30,
      "x-order": 3,
      description: "Frames per second",
    },
  },
  { type: "string", title: "Output", format: "uri" },
  {
    duration: { enum: [5, 10], type: "integer", title: "duration", description: "An enumeration." },
  },
);

/** A text-to-speech model in Cog's shape. */
export const TEXT_TO_SPEECH_SCHEMA = cogSchema(
  ["text"],
  {
    text: { type: "string", title: "Text", "x-order": 0, description: "Text to speak" },
    voice: {
      allOf: [{ $ref: "#/components/schemas/voice" }],
      default: "af_bella",
      "x-order": 1,
      description: "Voice to use",
    },
    speed: {
      type: "number",
      title: "Speed",
      default: 1,
      minimum: 0.5,
      maximum: 2,
      "x-order": 2,
      description: "Speech speed multiplier",
    },
  },
  { type: "string", title: "Output", format: "uri" },
  {
    voice: { enum: ["af_bella", "am_adam", "bf_emma"], type: "string", title: "voice", description: "An enumeration." },
  },
);

/** An image-to-3D model in the shape firtoz/trellis publishes (a list of image URLs in; an object of file URLs out), trimmed. */
export const IMAGE_TO_3D_SCHEMA = cogSchema(
  ["images"],
  {
    images: {
      type: "array",
      items: { type: "string", format: "uri" },
      title: "Images",
      "x-order": 0,
      description: "List of input images to generate 3D asset from",
    },
    seed: { type: "integer", title: "Seed", default: 0, "x-order": 1, description: "Random seed for generation" },
    generate_model: {
      type: "boolean",
      title: "Generate Model",
      default: false,
      "x-order": 2,
      description: "Generate a GLB model",
    },
    texture_size: {
      type: "integer",
      title: "Texture Size",
      default: 1024,
      maximum: 2048,
      minimum: 512,
      "x-order": 3,
      description: "GLB extraction - Texture size (only used if generate_model=True)",
    },
  },
  {
    type: "object",
    title: "Output",
    properties: {
      model_file: { type: "string", title: "Model File", format: "uri" },
      no_background_images: { type: "array", items: { type: "string", format: "uri" }, title: "No Background Images" },
    },
  },
  {},
);

export const FAKE_REPLICATE_MODELS: FakeReplicateModel[] = [
  {
    owner: "black-forest-labs",
    name: "flux-schnell",
    description: "The fastest image generation model tailored for local development and personal use",
    isOfficial: true,
    versionId: "5599ed30703defd1d160a25a63321b4dec97101d98b4674bcc56e41f62f35637",
    modality: "image",
    openapiSchema: FLUX_SCHNELL_SCHEMA,
    defaultExample: { prompt: 'black forest gateau cake spelling out the words "FLUX SCHNELL"', num_outputs: 1 },
  },
  {
    owner: "acme-video",
    name: "clipmaker",
    description: "Short clips from a prompt and an optional first frame",
    isOfficial: false,
    versionId: "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
    modality: "video",
    openapiSchema: IMAGE_TO_VIDEO_SCHEMA,
    defaultExample: { prompt: "a lighthouse at dusk", start_image: "https://replicate.delivery/lighthouse.png" },
  },
  {
    owner: "acme-voice",
    name: "speaker",
    description: "Reads text aloud",
    isOfficial: false,
    versionId: "f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f",
    modality: "audio",
    openapiSchema: TEXT_TO_SPEECH_SCHEMA,
  },
  {
    owner: "firtoz",
    name: "trellis",
    description: "A powerful 3D asset generation model",
    isOfficial: false,
    versionId: "e8f6c45206993f297372f5436b90350817bd9b4a0d52d2a76df50c1c8afa2b3c",
    modality: "3d",
    openapiSchema: IMAGE_TO_3D_SCHEMA,
  },
];

function problem(res: ServerResponse, status: number, title: string, detail: string): void {
  res
    .writeHead(status, { "content-type": "application/problem+json" })
    .end(JSON.stringify({ type: null, title, status, detail }));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

const FINAL: FakeStatus[] = ["succeeded", "failed", "canceled", "aborted"];

export async function startReplicateFake(
  options: { port?: number; mediaPort?: number; token?: string; models?: FakeReplicateModel[] } = {},
): Promise<ReplicateFake> {
  const token = options.token ?? "r8_fake_token_for_tests";
  const models = options.models ?? FAKE_REPLICATE_MODELS;
  const media = await startMediaHost(options.mediaPort ?? 0);
  const waiters = new Map<string, Array<() => void>>();
  const created: Array<(p: FakePrediction) => void> = [];
  const injected = injectedAnswers();

  const modelOf = (p: FakePrediction) => models.find((m) => `${m.owner}/${m.name}` === p.model)!;
  const now = () => new Date().toISOString();

  /** The prediction POSTed to its webhook, as it is now, when its filter takes `event`. */
  function notify(p: FakePrediction, event: WebhookEvent): void {
    const events: readonly WebhookEvent[] = p.webhookEventsFilter ?? ["output", "completed"];
    if (p.webhook && events.includes(event)) sendFakeWebhook(fake.webhooks, p.webhook, event, view(p, origin));
  }

  function settle(p: FakePrediction): void {
    if (!FINAL.includes(p.status)) return;
    p.completed_at ??= now();
    for (const wake of waiters.get(p.id) ?? []) wake();
    waiters.delete(p.id);
    notify(p, "completed");
  }

  /** It has started: told once, at the first start. */
  function begin(p: FakePrediction): void {
    if (p.started_at) return;
    p.started_at = now();
    notify(p, "start");
  }

  async function succeed(p: FakePrediction): Promise<void> {
    const model = modelOf(p);
    begin(p);
    p.logs += "Running prediction...\n100%|██████████| 4/4 [00:00<00:00]\n";
    if (model.modality === "image") {
      const count = typeof p.input.num_outputs === "number" ? p.input.num_outputs : 1;
      const urls: string[] = [];
      for (let i = 0; i < count; i++) {
        const file = await fakeMedia("image", `${String(p.input.prompt)}#${i}`);
        urls.push(media.put(`replicate/${p.id}/out-${i}.${file.ext}`, file.data, file.type));
      }
      p.output = urls;
    } else if (model.modality === "3d") {
      const images = Array.isArray(p.input.images) ? p.input.images.map(String) : [];
      const glb = await fakeMedia("3d", `${images[0] ?? ""}#${String(p.input.seed ?? 0)}`);
      const cutout = await fakeMedia("image", "no background");
      // Like the real one, it writes the .glb only when asked to (generate_model, false by default).
      p.output = {
        ...(p.input.generate_model === true
          ? { model_file: media.put(`replicate/${p.id}/output.glb`, glb.data, glb.type) }
          : {}),
        no_background_images: [media.put(`replicate/${p.id}/no_background_0.png`, cutout.data, cutout.type)],
      };
    } else {
      const file = await fakeMedia(model.modality, String(p.input.prompt ?? p.input.text));
      p.output = media.put(`replicate/${p.id}/output.${file.ext}`, file.data, file.type);
    }
    notify(p, "output");
    p.status = "succeeded";
    settle(p);
  }

  function view(p: FakePrediction, origin: string) {
    const { preferWait: _w, inputFiles: _f, predictTime, webhookEventsFilter, ...rest } = p;
    const base = `${origin}/v1/predictions/${p.id}`;
    // As the reference's succeeded prediction: `"metrics": {"predict_time": …, "total_time": …}`,
    // the time it ran (what Replicate bills) and that with its time in the queue; a prediction
    // that failed or was canceled after it started reports (and is billed) the time it ran too.
    const totalTime = Math.round((predictTime + 0.1) * 1e6) / 1e6;
    const ran = p.status === "succeeded" || ((p.status === "failed" || p.status === "canceled") && p.started_at);
    return {
      ...rest,
      ...(webhookEventsFilter ? { webhook_events_filter: webhookEventsFilter } : {}),
      source: "api",
      data_removed: false,
      metrics: ran ? { predict_time: predictTime, total_time: totalTime } : {},
      urls: { get: base, cancel: `${base}/cancel`, stream: `${origin}/stream/${p.id}` },
    };
  }

  /** An uploaded file's `urls.get`: what a prediction's input names it by. */
  const fileUrl = (origin: string, id: string) => `${origin}/v1/files/${id}`;

  function fileView(file: FakeReplicateFile, origin: string) {
    return {
      id: file.id,
      name: file.name,
      content_type: file.contentType,
      size: file.data.length,
      etag: createHash("md5").update(file.data).digest("hex"),
      checksums: {
        sha256: createHash("sha256").update(file.data).digest("hex"),
        md5: createHash("md5").update(file.data).digest("hex"),
      },
      metadata: file.metadata,
      created_at: file.createdAt,
      expires_at: new Date(Date.parse(file.createdAt) + 24 * 3_600_000).toISOString(),
      urls: { get: fileUrl(origin, file.id) },
    };
  }

  /** POST /v1/files: multipart/form-data with the file in `content` (its name and type) and optional JSON `metadata`. */
  async function createFile(
    headers: IncomingHttpHeaders,
    raw: Buffer,
    res: ServerResponse,
    origin: string,
  ): Promise<void> {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), {
        headers: { "content-type": String(headers["content-type"] ?? "") },
      }).formData();
    } catch {
      return problem(res, 400, "Bad request", "The request body is not multipart/form-data.");
    }
    const content = form.get("content");
    if (!(content instanceof Blob)) return problem(res, 422, "Unprocessable Entity", "content: a file is required");
    if (content.size > fake.maxFileBytes)
      return problem(
        res,
        413,
        "Request Entity Too Large",
        `The file is larger than the ${fake.maxFileBytes} bytes a file may have.`,
      );
    let metadata: Record<string, unknown> = {};
    const meta = form.get("metadata");
    if (meta !== null) {
      try {
        metadata = JSON.parse(typeof meta === "string" ? meta : await meta.text()) as Record<string, unknown>;
      } catch {
        return problem(res, 422, "Unprocessable Entity", "metadata: must be a JSON object");
      }
    }
    const name = String(form.get("filename") ?? "") || (content instanceof File ? content.name : "") || "file";
    const file: FakeReplicateFile = {
      id: randomBytes(13).toString("hex").slice(0, 26),
      name,
      contentType: String(form.get("type") ?? "") || content.type || "application/octet-stream",
      data: Buffer.from(await content.arrayBuffer()),
      metadata,
      createdAt: now(),
    };
    fake.files.set(file.id, file);
    return json(res, 201, fileView(file, origin));
  }

  async function create(
    model: FakeReplicateModel,
    version: string,
    input: Record<string, unknown>,
    prefer: string | null,
    origin: string,
    webhook: { url: string | null; events: WebhookEvent[] | null },
  ): Promise<FakePrediction> {
    // The model reads its input files: an uploaded file's URL it cannot fetch fails the prediction.
    const read = readInputFiles(
      input,
      (url) => url.startsWith(`${origin}/v1/files/`),
      (url) => {
        const file = fake.files.get(url.slice(`${origin}/v1/files/`.length));
        return file ? { data: file.data, contentType: file.contentType } : null;
      },
    );
    const p: FakePrediction = {
      id: randomBytes(13).toString("hex").slice(0, 26),
      model: `${model.owner}/${model.name}`,
      version,
      input,
      status: "starting",
      output: null,
      error: null,
      logs: "",
      created_at: now(),
      started_at: null,
      completed_at: null,
      preferWait: prefer,
      inputFiles: read.files,
      predictTime: fake.predictTime,
      webhook: webhook.url,
      webhookEventsFilter: webhook.events,
    };
    fake.predictions.set(p.id, p);
    for (const notify of created.splice(0)) notify(p);
    if (read.missing.length > 0) {
      begin(p);
      p.status = "failed";
      p.error = `Could not download the file given for ${read.missing.join(", ")}: 404 Not Found`;
      settle(p);
    } else if (fake.mode === "auto" && fake.autoDelayMs > 0) {
      // It runs on its own and ends later; nobody waits on it here.
      const timer = setTimeout(() => void runToTheEnd(p).catch(() => undefined), fake.autoDelayMs);
      timer.unref();
    } else if (fake.mode === "auto") {
      await runToTheEnd(p);
    }
    return p;
  }

  /** "auto" mode: the prediction succeeds, or fails as the safety checker fails a prompt holding "refuse". */
  async function runToTheEnd(p: FakePrediction): Promise<void> {
    if (FINAL.includes(p.status)) return;
    if (/refuse/i.test(String(p.input.prompt ?? p.input.text ?? ""))) {
      begin(p);
      p.status = "failed";
      p.error = "NSFW content detected. Try running it again, or try a different prompt.";
      settle(p);
    } else {
      await succeed(p);
    }
  }

  /** Prefer: wait → hold the answer until the prediction is final or the wait is over. */
  async function hold(p: FakePrediction, prefer: string | null): Promise<void> {
    const match = prefer ? /\bwait(?:=(\d+))?/.exec(prefer) : null;
    if (!match || FINAL.includes(p.status)) return;
    const ms = Math.min(60, Number(match[1] ?? 60)) * 1000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      waiters.set(p.id, [...(waiters.get(p.id) ?? []), () => (clearTimeout(timer), resolve())]);
    });
  }

  async function route(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    raw: Buffer,
    res: ServerResponse,
    origin: string,
  ): Promise<void> {
    if (headers.authorization !== `Bearer ${token}`)
      return problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token");
    const body = raw.toString("utf8");
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/v1/account") {
      // The account the token belongs to (accounts.current), as the API reference shows it.
      return json(res, 200, {
        type: "organization",
        username: "acme",
        name: "Acme Corp",
        github_url: "https://github.com/acme",
      });
    }
    if (method === "POST" && path === "/v1/files") return createFile(headers, raw, res, origin);
    if (method === "GET" && path === "/v1/files") {
      return json(res, 200, {
        next: null,
        previous: null,
        results: [...fake.files.values()].reverse().map((f) => fileView(f, origin)),
      });
    }
    if ((m = /^\/v1\/files\/([^/]+)$/.exec(path)) && (method === "GET" || method === "DELETE")) {
      const file = fake.files.get(m[1]!);
      if (!file) return problem(res, 404, "Not found", "The requested resource could not be found.");
      if (method === "GET") return json(res, 200, fileView(file, origin));
      fake.files.delete(file.id);
      return void res.writeHead(204).end();
    }
    if (method === "GET" && (m = /^\/v1\/models\/([^/]+)\/([^/]+)$/.exec(path))) {
      const model = models.find((x) => x.owner === m![1] && x.name === m![2]);
      if (!model) return problem(res, 404, "Not found", "The requested resource could not be found.");
      return json(res, 200, {
        url: `https://replicate.com/${model.owner}/${model.name}`,
        owner: model.owner,
        name: model.name,
        description: model.description,
        visibility: "public",
        is_official: model.isOfficial,
        run_count: 1234,
        ...(model.defaultExample
          ? {
              default_example: {
                id: `example-${model.name}`,
                model: `${model.owner}/${model.name}`,
                version: model.versionId,
                input: model.defaultExample,
                status: "succeeded",
              },
            }
          : {}),
        latest_version: {
          id: model.versionId,
          created_at: "2026-10-01T00:00:00.000Z",
          cog_version: "0.9.0",
          openapi_schema: model.openapiSchema,
        },
      });
    }
    if (method === "GET" && (m = /^\/v1\/models\/([^/]+)\/([^/]+)\/versions\/([^/]+)$/.exec(path))) {
      const model = models.find((x) => x.owner === m![1] && x.name === m![2] && x.versionId === m![3]);
      if (!model) return problem(res, 404, "Not found", "The requested resource could not be found.");
      return json(res, 200, {
        id: model.versionId,
        created_at: "2026-10-01T00:00:00.000Z",
        cog_version: "0.9.0",
        openapi_schema: model.openapiSchema,
      });
    }
    const createModel = method === "POST" ? /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path) : null;
    if (createModel || (method === "POST" && path === "/v1/predictions")) {
      let parsed: { version?: unknown; input?: unknown; webhook?: unknown; webhook_events_filter?: unknown };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        return problem(res, 400, "Bad request", "The request body is not valid JSON.");
      }
      const model = createModel
        ? models.find((x) => x.owner === createModel[1] && x.name === createModel[2])
        : models.find(
            (x) => x.versionId === parsed.version || `${x.owner}/${x.name}:${x.versionId}` === parsed.version,
          );
      if (!model) return problem(res, 404, "Not found", "The requested resource could not be found.");
      if (createModel && !model.isOfficial)
        return problem(res, 404, "Not found", "This model has no model endpoint: create predictions with a version.");
      const input = parsed.input && typeof parsed.input === "object" ? (parsed.input as Record<string, unknown>) : {};
      const schema = (model.openapiSchema.components as { schemas: { Input: { required?: string[] } } }).schemas.Input;
      const missing = (schema.required ?? []).filter((name) => input[name] === undefined);
      if (missing.length > 0)
        return problem(
          res,
          422,
          "Input validation failed",
          missing.map((name) => `- input: ${name} is required`).join("\n"),
        );
      const filter = parsed.webhook_events_filter;
      if (
        filter !== undefined &&
        !(Array.isArray(filter) && filter.every((e) => (WEBHOOK_EVENTS as readonly unknown[]).includes(e)))
      )
        return problem(
          res,
          422,
          "Input validation failed",
          `- webhook_events_filter: each must be one of ${WEBHOOK_EVENTS.join(", ")}`,
        );
      if (parsed.webhook !== undefined && (typeof parsed.webhook !== "string" || !URL.canParse(parsed.webhook)))
        return problem(res, 422, "Input validation failed", "- webhook: must be a valid URL");
      const prefer = typeof headers.prefer === "string" ? headers.prefer : null;
      const p = await create(model, model.versionId, input, prefer, origin, {
        url: (parsed.webhook as string | undefined) ?? null,
        events: (filter as WebhookEvent[] | undefined) ?? null,
      });
      await hold(p, prefer);
      return json(res, 201, view(p, origin));
    }
    if (method === "GET" && (m = /^\/v1\/predictions\/([^/]+)$/.exec(path))) {
      const p = fake.predictions.get(m[1]!);
      return p
        ? json(res, 200, view(p, origin))
        : problem(res, 404, "Not found", "The requested resource could not be found.");
    }
    if (method === "POST" && (m = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path))) {
      const p = fake.predictions.get(m[1]!);
      if (!p) return problem(res, 404, "Not found", "The requested resource could not be found.");
      if (!FINAL.includes(p.status)) {
        p.status = "canceled";
        settle(p);
      }
      return json(res, 200, view(p, origin));
    }
    problem(res, 404, "Not found", "The requested resource could not be found.");
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const path = (req.url ?? "/").split("?")[0]!;
      const raw = Buffer.concat(chunks);
      fake.requests.push({ method, path, headers: req.headers, body: raw.toString("utf8") });
      const next = injected.next();
      if (next === "hang") return;
      if (next)
        return void res
          .writeHead(next.status, { "content-type": "application/json", ...next.headers })
          .end(JSON.stringify(next.body));
      route(method, path, req.headers, raw, res, `http://${req.headers.host}`).catch((err: Error) => {
        if (!res.headersSent) problem(res, 500, "Internal server error", err.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const get = (id: string) => {
    const p = fake.predictions.get(id);
    if (!p) throw new Error(`replicate fake: no prediction ${id}`);
    return p;
  };
  const fake: ReplicateFake = {
    url: `${origin}/v1`,
    token,
    media,
    mode: "auto",
    requests: [],
    predictions: new Map(),
    files: new Map(),
    maxFileBytes: 100 * 1024 * 1024,
    predictTime: 0.5,
    autoDelayMs: 0,
    webhooks: [],
    failNext: injected.failNext,
    hangNext: injected.hangNext,
    nextPrediction: () => new Promise((resolve) => created.push(resolve)),
    start(id) {
      const p = get(id);
      p.status = "processing";
      p.logs += "Loading weights...\n";
      begin(p);
    },
    step(id, done, total) {
      const p = get(id);
      const bar = "█".repeat(Math.round((done / total) * 10)).padEnd(10);
      p.logs += `${String(Math.round((done / total) * 100)).padStart(3)}%|${bar}| ${done}/${total} [00:01<00:01]\n`;
      notify(p, "logs");
    },
    succeed: (id) => succeed(get(id)),
    fail(id, error) {
      const p = get(id);
      p.status = "failed";
      p.error = error;
      settle(p);
    },
    abort(id) {
      const p = get(id);
      p.status = "aborted";
      settle(p);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await media.close();
    },
  };
  return fake;
}
