// Adapter for fal (`kind: "fal"`), on its own client library (`@fal-ai/client`; wire protocol in
// PROVIDERS.md §3): a request goes into fal's queue with the model's full input
// (`queue.submit(endpoint, {input})` → request_id); the engine then polls `queue.status` (IN_QUEUE
// with its position → IN_PROGRESS with logs → COMPLETED), and the output JSON (`queue.result`)
// names files on fal's media host, which are fetched into memory. A provider with `"mode": "run"`
// uses fal's synchronous host instead (`fal.run`: one call, the answer holds the output).
//
// Billing and cancel: fal bills inference time only; a request canceled while still queued is
// dropped unbilled (PUT …/cancel). So a queued fal provider stays cancelable after submission
// (billsOnSubmit false) and a cancel is sent to fal. A request fal has started (IN_PROGRESS) is
// signalled to stop and billed for the seconds it ran: polls report `started`, so the engine can
// pass the run's cancel point then (see the report to the lead: types.ts / remote-model.ts). A
// `"mode": "run"` provider cannot be canceled at fal at all, so it bills on submit (409).
//
// The client has no base URL: `requestMiddleware` rewrites its fixed hosts to `base_url` (queue) and
// `run_base_url` (sync), for a proxy or a local fake. Its `fetch` turns 429/5xx answers and network
// failures into errors its retry policy does not retry (it would wait up to half a minute on a
// provider that is down: Atelier takes the provider out of service instead, and the engine's own
// polling rides out a passing failure).
import { createFalClient, type QueueStatus } from "@fal-ai/client";
import { fail, stringAt, type JsonObject } from "./json-fields";
import type { ProviderKind } from "./kind";
import { causeCode } from "./provider-failures";
import { detailOf, errorText, Failures, finishedOutputs, HOSTED_ENTRY_FIELDS, inputWithFiles, parseHostedEntry, requireKeyEnv } from "./replicate-fal-shared";
import type { ProviderAdapter, ProviderConfig, ProviderResult, RemoteEntryConfig } from "./types";

const FAL_QUEUE_URL = "https://queue.fal.run";
const FAL_RUN_URL = "https://fal.run";

export interface FalProviderOptions {
  mode: "queue" | "run";
  /** Where the client's https://fal.run requests go (sync mode); without a trailing slash. */
  runBaseUrl: string;
}

/** "owner/alias" or "owner/alias/path…" (fal's endpoint ids). */
export function isFalEndpoint(id: string): boolean {
  return /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/i.test(id.trim());
}

/** An error the fetch raised for an answer or a failure fal's retry policy must not retry. */
class FalWireError extends Error {
  constructor(
    readonly status: number | null,
    readonly body: string,
    readonly retryAfter: string | null,
    readonly networkCode: string | null,
  ) {
    super(status === null ? `unreachable (${networkCode})` : `HTTP ${status}`);
    this.name = "FalWireError";
  }
}

async function falWireFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (err) {
    if (init?.signal?.aborted) throw err;
    // No `cause`: fal's retry policy walks it looking for ECONNREFUSED and friends.
    throw new FalWireError(null, "", null, causeCode(err));
  }
  if (response.status === 429 || response.status >= 500) {
    throw new FalWireError(response.status, await errorText(response), response.headers.get("retry-after"), null);
  }
  return response;
}

function isFalApiError(err: unknown): err is Error & { status: number; body: unknown } {
  return err instanceof Error && (err.name === "ApiError" || err.name === "ValidationError") && typeof (err as { status?: unknown }).status === "number";
}

