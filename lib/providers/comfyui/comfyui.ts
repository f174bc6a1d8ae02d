// One ComfyUI server (the providers file's `kind: "comfyui"`; comfyui-pool.ts makes the adapter
// over one or several of them), spoken to over its own HTTP API
// (ComfyUI's server.py): file inputs go to POST /upload/image (prepareRequest),
// the entry's workflow with the run's input bound into it to POST /prompt, which queues it; the
// engine then polls GET /history/{prompt_id} (`{}` until the run ends) and every output the run
// saved is fetched with GET /view. Cancel deletes a queued prompt (POST /queue {delete}) or
// interrupts a running one (POST /interrupt {prompt_id}). ComfyUI bills nothing, so runs stay
// cancelable.
// Progress comes from its websocket (comfyui-progress.ts: the `progress` messages' sampler step
// value/max of our own prompts), handed to the engine with each pending poll.
import { comfyProgress, type ComfyProgress } from "./comfyui-progress";
import path from "node:path";
import { describeFiles, failureOf, savedFiles, type SavedFile } from "./comfyui-history";
import { EXTENSIONS, extensionFor } from "../common/file-extensions";
import { applyBindings, parseComfyEntry, type ComfyEntryOptions } from "./comfyui-workflow";
import { createHealth } from "../common/health";
import type { ProviderKind } from "../common/kind";
import { causeCode, ProviderFailures } from "../common/provider-failures";
import { BodyTooLargeError, readCapped } from "../common/response-bytes";
import {
  ProviderError,
  type FetchedOutput,
  type ProviderConfig,
  type ProviderHealth,
  type ProviderRequest,
  type ProviderResult,
  type RemoteEntryConfig,
} from "../common/types";
import { comfyPool, parsePool } from "./comfyui-pool";
import type { Modality } from "../../core/catalog/model-definition";

const MAX_JSON_BYTES = 64 * 1024 * 1024;
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
const MAX_ERROR_BYTES = 256 * 1024;
/** Where uploaded inputs go in ComfyUI's input folder. */
const UPLOAD_SUBFOLDER = "atelier";

/** ComfyUI's words for a refused workflow: {error: {message, details}, node_errors: {id: {class_type, errors[]}}}. */
function refusalOf(body: Buffer): string | null {
  let json: { error?: unknown; node_errors?: unknown };
  try {
    json = JSON.parse(body.toString("utf8")) as typeof json;
  } catch {
    const text = body.toString("utf8").trim();
    return text && text.length < 300 && !text.startsWith("<") ? text : null;
  }
  const parts: string[] = [];
  const error = json.error as { message?: unknown; details?: unknown } | string | undefined;
  const nodeErrors =
    json.node_errors && typeof json.node_errors === "object"
      ? Object.entries(json.node_errors as Record<string, { class_type?: unknown; errors?: unknown }>)
      : [];
  if (typeof error === "string") parts.push(error);
  else if (typeof error?.message === "string") {
    // The details repeat the node errors when there are some; alone, they say which node.
    const details =
      typeof error.details === "string" && error.details && nodeErrors.length === 0 ? ` (${error.details})` : "";
    parts.push(`${error.message}${details}`);
  }
  for (const [id, node] of nodeErrors) {
    const errors = Array.isArray(node?.errors) ? (node.errors as Array<{ message?: unknown; details?: unknown }>) : [];
    const said = errors
      .map((e) => [e.message, e.details].filter((s) => typeof s === "string" && s).join(": "))
      .filter(Boolean);
    parts.push(
      `node ${id}${typeof node?.class_type === "string" ? ` (${node.class_type})` : ""}: ${said.join("; ") || "invalid"}`,
    );
  }
  const message = parts.join("; ").replace(/\s+/g, " ").trim();
  return message ? message.slice(0, 600) : null;
}

/**
 * One ComfyUI server's HTTP API, as the adapter (comfyui-pool.ts) speaks to it. `health` is the
 * box's own: its failures (unreachable, 5xx, no answer in time) mark it out of service, and the
 * pool says when that takes the whole provider out.
 */
