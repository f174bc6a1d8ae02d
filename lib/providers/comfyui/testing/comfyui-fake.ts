// For tests (Vitest and the API e2e suite): a local stand-in for a ComfyUI server, written from
// ComfyUI's HTTP API (server.py, execution.py). It validates a workflow the way
// POST /prompt does (unknown node classes, missing inputs, links to missing nodes, a checkpoint it
// does not have, an image it was never sent: 400 with `error` and `node_errors`), keeps one queue
// (one prompt runs at a time), and "executes" a prompt by making real media for its output nodes:
// PNGs (SaveImage; PreviewImage as "temp"), an H.264 MP4 (VHS_VideoCombine under `gifs`, core
// SaveVideo under `images` + `animated`), FLAC (SaveAudio), a glTF binary laid out as core SaveGLB
// writes one (positions and 32-bit indices, under `3d`; a Hunyuan3D v2 graph's nodes), at the
// size, count and length its upstream nodes ask for. GET /history/{id} is `{}` until a prompt ends. Execution is instant,
// held until `release()` (cancel while running), or stalled in the queue (cancel while queued).
// GET /system_stats answers one CUDA device, as server.py reports it (what a connection check reads);
// GET /prompt how many prompts remain (queued plus running), as ComfyUI's queue_remaining.
// (Its media comes from fake-media.ts, which runs ffmpeg itself: Playwright loads it as CommonJS,
// which lib/media/ffmpeg.ts, using import.meta, cannot be.)
import { randomUUID } from "node:crypto";
import { WebSocketServer, type WebSocket } from "ws";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import sharp from "sharp";
import type { ComfyGraph } from "../comfyui-workflow";
import { fakeMp4, fakePng, ffmpegFile, findFfmpeg, textHash } from "../../testing/fake-media";
import { roundedBox } from "../../../models/three-d/primitives";

export interface FakeRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface FakeUpload {
  name: string;
  subfolder: string;
  type: string;
  overwrite: string | null;
  contentType: string;
  data: Buffer;
}

/** instant: a prompt runs as soon as it is first in the queue; hold: it runs until release(); stalled: nothing leaves the queue. */
export type FakeMode = "instant" | "hold" | "stalled";

export type FakeAnswer = { status: number; body?: unknown } | "hang";

export interface FakeComfy {
  url: string;
  requests: FakeRequest[];
  /** Every prompt accepted by POST /prompt, as received. */
  prompts: Array<{ id: string; prompt: ComfyGraph; client_id: unknown }>;
  uploads: FakeUpload[];
  /** Prompts taken out of the queue by POST /queue {delete}. */
  deleted: string[];
  /** Prompts stopped by POST /interrupt while they ran. */
  interrupted: string[];
  /** When set, the next prompt to run fails at this node (or its first sampler) with this message. */
  failExecution: { node?: string; message: string } | null;
  /** Milliseconds POST /prompt holds its answer after the prompt has started (a slow network). */
  promptAnswerDelayMs: number;
  readonly mode: FakeMode;
  setMode(mode: FakeMode): void;
  /** Lets the held prompt finish. */
  release(): void;
  /** Sends a sampler step of the running prompt over /ws to the client that queued it (as ComfyUI does). */
  step(value: number, max: number): void;
  /** Client ids connected to /ws now. */
  sockets(): string[];
  /** The prompt running now (held or being made), or null. */
  running(): string | null;
  pending(): string[];
  /** The next `times` requests whose "METHOD /path" starts with `route` get `answer` instead. */
  failNext(route: string, answer: FakeAnswer, times?: number): void;
  close(): Promise<void>;
}

interface NodeClass {
  required: string[];
  outputs: number;
  /** Makes files: which kind. */
  saves?: "image" | "preview" | "vhs" | "video" | "audio" | "glb";
}