function falAdapter(config: ProviderConfig): ProviderAdapter {
  const failures = new Failures(config);
  const options = config.options as Partial<FalProviderOptions>;
  const mode = options.mode ?? "queue";
  const queueBase = config.baseUrl || FAL_QUEUE_URL;
  const runBase = options.runBaseUrl || FAL_RUN_URL;
  const fal = createFalClient({
    credentials: config.apiKey ?? "missing-key",
    suppressLocalCredentialsWarning: true,
    fetch: falWireFetch as typeof fetch,
    async requestMiddleware(request) {
      const url = request.url.startsWith(`${FAL_QUEUE_URL}/`)
        ? queueBase + request.url.slice(FAL_QUEUE_URL.length)
        : request.url.startsWith(`${FAL_RUN_URL}/`)
          ? runBase + request.url.slice(FAL_RUN_URL.length)
          : request.url;
      return { ...request, url };
    },
  });

  function errorOf(err: unknown, runSignal: AbortSignal, timeout: AbortSignal, what: string): unknown {
    if (!runSignal.aborted && !timeout.aborted) {
      if (err instanceof FalWireError) {
        if (err.status === null) return failures.unreachable(err.networkCode ?? "network error");
        // fal's infrastructure errors: {detail, error_type} and X-Fal-Error-Type (runner_*, request_timeout, …).
        return failures.http(err.status, detailOf(err.body), err.retryAfter, what);
      }
      if (isFalApiError(err)) return failures.http(err.status, detailOf(err.body ?? null) ?? err.message, null, what);
    }
    return failures.of(err, runSignal, timeout);
  }

  const call = <T>(runSignal: AbortSignal, what: string, fn: (signal: AbortSignal) => Promise<T>) => failures.call(runSignal, what, errorOf, fn);

  const outputsOf = (data: unknown, entry: RemoteEntryConfig, signal: AbortSignal) => finishedOutputs(data, entry, "request", { failures, signal, authorization: null, keyOrigin: null });

  /** A job is "<entry id>#<request id>": polls know the endpoint and what it produces. */
  function parseJobId(jobId: string): { entry: RemoteEntryConfig; requestId: string } {
    const at = jobId.lastIndexOf("#");
    const entry = config.entries.find((e) => e.id === jobId.slice(0, at));
    if (at < 0 || !entry) throw new Error(`fal: not a job of this provider: ${jobId}`);
    return { entry, requestId: jobId.slice(at + 1) };
  }

  return {
    billsOnSubmit: mode === "run",
    health: failures.health,
    async submit(request, runSignal): Promise<ProviderResult> {
      const input = await inputWithFiles(request);
      if (mode === "run") {
        return call(runSignal, "the request", async (signal) => {
          const result = await fal.run(request.upstreamModel, { input, abortSignal: signal });
          return outputsOf(result.data, request.entry, signal);
        });
      }
      return call(runSignal, "the request", async (signal) => {
        const queued = await fal.queue.submit(request.upstreamModel, { input, abortSignal: signal });
        if (typeof queued?.request_id !== "string") throw failures.badAnswer("a queue answer without a request_id");
        return { kind: "pending", jobId: `${request.entry.id}#${queued.request_id}`, started: false };
      });
    },
    async poll(jobId, runSignal): Promise<ProviderResult> {
      const { entry, requestId } = parseJobId(jobId);
      return call(runSignal, "the request", async (signal) => {
        const status: QueueStatus = await fal.queue.status(entry.upstreamModel, { requestId, logs: true, abortSignal: signal });
        if (status?.status === "IN_QUEUE") return { kind: "pending", jobId, started: false };
        if (status?.status === "IN_PROGRESS") return { kind: "pending", jobId, started: true };
        if (status?.status !== "COMPLETED") throw failures.badAnswer("a request status it does not have");
        // A failed request is COMPLETED too: its result is the error (422 refusal, 5xx failure).
        const result = await fal.queue.result(entry.upstreamModel, { requestId, abortSignal: signal });
        return outputsOf(result.data, entry, signal);
      });
    },
    async cancel(jobId) {
      if (mode === "run") return;
      const { entry, requestId } = parseJobId(jobId);
      // 202 CANCELLATION_REQUESTED; 400 ALREADY_COMPLETED and 404 NOT_FOUND are answers too.
      await fal.queue.cancel(entry.upstreamModel, { requestId, abortSignal: AbortSignal.timeout(config.timeoutMs) }).catch(() => undefined);
    },
  };
}

/**
 * `kind: "fal"`. Provider fields: `api_key_env` (required; the FAL_KEY), `base_url` (the queue
 * host, default https://queue.fal.run), `mode` ("queue", the default, or "run": fal's synchronous
 * host, one call, not cancelable there), `run_base_url` (the synchronous host, default
 * https://fal.run). Entry fields: `upstream_model` (the endpoint id, "fal-ai/flux/dev"), optional
 * `output_fields` and `file_list_inputs` (replicate-fal-shared.ts).
 */
export const falKind: ProviderKind = {
  name: "fal",
  modalities: ["image", "video", "audio"],
  baseUrlRequired: false,
  upstreamModelRequired: true,
  providerFields: ["mode", "run_base_url"],
  entryFields: [...HOSTED_ENTRY_FIELDS],
  parseProvider(provider: JsonObject, path: string) {
    requireKeyEnv(provider, path, "FAL_KEY");
    const mode = stringAt(provider, "mode", path, { fallback: "queue", oneOf: ["queue", "run"] }) as FalProviderOptions["mode"];
    let runBaseUrl = FAL_RUN_URL;
    if (provider.run_base_url !== undefined) {
      const raw = stringAt(provider, "run_base_url", path);
      if (!/^https?:\/\/[^/?#@\s]+(\/[^?#@\s]*)?$/i.test(raw)) fail(`${path}.run_base_url`, `must be an absolute http(s) URL without a query; got "${raw}".`);
      runBaseUrl = raw.replace(/\/+$/, "");
    }
    return { mode, runBaseUrl } satisfies FalProviderOptions;
  },
  parseEntry(entry, path, schema) {
    if (typeof entry.upstream_model !== "string" || !isFalEndpoint(entry.upstream_model)) {
      fail(`${path}.upstream_model`, `must be a fal endpoint id such as "fal-ai/flux/dev"; got ${JSON.stringify(entry.upstream_model)}.`);
    }
    return { ...parseHostedEntry(entry, path, schema) };
  },
  createAdapter: falAdapter,
};