export interface ComfyBox {
  readonly baseUrl: string;
  readonly health: ProviderHealth;
  readonly steps: ComfyProgress;
  /** The request with each file input uploaded here and named as this box knows it. */
  withUploads(request: ProviderRequest, signal: AbortSignal): Promise<ProviderRequest>;
  /** Queues the bound workflow (POST /prompt); its prompt id. */
  queue(request: ProviderRequest, signal: AbortSignal): Promise<string>;
  /** How many prompts the box has queued or running, everyone's (GET /prompt's queue_remaining). */
  queueRemaining(signal: AbortSignal, ms: number): Promise<number>;
  poll(promptId: string, entry: RemoteEntryConfig, signal: AbortSignal): Promise<ProviderResult>;
  cancel(promptId: string): Promise<void>;
  /** What the box runs on and how busy it is (GET /system_stats, GET /queue). */
  describe(signal: AbortSignal): Promise<string>;
}

export function comfyBox(config: ProviderConfig, baseUrl: string, clientId: string): ComfyBox {
  const health = createHealth();
  const auth: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};

  const failures = new ProviderFailures(config.id, health, config.apiKey);
  const steps = comfyProgress(baseUrl, clientId, auth);

  async function httpFailure(response: Response, what: string): Promise<ProviderError> {
    const body = await readCapped(response, MAX_ERROR_BYTES).catch(() => Buffer.alloc(0));
    const status = response.status;
    // 401 and 403: a proxy in front of ComfyUI refused the token (its words stay out). A 429 is a
    // proxy's too: only its Retry-After counts.
    return failures.http(status, status === 429 ? null : refusalOf(body), response.headers.get("retry-after"), what);
  }

  /**
   * One call to ComfyUI within timeout_ms (reading the answer included), with its failures told
   * apart: the run's abort passes through; a timeout, a refused connection or a 5xx marks the
   * box out of service (transient); a 4xx is a refusal of this run.
   */
  async function call<T>(
    route: string,
    init: RequestInit,
    runSignal: AbortSignal,
    what: string,
    read: (response: Response) => Promise<T>,
    ms = config.timeoutMs,
  ): Promise<T> {
    return failures.within(
      runSignal,
      ms,
      async (signal) => {
        const response = await fetch(`${baseUrl}${route}`, {
          ...init,
          headers: { accept: "application/json", ...auth, ...(init.headers as Record<string, string> | undefined) },
          signal,
        });
        if (!response.ok) throw await httpFailure(response, what);
        return await read(response);
      },
      (err) =>
        err instanceof ProviderError
          ? err
          : err instanceof BodyTooLargeError
            ? failures.tooLarge(err)
            : failures.unreachable(causeCode(err)),
    );
  }

  async function json(response: Response): Promise<Record<string, unknown>> {
    let body: unknown;
    try {
      body = JSON.parse((await readCapped(response, MAX_JSON_BYTES)).toString("utf8"));
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw err;
      body = null;
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw failures.down(
        "an answer that is not ComfyUI's JSON",
        `The provider ${config.id} answered with something that is not ComfyUI's JSON.`,
      );
    }
    return body as Record<string, unknown>;
  }

  async function upload(
    fileId: string,
    file: { data: Buffer; contentType: string },
    signal: AbortSignal,
  ): Promise<string> {
    const form = new FormData();
    // A file id names bytes that never change, so overwriting an earlier upload of it is safe.
    form.append(
      "image",
      new Blob([new Uint8Array(file.data)], { type: file.contentType }),
      `${fileId}.${extensionFor(file.contentType)}`,
    );
    form.append("type", "input");
    form.append("subfolder", UPLOAD_SUBFOLDER);
    form.append("overwrite", "true");
    const body = await call("/upload/image", { method: "POST", body: form }, signal, `the file ${fileId}`, json);
    if (typeof body.name !== "string" || body.name === "") {
      throw failures.down(
        "an upload answer without a name",
        `The provider ${config.id} answered an upload without the file's name.`,
      );
    }
    return typeof body.subfolder === "string" && body.subfolder ? `${body.subfolder}/${body.name}` : body.name;
  }

  /** The request with each file input uploaded and named as ComfyUI knows it (what LoadImage takes). */
  async function withUploads(request: ProviderRequest, signal: AbortSignal): Promise<ProviderRequest> {
    const options = request.entry.options as unknown as ComfyEntryOptions;
    const input = { ...request.input };
    for (const field of options.fileFields) {
      const fileId = input[field];
      if (typeof fileId === "string") input[field] = await upload(fileId, await request.readFile(fileId), signal);
    }
    return { ...request, input };
  }

  async function queue(request: ProviderRequest, signal: AbortSignal): Promise<string> {
    const options = request.entry.options as unknown as ComfyEntryOptions;
    const prompt = applyBindings(options, request.input);
    const body = await call(
      "/prompt",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt, client_id: clientId }),
      },
      signal,
      "the workflow",
      json,
    );
    if (typeof body.prompt_id !== "string" || body.prompt_id === "") {
      throw failures.down(
        "a /prompt answer without prompt_id",
        `The provider ${config.id} queued the workflow without saying its prompt_id.`,
      );
    }
    return body.prompt_id;
  }

  async function download(file: SavedFile, signal: AbortSignal): Promise<FetchedOutput> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: "output" });
    return call(
      `/view?${query}`,
      { headers: { accept: "*/*" } },
      signal,
      `to hand over ${file.filename}`,
      async (response) => {
        const data = await readCapped(response, MAX_OUTPUT_BYTES);
        const header = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
        const byName = EXTENSIONS[path.extname(file.filename).slice(1).toLowerCase()]?.type ?? null;
        return { type: "file", data, content_type: header && header !== "application/octet-stream" ? header : byName };
      },
    );
  }

  async function outputsOf(
    promptId: string,
    entry: Record<string, unknown>,
    modality: Modality,
    nodes: string[] | null,
    signal: AbortSignal,
  ): Promise<FetchedOutput[]> {
    const failure = failureOf(entry);
    if (failure) throw new ProviderError(`The workflow on the provider ${config.id} ${failure}`, false);
    const saved = savedFiles(entry.outputs, nodes);
    const wanted = saved.filter((file) => file.family === modality);
    if (wanted.length === 0) {
      const what = saved.length > 0 ? ` (it saved ${describeFiles(saved)} file${saved.length > 1 ? "s" : ""})` : "";
      throw new ProviderError(
        `The workflow on the provider ${config.id} finished without saving any ${modality} output${what}; the operators must check the entry's workflow and outputs (prompt ${promptId}).`,
        false,
      );
    }
    const outputs: FetchedOutput[] = [];
    for (const file of wanted) outputs.push(await download(file, signal));
    return outputs;
  }

  async function post(route: string, body: unknown): Promise<void> {
    const response = await fetch(`${baseUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    await response.body?.cancel();
  }

  /** Where a prompt is in ComfyUI's queue (GET /queue; an item is [number, prompt_id, prompt, extra_data, outputs]). */
  async function placeOf(promptId: string, signal: AbortSignal): Promise<"running" | "pending" | "gone"> {
    const current = await call("/queue", {}, signal, "to show its queue", json);
    const has = (items: unknown) =>
      Array.isArray(items) && items.some((item) => Array.isArray(item) && item[1] === promptId);
    return has(current.queue_running) ? "running" : has(current.queue_pending) ? "pending" : "gone";
  }

  async function historyOf(promptId: string, signal: AbortSignal): Promise<Record<string, unknown> | null> {
    const history = await call(
      `/history/${encodeURIComponent(promptId)}`,
      {},
      signal,
      "to report on the workflow",
      json,
    );
    const entry = history[promptId];
    return entry !== null && typeof entry === "object" ? (entry as Record<string, unknown>) : null;
  }

  /**
   * GET /system_stats (server.py: `system.comfyui_version`, `devices[].name`) and GET /queue: what
   * the box runs on and how busy it is; both are reads, nothing is queued.
   */
  async function describe(signal: AbortSignal): Promise<string> {
    const stats = await call("/system_stats", {}, signal, "to show its system stats", json);
    const system = (stats.system ?? {}) as { comfyui_version?: unknown };
    const devices = Array.isArray(stats.devices) ? (stats.devices as Array<{ name?: unknown }>) : [];
    const version = typeof system.comfyui_version === "string" ? ` ${system.comfyui_version.slice(0, 40)}` : "";
    const names = devices
      .map((device) => (typeof device?.name === "string" ? device.name.slice(0, 120) : null))
      .filter((name): name is string => name !== null);
    const current = await call("/queue", {}, signal, "to show its queue", json);
    const count = (items: unknown) => (Array.isArray(items) ? items.length : 0);
    return (
      `ComfyUI${version}, ${devices.length} device(s)${names.length > 0 ? `: ${names.join(", ")}` : ""}; ` +
      `queue: ${count(current.queue_running)} running, ${count(current.queue_pending)} pending`
    );
  }

  /** server.py's GET /prompt: `{exec_info: {queue_remaining}}`, the prompts queued plus the one running. */
  async function queueRemaining(signal: AbortSignal, ms: number): Promise<number> {
    const body = await call("/prompt", {}, signal, "to show its queue", json, ms);
    const remaining = (body.exec_info as { queue_remaining?: unknown } | undefined)?.queue_remaining;
    if (typeof remaining !== "number" || !Number.isInteger(remaining) || remaining < 0) {
      throw failures.down(
        "a /prompt answer without queue_remaining",
        `The provider ${config.id} did not say how long its queue is.`,
      );
    }
    return remaining;
  }

  return {
    baseUrl,
    health,
    steps,
    withUploads,
    queue,
    queueRemaining,
    describe,
    async poll(promptId, entry, signal): Promise<ProviderResult> {
      // `{}` while the prompt is queued or running: ComfyUI writes its history when it ends.
      let ended = await historyOf(promptId, signal);
      if (!ended) {
        if ((await placeOf(promptId, signal)) !== "gone")
          return { kind: "pending", jobId: promptId, progress: steps.progressOf(promptId) };
        // Neither in the queue nor (unless it ended just now) in the history: someone deleted it
        // on the box, or ComfyUI restarted and lost it. Transient: the engine asks again a few times.
        ended = await historyOf(promptId, signal);
        if (!ended) {
          throw new ProviderError(
            `The provider ${config.id} lost the workflow (prompt ${promptId}): it was taken out of ComfyUI's queue, or ComfyUI restarted. Try again.`,
            true,
          );
        }
      }
      steps.forget(promptId);
      const options = entry.options as unknown as ComfyEntryOptions;
      return { kind: "done", outputs: await outputsOf(promptId, ended, entry.modality, options.outputNodes, signal) };
    },
    async cancel(promptId) {
      // Queued: take it out of the queue. Running: interrupt it, by id, so that another client's
      // prompt is never stopped. Finished: nothing to do. Unknown (the queue cannot be read): both.
      steps.forget(promptId);
      const signal = new AbortController().signal;
      let place = await placeOf(promptId, signal).catch(() => "unknown" as const);
      if (place === "pending" || place === "unknown") {
        await post("/queue", { delete: [promptId] });
        // It may have started in the meantime.
        place = await placeOf(promptId, signal).catch(() => "unknown" as const);
      }
      if (place === "running" || place === "unknown") await post("/interrupt", { prompt_id: promptId });
    },
  };
}