const NODE_CLASSES: Record<string, NodeClass> = {
  CheckpointLoaderSimple: { required: ["ckpt_name"], outputs: 3 },
  CLIPTextEncode: { required: ["text", "clip"], outputs: 1 },
  EmptyLatentImage: { required: ["width", "height", "batch_size"], outputs: 1 },
  EmptyLatentAudio: { required: ["seconds", "batch_size"], outputs: 1 },
  KSampler: {
    required: [
      "model",
      "seed",
      "steps",
      "cfg",
      "sampler_name",
      "scheduler",
      "positive",
      "negative",
      "latent_image",
      "denoise",
    ],
    outputs: 1,
  },
  VAEDecode: { required: ["samples", "vae"], outputs: 1 },
  VAEEncode: { required: ["pixels", "vae"], outputs: 1 },
  VAEDecodeAudio: { required: ["samples", "vae"], outputs: 1 },
  LoadImage: { required: ["image"], outputs: 2 },
  CreateVideo: { required: ["images", "fps"], outputs: 1 },
  SaveImage: { required: ["images", "filename_prefix"], outputs: 0, saves: "image" },
  PreviewImage: { required: ["images"], outputs: 0, saves: "preview" },
  VHS_VideoCombine: { required: ["images", "frame_rate", "format", "filename_prefix"], outputs: 1, saves: "vhs" },
  SaveVideo: { required: ["video", "filename_prefix"], outputs: 0, saves: "video" },
  SaveAudio: { required: ["audio", "filename_prefix"], outputs: 0, saves: "audio" },
  // Hunyuan3D v2 (comfy_extras/nodes_hunyuan3d.py; the loader and vision encoder from nodes.py).
  ImageOnlyCheckpointLoader: { required: ["ckpt_name"], outputs: 3 },
  CLIPVisionEncode: { required: ["clip_vision", "image", "crop"], outputs: 1 },
  Hunyuan3Dv2Conditioning: { required: ["clip_vision_output"], outputs: 2 },
  EmptyLatentHunyuan3Dv2: { required: ["resolution", "batch_size"], outputs: 1 },
  VAEDecodeHunyuan3D: { required: ["samples", "vae", "num_chunks", "octree_resolution"], outputs: 1 },
  VoxelToMeshBasic: { required: ["voxel", "threshold"], outputs: 1 },
  SaveGLB: { required: ["mesh", "filename_prefix"], outputs: 0, saves: "glb" },
};

/** GET /object_info for the classes whose inputs take values (ComfyUI's shapes: [type, options] or [[choices], options]). */
const OBJECT_INFO: Record<string, { input: { required: Record<string, unknown[]> } }> = {
  KSampler: {
    input: {
      required: {
        seed: ["INT", { default: 0, min: 0, max: 2 ** 64 }],
        steps: ["INT", { default: 20, min: 1, max: 10000 }],
        cfg: ["FLOAT", { default: 8, min: 0, max: 100, step: 0.1 }],
        sampler_name: [["euler", "euler_ancestral", "dpmpp_2m", "dpmpp_2m_sde", "ddim"], {}],
        scheduler: [["normal", "karras", "exponential", "sgm_uniform"], {}],
        denoise: ["FLOAT", { default: 1, min: 0, max: 1, step: 0.01 }],
      },
    },
  },
  EmptyLatentImage: {
    input: {
      required: {
        width: ["INT", { default: 512, min: 16, max: 16384, step: 8 }],
        height: ["INT", { default: 512, min: 16, max: 16384, step: 8 }],
        batch_size: ["INT", { default: 1, min: 1, max: 4096 }],
      },
    },
  },
  CLIPTextEncode: {
    input: { required: { text: ["STRING", { multiline: true, dynamicPrompts: true }], clip: ["CLIP"] } },
  },
  LoadImage: { input: { required: { image: [[], { image_upload: true }] } } },
};

export const FAKE_CHECKPOINTS = [
  "sd_xl_base_1.0.safetensors",
  "v1-5-pruned-emaonly.safetensors",
  "stable-audio-open-1.0.safetensors",
];
/** What ImageOnlyCheckpointLoader finds besides (ComfyUI lists one folder for both; kept apart so the other list's messages stay as they were). */
const FAKE_3D_CHECKPOINTS = ["hunyuan3d-dit-v2.safetensors"];

const TYPES: Record<string, string> = {
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  mp4: "video/mp4",
  flac: "audio/flac",
  wav: "audio/wav",
  glb: "model/gltf-binary",
};

/**
 * A mesh as ComfyUI's SaveGLB writes it (save_glb in comfy_extras/nodes_hunyuan3d.py): one buffer
 * of float positions then uint32 face indices, two buffer views, two accessors, one mesh, one node,
 * no normals and no material; the prompt in asset.extras. Here a rounded box `size` metres across.
 */