/**
 * `kind: "comfyui"`: a ComfyUI server at base_url, or a `pool` of them (comfyui-pool.ts)
 * (api_key_env, when set, is sent as a Bearer token for a proxy in front of each). Each entry names its `workflow` (API format; a file path
 * relative to the providers file, or inline), `bindings` from input fields to node inputs, and
 * optionally the `outputs` nodes to collect. No upstream_model.
 */
export const comfyUiKind: ProviderKind = {
  name: "comfyui",
  // 3D: core SaveGLB writes a .glb and reports it under its node's `3d` files (comfyui-history.ts).
  modalities: ["image", "video", "audio", "3d"],
  // Required unless `pool` names the boxes (parsePool says so).
  baseUrlRequired: false,
  upstreamModelRequired: false,
  providerFields: ["pool"],
  parseProvider: (provider, at) => parsePool(provider, at),
  entryFields: ["workflow", "bindings", "outputs"],
  parseEntry(entry, at, schema, ctx) {
    return parseComfyEntry(entry, at, schema, ctx) as unknown as Record<string, unknown>;
  },
  inlineEntry(entry, options) {
    return { ...entry, workflow: (options as unknown as ComfyEntryOptions).workflow };
  },
  // Lazily: comfyui-pool.ts imports this file's comfyBox.
  createAdapter: (config) => comfyPool(config),
};