export function comfySavedGlb(size: number, prompt: unknown): Buffer {
  const box = roundedBox([size, size * 0.6, size * 0.8], size * 0.08, { radial: 8, arc: 2 });
  const pad = (b: Buffer, fill: number) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
  const vertices = Buffer.from(box.positions.buffer, box.positions.byteOffset, box.positions.byteLength);
  const faces = Buffer.from(box.indices.buffer, box.indices.byteOffset, box.indices.byteLength);
  const bin = Buffer.concat([pad(vertices, 0), pad(faces, 0)]);
  const min = [0, 1, 2].map((k) => Math.min(...box.positions.filter((_, i) => i % 3 === k)));
  const max = [0, 1, 2].map((k) => Math.max(...box.positions.filter((_, i) => i % 3 === k)));
  const gltf = {
    asset: { version: "2.0", generator: "ComfyUI", extras: { prompt: JSON.stringify(prompt) } },
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: vertices.length, target: 34962 },
      { buffer: 0, byteOffset: pad(vertices, 0).length, byteLength: faces.length, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, byteOffset: 0, componentType: 5126, count: box.positions.length / 3, type: "VEC3", max, min },
      { bufferView: 1, byteOffset: 0, componentType: 5125, count: box.indices.length, type: "SCALAR" },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1, mode: 4 }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  };
  const json = pad(Buffer.from(JSON.stringify(gltf)), 0x20);
  const u32 = (...values: number[]) => Buffer.from(Uint32Array.from(values).buffer);
  return Buffer.concat([
    Buffer.from("glTF", "latin1"),
    u32(2, 12 + 8 + json.length + 8 + bin.length),
    u32(json.length, 0x4e4f534a),
    json,
    u32(bin.length, 0x004e4942),
    bin,
  ]);
}

type QueueItem = [number, string, ComfyGraph, Record<string, unknown>, string[]];
type Reason = { type: string; message: string; details: string; extra_info: Record<string, unknown> };

function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && Number.isInteger(value[1]);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}

/** Values of the nodes upstream of `id` (breadth first, nearest wins): the sizes, counts and words the fake renders. */
function upstreamValues(graph: ComfyGraph, id: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const seen = new Set<string>();
  const queue = [id];
  while (queue.length > 0) {
    const nodeId = queue.shift()!;
    if (seen.has(nodeId) || !graph[nodeId]) continue;
    seen.add(nodeId);
    const node = graph[nodeId]!;
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value)) queue.push(String(value[0]));
      else if (!(name in found)) found[name] = value;
    }
    if (node.class_type === "LoadImage" && !("loaded_image" in found)) found.loaded_image = node.inputs.image;
  }
  return found;
}

export async function startComfyFake(
  options: { port?: number; token?: string; ffmpegPath?: string } = {},
): Promise<FakeComfy> {
  const ffmpegPath = options.ffmpegPath ?? findFfmpeg();
  const files = new Map<string, { data: Buffer; contentType: string }>();
  const history = new Map<string, unknown>();
  const queue: QueueItem[] = [];
  const scripted: Array<{ route: string; answer: FakeAnswer; times: number }> = [];
  const counters = new Map<string, number>();
  let current: { item: QueueItem; release: () => void; interrupted: boolean } | null = null;
  let mode: FakeMode = "instant";
  let number = 0;

  function key(type: string, subfolder: string, name: string): string {
    return `${type}/${subfolder}/${name}`;
  }

  /** ComfyUI's naming: "video/clip" → subfolder "video", "clip_00001_.mp4". */
  function saveFile(
    prefix: string,
    ext: string,
    type: "output" | "temp",
    data: Buffer,
  ): { filename: string; subfolder: string; type: string } {
    const subfolder = path.posix.dirname(prefix) === "." ? "" : path.posix.dirname(prefix);
    const base = path.posix.basename(prefix);
    const counter = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, counter);
    const filename = `${base}_${String(counter).padStart(5, "0")}_.${ext}`;
    files.set(key(type, subfolder, filename), { data, contentType: TYPES[ext] ?? "application/octet-stream" });
    return { filename, subfolder, type };
  }

  const checkpointsOf = (classType: string) =>
    classType === "ImageOnlyCheckpointLoader" ? [...FAKE_CHECKPOINTS, ...FAKE_3D_CHECKPOINTS] : FAKE_CHECKPOINTS;

  function validate(
    prompt: ComfyGraph,
  ): { error: Reason; nodeErrors: Record<string, unknown>; outputs: string[] } | { outputs: string[] } {
    const invalid = (message: string, details: string) => ({
      error: { type: "invalid_prompt", message, details, extra_info: {} },
      nodeErrors: {},
      outputs: [],
    });
    const outputs: string[] = [];
    for (const [id, node] of Object.entries(prompt)) {
      if (!node || typeof node.class_type !== "string")
        return invalid("Cannot execute because a node is missing the class_type property.", `Node ID '#${id}'`);
      const nodeClass = NODE_CLASSES[node.class_type];
      if (!nodeClass)
        return invalid(`Cannot execute because node ${node.class_type} does not exist.`, `Node ID '#${id}'`);
      if (nodeClass.saves) outputs.push(id);
    }
    if (outputs.length === 0)
      return {
        error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
        nodeErrors: {},
        outputs: [],
      };
    const nodeErrors: Record<string, { errors: Reason[]; dependent_outputs: string[]; class_type: string }> = {};
    const good: string[] = [];
    for (const output of outputs) {
      let ok = true;
      const seen = new Set<string>();
      const check = (id: string) => {
        if (seen.has(id)) return;
        seen.add(id);
        const node = prompt[id]!;
        const reasons: Reason[] = [];
        for (const name of NODE_CLASSES[node.class_type]!.required) {
          const value = node.inputs?.[name];
          if (value === undefined) {
            reasons.push({
              type: "required_input_missing",
              message: "Required input is missing",
              details: name,
              extra_info: { input_name: name },
            });
          } else if (isLink(value)) {
            const source = prompt[String(value[0])];
            if (!source)
              reasons.push({
                type: "exception_during_validation",
                message: "Exception when validating node",
                details: `'${value[0]}'`,
                extra_info: { input_name: name },
              });
            else if (value[1] >= NODE_CLASSES[source.class_type]!.outputs) {
              reasons.push({
                type: "return_type_mismatch",
                message: "Return type mismatch between linked nodes",
                details: `${name}, output ${value[1]} of node ${value[0]} does not exist`,
                extra_info: { input_name: name },
              });
            } else check(String(value[0]));
          } else if (name === "ckpt_name" && !checkpointsOf(node.class_type).includes(String(value))) {
            const list = `[${checkpointsOf(node.class_type)
              .map((c) => `'${c}'`)
              .join(", ")}]`;
            reasons.push({
              type: "value_not_in_list",
              message: "Value not in list",
              details: `ckpt_name: '${String(value)}' not in ${list}`,
              extra_info: { input_name: name },
            });
          } else if (
            node.class_type === "LoadImage" &&
            name === "image" &&
            !files.has(
              key("input", path.posix.dirname(String(value)).replace(/^\.$/, ""), path.posix.basename(String(value))),
            )
          ) {
            reasons.push({
              type: "custom_validation_failed",
              message: "Custom validation failed for node",
              details: `image - Invalid image file: ${String(value)}`,
              extra_info: { input_name: name },
            });
          }
        }
        if (reasons.length > 0) {
          ok = false;
          const entry = (nodeErrors[id] ??= { errors: reasons, dependent_outputs: [], class_type: node.class_type });
          entry.dependent_outputs.push(output);
        }
      };
      check(output);
      if (ok) good.push(output);
    }
    if (good.length === 0) {
      const details = Object.values(nodeErrors)
        .flatMap((e) => e.errors.map((r) => `${r.message}: ${r.details}`))
        .join("\n");
      return {
        error: {
          type: "prompt_outputs_failed_validation",
          message: "Prompt outputs failed validation",
          details,
          extra_info: {},
        },
        nodeErrors,
        outputs: [],
      };
    }
    return { outputs: good };
  }

  /** The files one output node saves, as its `ui` output in /history. */
  async function runOutput(prompt: ComfyGraph, id: string, promptId: string): Promise<Record<string, unknown>> {
    const node = prompt[id]!;
    const up = upstreamValues(prompt, id);
    const even = (n: unknown, fallback: number) =>
      Math.max(2, Math.round((typeof n === "number" ? n : fallback) / 2) * 2);
    let width = even(up.width, 64);
    let height = even(up.height, 64);
    if (typeof up.loaded_image === "string" && up.width === undefined) {
      const dir = path.posix.dirname(up.loaded_image);
      const loaded = files.get(key("input", dir === "." ? "" : dir, path.posix.basename(up.loaded_image)));
      const meta = loaded ? await sharp(loaded.data).metadata() : null;
      if (meta?.width && meta.height) [width, height] = [even(meta.width, 64), even(meta.height, 64)];
    }
    const count = typeof up.batch_size === "number" ? Math.max(1, Math.min(16, up.batch_size)) : 1;
    const words = `${String(up.text ?? "")}#${String(up.seed ?? up.noise_seed ?? "")}#${promptId}`;
    const prefix = typeof node.inputs.filename_prefix === "string" ? node.inputs.filename_prefix : "ComfyUI";
    const saves = NODE_CLASSES[node.class_type]!.saves!;
    if (saves === "glb") {
      const meshes = [];
      for (let i = 0; i < count; i++) meshes.push(saveFile(prefix, "glb", "output", comfySavedGlb(1, prompt)));
      return { "3d": meshes };
    }
    if (saves === "image" || saves === "preview") {
      const images = [];
      for (let i = 0; i < count; i++) {
        const data = await fakePng(width, height, `${words}#${i}`);
        images.push(
          saves === "image"
            ? saveFile(prefix, "png", "output", data)
            : saveFile(`ComfyUI_temp_${randomUUID().slice(0, 5)}`, "png", "temp", data),
        );
      }
      return { images };
    }
    if (saves === "audio") {
      const seconds = typeof up.seconds === "number" ? up.seconds : 1;
      const data = await ffmpegFile(ffmpegPath, "flac", [
        "-f",
        "lavfi",
        "-i",
        `sine=frequency=${220 + (textHash(words) % 440)}:sample_rate=44100:duration=${seconds}`,
        "-c:a",
        "flac",
      ]);
      return { audio: [saveFile(prefix, "flac", "output", data)] };
    }
    const fps = Number(node.inputs.frame_rate ?? up.fps ?? 8) || 8;
    const frames = Math.max(2, count);
    const data = await fakeMp4({ width, height, fps, seconds: frames / fps, pattern: "testsrc2", ffmpegPath });
    if (saves === "video") return { images: [saveFile(prefix, "mp4", "output", data)], animated: [true] };
    const saved = saveFile(prefix, "mp4", node.inputs.save_output === false ? "temp" : "output", data);
    return {
      gifs: [
        {
          ...saved,
          format: node.inputs.format ?? "video/h264-mp4",
          frame_rate: fps,
          workflow: saved.filename.replace(/\.mp4$/, ".png"),
        },
      ],
    };
  }

  function finish(
    item: QueueItem,
    outcome:
      | { outputs: Record<string, unknown> }
      | { event: "execution_error" | "execution_interrupted"; data: Record<string, unknown> },
  ): void {
    const [, id] = item;
    const at = Date.now();
    const messages: unknown[] = [
      ["execution_start", { prompt_id: id, timestamp: at }],
      ["execution_cached", { nodes: [], prompt_id: id, timestamp: at }],
    ];
    if ("outputs" in outcome) messages.push(["execution_success", { prompt_id: id, timestamp: at }]);
    else messages.push([outcome.event, { prompt_id: id, ...outcome.data, timestamp: at }]);
    const ok = "outputs" in outcome;
    history.set(id, {
      prompt: item,
      outputs: ok ? outcome.outputs : {},
      status: { status_str: ok ? "success" : "error", completed: ok, messages },
      meta: {},
    });
  }

  async function execute(item: QueueItem): Promise<void> {
    const [, id, prompt, , outputs] = item;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const running = { item, release, interrupted: false };
    current = running;
    try {
      if (mode === "hold") await released;
      if (running.interrupted) {
        const node = Object.keys(prompt)[0]!;
        finish(item, {
          event: "execution_interrupted",
          data: { node_id: node, node_type: prompt[node]!.class_type, executed: [] },
        });
        return;
      }
      const failure = fake.failExecution;
      if (failure) {
        fake.failExecution = null;
        const node =
          failure.node ??
          Object.keys(prompt).find((n) => prompt[n]!.class_type === "KSampler") ??
          Object.keys(prompt)[0]!;
        finish(item, {
          event: "execution_error",
          data: {
            node_id: node,
            node_type: prompt[node]?.class_type ?? "",
            executed: [],
            exception_message: failure.message,
            exception_type: "RuntimeError",
            traceback: ['  File "execution.py", line 496, in execute\n'],
            current_inputs: {},
            current_outputs: [],
          },
        });
        return;
      }
      const ui: Record<string, unknown> = {};
      for (const output of outputs) ui[output] = await runOutput(prompt, output, id);
      if (running.interrupted) {
        finish(item, {
          event: "execution_interrupted",
          data: { node_id: outputs[0], node_type: prompt[outputs[0]!]!.class_type, executed: [] },
        });
        return;
      }
      finish(item, { outputs: ui });
    } catch (err) {
      finish(item, {
        event: "execution_error",
        data: {
          node_id: outputs[0],
          node_type: "",
          executed: [],
          exception_message: (err as Error).message,
          exception_type: "Exception",
          traceback: [],
        },
      });
    } finally {
      current = null;
      pump();
    }
  }

  function pump(): void {
    if (current || mode === "stalled" || queue.length === 0) return;
    void execute(queue.shift()!);
  }

  async function handle(request: FakeRequest, res: ServerResponse): Promise<void> {
    const url = new URL(request.path, "http://fake");
    const route = `${request.method} ${url.pathname.replace(/^\/api(?=\/)/, "")}`;
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`)
      return void res.writeHead(401).end("401: Unauthorized");
    const script = scripted.find((s) => route.startsWith(s.route));
    if (script) {
      if (--script.times <= 0) scripted.splice(scripted.indexOf(script), 1);
      if (script.answer === "hang") return;
      return json(res, script.answer.status, script.answer.body ?? { error: `HTTP ${script.answer.status}` });
    }
    const body = () => JSON.parse(request.body.toString("utf8") || "{}") as Record<string, unknown>;

    if (route === "POST /prompt") {
      const data = body();
      if (!data.prompt || typeof data.prompt !== "object") {
        return json(res, 400, {
          error: { type: "no_prompt", message: "No prompt provided", details: "No prompt provided", extra_info: {} },
          node_errors: {},
        });
      }
      const prompt = data.prompt as ComfyGraph;
      const id = typeof data.prompt_id === "string" ? data.prompt_id : randomUUID();
      const valid = validate(prompt);
      if ("error" in valid) return json(res, 400, { error: valid.error, node_errors: valid.nodeErrors });
      fake.prompts.push({ id, prompt, client_id: data.client_id });
      const item: QueueItem = [number++, id, prompt, { client_id: data.client_id }, valid.outputs];
      queue.push(item);
      if (fake.promptAnswerDelayMs > 0) {
        pump();
        await new Promise((resolve) => setTimeout(resolve, fake.promptAnswerDelayMs));
        return json(res, 200, { prompt_id: id, number: item[0], node_errors: {} });
      }
      json(res, 200, { prompt_id: id, number: item[0], node_errors: {} });
      pump();
      return;
    }
    if (route === "GET /prompt") {
      // server.py's get_queue_info: tasks remaining = queued plus running.
      return json(res, 200, { exec_info: { queue_remaining: queue.length + (current ? 1 : 0) } });
    }
    if (route.startsWith("GET /history/")) {
      const id = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf("/") + 1));
      return json(res, 200, history.has(id) ? { [id]: history.get(id) } : {});
    }
    if (route === "GET /system_stats") {
      // server.py's system_stats: the box and its one torch device (the name as
      // get_torch_device_name makes it).
      return json(res, 200, {
        system: {
          os: "linux",
          ram_total: 67_108_864_000,
          ram_free: 50_331_648_000,
          comfyui_version: "0.3.66",
          required_frontend_version: "1.28.8",
          python_version: "3.12.3 (main, Aug 14 2025, 17:47:21) [GCC 13.3.0]",
          pytorch_version: "2.8.0+cu128",
          embedded_python: false,
          argv: ["main.py", "--listen", "0.0.0.0"],
        },
        devices: [
          {
            name: "cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync",
            type: "cuda",
            index: 0,
            vram_total: 25_386_352_640,
            vram_free: 24_109_187_072,
            torch_vram_total: 0,
            torch_vram_free: 0,
          },
        ],
      });
    }
    if (route === "GET /object_info") return json(res, 200, OBJECT_INFO);
    if (route.startsWith("GET /object_info/")) {
      const name = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf("/") + 1));
      return json(res, 200, OBJECT_INFO[name] ? { [name]: OBJECT_INFO[name] } : {});
    }
    if (route === "GET /queue") {
      return json(res, 200, { queue_running: current ? [current.item] : [], queue_pending: [...queue] });
    }
    if (route === "POST /queue") {
      const ids = Array.isArray(body().delete) ? (body().delete as unknown[]) : [];
      for (const id of ids) {
        const at = queue.findIndex((item) => item[1] === id);
        if (at >= 0) {
          queue.splice(at, 1);
          fake.deleted.push(String(id));
        }
      }
      return void res.writeHead(200).end();
    }
    if (route === "POST /interrupt") {
      const target = body().prompt_id;
      if (current && (target === undefined || target === current.item[1])) {
        current.interrupted = true;
        fake.interrupted.push(current.item[1]);
        current.release();
      }
      return void res.writeHead(200).end();
    }
    if (route === "POST /upload/image") {
      const form = await new Request("http://fake/upload", {
        method: "POST",
        headers: { "content-type": String(request.headers["content-type"]) },
        body: new Uint8Array(request.body),
      }).formData();
      const image = form.get("image");
      if (!image || typeof image === "string" || !image.name) return void res.writeHead(400).end();
      const type = String(form.get("type") ?? "input");
      const subfolder = String(form.get("subfolder") ?? "");
      const overwrite = form.get("overwrite") === null ? null : String(form.get("overwrite"));
      const data = Buffer.from(await image.arrayBuffer());
      let name = image.name;
      if (overwrite !== "true" && overwrite !== "1") {
        const ext = path.extname(name);
        for (
          let i = 1;
          files.has(key(type, subfolder, name)) && !files.get(key(type, subfolder, name))!.data.equals(data);
          i++
        ) {
          name = `${path.basename(image.name, ext)} (${i})${ext}`;
        }
      }
      files.set(key(type, subfolder, name), { data, contentType: image.type });
      fake.uploads.push({ name, subfolder, type, overwrite, contentType: image.type, data });
      return json(res, 200, { name, subfolder, type });
    }
    if (route === "GET /view") {
      const filename = url.searchParams.get("filename") ?? "";
      const file = files.get(
        key(url.searchParams.get("type") ?? "output", url.searchParams.get("subfolder") ?? "", filename),
      );
      if (!file) return void res.writeHead(404).end("404: Not Found");
      return void res
        .writeHead(200, { "content-type": file.contentType, "content-disposition": `filename="${filename}"` })
        .end(file.data);
    }
    res.writeHead(404).end("404: Not Found");
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: FakeRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      fake.requests.push(request);
      handle(request, res).catch((err: Error) => {
        if (!res.headersSent) json(res, 500, { error: err.message });
      });
    });
  });
  // ComfyUI's websocket: GET /ws?clientId=… (server.py); progress goes to the prompt's client.
  const sockets = new WebSocketServer({ server, path: "/ws" });
  const clients = new Map<WebSocket, string>();
  sockets.on("connection", (ws, req) => {
    clients.set(ws, new URL(req.url ?? "/", "http://fake").searchParams.get("clientId") ?? "");
    ws.on("close", () => clients.delete(ws));
    ws.send(JSON.stringify({ type: "status", data: { status: { exec_info: { queue_remaining: queue.length } } } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  const fake: FakeComfy = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    prompts: [],
    uploads: [],
    deleted: [],
    interrupted: [],
    failExecution: null,
    promptAnswerDelayMs: 0,
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
      pump();
    },
    release() {
      current?.release();
    },
    step(value, max) {
      if (!current) throw new Error("comfyui fake: no prompt is running");
      const promptId = current.item[1];
      const owner = fake.prompts.find((p) => p.id === promptId)?.client_id;
      const message = JSON.stringify({ type: "progress", data: { value, max, prompt_id: promptId, node: "3" } });
      for (const [ws, clientId] of clients) if (clientId === owner) ws.send(message);
    },
    sockets: () => [...clients.values()],
    running: () => (current ? current.item[1] : null),
    pending: () => queue.map((item) => item[1]),
    failNext(route, answer, times = 1) {
      scripted.push({ route, answer, times });
    },
    close: () =>
      new Promise<void>((resolve) => {
        current?.release();
        for (const ws of clients.keys()) ws.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
