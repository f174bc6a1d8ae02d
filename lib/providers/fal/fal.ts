// Adapter for fal (`kind: "fal"`), on its own client library (`@fal-ai/client`; wire protocol:
// docs.fal.ai/model-endpoints/queue): a request goes into fal's queue with the model's full input
// (`queue.submit(endpoint, {input})` → request_id); the engine then polls `queue.status` (IN_QUEUE
// with its position → IN_PROGRESS with logs → COMPLETED), and the output JSON (`queue.result`)
// names files on fal's media host, which are fetched into memory. A provider with `"mode": "run"`
// uses fal's synchronous host instead (`fal.run`: one call, the answer holds the output). A file
// input goes inline as a data URI when small; a larger one is first put in fal storage with the
// client's `storage.upload` (POST {rest host}/storage/upload/initiate → {upload_url, file_url},
// then PUT the bytes to upload_url without the key; over 90 MB its multipart form) and sent as
// its file_url (replicate-fal-shared.ts INLINE_FILE_MAX_BYTES), in `prepareRequest`: before the
// run's cancel point, as an upload bills nothing.
//
// Billing and cancel: fal bills inference time only; a request canceled while still queued is
// dropped unbilled (PUT …/cancel). So a queued fal provider stays cancelable after submission
// (billsOnSubmit false) and a cancel is sent to fal. A request fal has started (IN_PROGRESS) is
// signalled to stop and billed for the seconds it ran: polls report `started`, so the engine can
// pass the run's cancel point then (remote-model.ts). A `"mode": "run"` provider cannot be
// canceled at fal at all, so it bills on submit (409).
//
// Push: with a webhook URL (the server has PUBLIC_BASE_URL) a queued request is submitted with
// fal's `fal_webhook` query parameter (the client's `webhookUrl`); fal POSTs {request_id, status:
// "OK" | "ERROR", payload} there once the request is done. Atelier reads none of it: it only
// makes the engine poll now, and the poll fetches the result. A `"mode": "run"` call has no queue
// and so no webhook.
//
// The client has no base URL: `requestMiddleware` rewrites its fixed hosts to `base_url` (queue),
// `run_base_url` (sync) and `rest_base_url` (storage), for a proxy or a local fake. Its `fetch`
// turns 429/5xx answers and network failures into errors its retry policy does not retry (it would
// wait up to half a minute on a provider that is down: Atelier takes the provider out of service
// instead, and the engine's own polling rides out a passing failure). A storage upload's
// upload_url is fal's answer: the client PUTs there through guardedFetch (no local or private
// address but the provider's own host, by IP, name or DNS, at every redirect), with the call's
// signal (its upload takes none).
import { createFalClient, type FalClient, type QueueStatus } from "@fal-ai/client";
import { fail, stringAt, type JsonObject } from "../common/json-fields";
import type { ProviderKind } from "../common/kind";
import { causeCode } from "../common/provider-failures";
import { progressFromLogs } from "../common/log-progress";
import {
  detailOf,
  errorText,
  Failures,
  finishedOutputs,
  HOSTED_ENTRY_FIELDS,
  inputWithFiles,
  parseHostedEntry,
  providerLinkFetch,
  uploadedUrl,
  blobOf,
  type InputFile,
  type ResultLinks,
} from "../common/replicate-fal-shared";
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderConfig,
  type ProviderResult,
  type RemoteEntryConfig,
} from "../common/types";

const FAL_QUEUE_URL = "https://queue.fal.run";
const FAL_RUN_URL = "https://fal.run";
/** fal's REST host (the client's getRestApiUrl): storage uploads start there. */
const FAL_REST_URL = "https://rest.fal.ai";
/** fal's Platform API (docs.fal.ai/platform-apis): the connection check reads model pricing there. */
const FAL_PLATFORM_URL = "https://api.fal.ai/v1";
/** Where fal publishes each endpoint's OpenAPI document (what an import reads). */
export const FAL_OPENAPI_URL = "https://fal.ai";
/** The most endpoint ids one pricing request takes. */
const MAX_PRICED_ENDPOINTS = 50;
/**
 * How long fal keeps an uploaded file input (X-Fal-Object-Lifecycle): past the longest a job may
 * wait (job_timeout_ms, at most 24 h), and not for good: it is the workspace's file.
 */
const UPLOAD_EXPIRES_IN_SECONDS = 2 * 86_400;

export interface FalProviderOptions {
  mode: "queue" | "run";
  /** Where the client's https://fal.run requests go (sync mode); without a trailing slash. */
  runBaseUrl: string;
  /** Where the client's https://rest.fal.ai requests go (storage uploads); without a trailing slash. */
  restBaseUrl: string;
  /** fal's Platform API (https://api.fal.ai/v1), read by the connection check; without a trailing slash. */
  platformBaseUrl: string;
  /** Where endpoints' OpenAPI documents are read when an entry is imported (https://fal.ai). */
  openapiBaseUrl: string;
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

async function falWireFetch(
  input: RequestInfo | URL,
  init?: RequestInit,
  inner: typeof fetch = fetch,
): Promise<Response> {
  let response: Response;
  try {
    response = await inner(input, init);
  } catch (err) {
    // The run's abort, and a refusal of guardedFetch's, are not network failures.
    if (init?.signal?.aborted || err instanceof ProviderError) throw err;
    // No `cause`: fal's retry policy walks it looking for ECONNREFUSED and friends.
    throw new FalWireError(null, "", null, causeCode(err));
  }
  if (response.status === 429 || response.status >= 500) {
    throw new FalWireError(response.status, await errorText(response), response.headers.get("retry-after"), null);
  }
  return response;
}

function isFalApiError(err: unknown): err is Error & { status: number; body: unknown } {
  return (
    err instanceof Error &&
    (err.name === "ApiError" || err.name === "ValidationError") &&
    typeof (err as { status?: unknown }).status === "number"
  );
}

function falAdapter(config: ProviderConfig): ProviderAdapter {
  const failures = new Failures(config);
  const options = config.options as Partial<FalProviderOptions>;
  const mode = options.mode ?? "queue";
  const queueBase = config.baseUrl || FAL_QUEUE_URL;
  const runBase = options.runBaseUrl || FAL_RUN_URL;
  const restBase = options.restBaseUrl || FAL_REST_URL;
  const platformBase = options.platformBaseUrl || FAL_PLATFORM_URL;
  const hosts: Array<[string, string]> = [
    [FAL_QUEUE_URL, queueBase],
    [FAL_RUN_URL, runBase],
    [FAL_REST_URL, restBase],
  ];
  const clientWith = (wireFetch: typeof fetch): FalClient =>
    createFalClient({
      credentials: config.apiKey ?? "missing-key",
      suppressLocalCredentialsWarning: true,
      fetch: wireFetch,
      async requestMiddleware(request) {
        const host = hosts.find(([fixed]) => request.url.startsWith(`${fixed}/`));
        return { ...request, url: host ? host[1] + request.url.slice(host[0].length) : request.url };
      },
    });
  const fal = clientWith(falWireFetch as typeof fetch);
  const links: ResultLinks = {
    fetch: providerLinkFetch(
      config,
      queueBase,
      (reason) => `The provider ${config.id} gave a result link Atelier does not fetch (${reason}).`,
    ),
    authorization: null,
  };
  /** Where storage uploads PUT the bytes: an address fal's answer names, so guarded like a result link. */
  const uploadTargetFetch = providerLinkFetch(
    config,
    queueBase,
    (reason) =>
      `The provider ${config.id} named an address to upload a file to that Atelier does not send files to (${reason}).`,
  );

  function errorOf(err: unknown, what: string): unknown {
    if (err instanceof FalWireError) {
      if (err.status === null) return failures.unreachable(err.networkCode ?? "network error");
      // fal's infrastructure errors: {detail, error_type} and X-Fal-Error-Type (runner_*, request_timeout, …).
      return failures.http(err.status, detailOf(err.body), err.retryAfter, what);
    }
    if (isFalApiError(err)) return failures.http(err.status, detailOf(err.body ?? null) ?? err.message, null, what);
    return failures.of(err);
  }

  const call = <T>(runSignal: AbortSignal, what: string, fn: (signal: AbortSignal) => Promise<T>) =>
    failures.call(runSignal, what, errorOf, fn);

  /**
   * A large file input into fal storage. The client's storage.upload takes no signal, so it gets a
   * client whose fetch carries this call's; that fetch also turns every error answer into a
   * FalWireError (the client's multipart upload retries a part three times, then throws its own
   * words: the last failure is what the call failed with), and refuses to PUT the bytes to a local
   * or private address fal's answer might name (but the provider's own host, as with its outputs).
   */
  function upload(file: InputFile, runSignal: AbortSignal): Promise<string> {
    return call(runSignal, `the file input ${file.field}`, async (signal) => {
      let failure: unknown = null;
      const uploader = clientWith((async (input: RequestInfo | URL, init?: RequestInit) => {
        try {
          const url = input instanceof Request ? input.url : String(input);
          const inner = url.startsWith(`${restBase}/`) ? fetch : uploadTargetFetch;
          const response = await falWireFetch(input, { ...init, signal: init?.signal ?? signal }, inner);
          if (!response.ok)
            throw new FalWireError(
              response.status,
              await errorText(response),
              response.headers.get("retry-after"),
              null,
            );
          failure = null;
          return response;
        } catch (err) {
          failure = err;
          throw err;
        }
      }) as typeof fetch);
      let url: unknown;
      try {
        url = await uploader.storage.upload(blobOf(file), { lifecycle: { expiresIn: UPLOAD_EXPIRES_IN_SECONDS } });
      } catch (err) {
        throw failure ?? err;
      }
      return uploadedUrl(url, failures, "a storage answer");
    });
  }

  const outputsOf = (data: unknown, entry: RemoteEntryConfig, signal: AbortSignal) =>
    finishedOutputs(data, entry, "request", { failures, signal, links });

  /**
   * GET {platform}/models/pricing?endpoint_id=… (Authorization: Key): the Platform API requires a
   * valid key for it and answers the unit price of each endpoint it knows, so a pass proves the
   * key and the entries' endpoint ids, billing nothing (the queue API has no read that needs no
   * request id).
   */
  async function checkConnection(runSignal: AbortSignal): Promise<string> {
    const ids = [...new Set(config.entries.map((entry) => entry.upstreamModel))].slice(0, MAX_PRICED_ENDPOINTS);
    if (ids.length === 0)
      throw new ProviderError(`The provider ${config.id} has no entries, so there is no endpoint to price.`, false);
    return call(runSignal, "to show its prices", async (signal) => {
      const query = new URLSearchParams({ endpoint_id: ids.join(",") });
      const response = await falWireFetch(`${platformBase}/models/pricing?${query}`, {
        headers: { accept: "application/json", authorization: `Key ${config.apiKey ?? ""}` },
        signal,
      });
      if (!response.ok)
        throw failures.http(
          response.status,
          detailOf(await errorText(response)),
          response.headers.get("retry-after"),
          "to show its prices",
        );
      let answer: unknown = null;
      try {
        answer = JSON.parse(await errorText(response));
      } catch {
        answer = null;
      }
      const prices = (answer as { prices?: unknown } | null)?.prices;
      if (!Array.isArray(prices)) throw failures.badAnswer("something that is not a price list");
      const priced = new Set((prices as Array<{ endpoint_id?: unknown }>).map((price) => String(price?.endpoint_id)));
      const missing = ids.filter((id) => !priced.has(id));
      const some = `${ids.length - missing.length} of ${ids.length} endpoint${ids.length === 1 ? "" : "s"} priced`;
      return missing.length === 0 ? some : `${some}; not priced: ${missing.slice(0, 5).join(", ")}`;
    });
  }

  return {
    billsOnSubmit: mode === "run",
    health: failures.health,
    checkConnection,
    // Uploads bill nothing: they happen before the run's cancel point (which a "run" provider passes
    // on submit), so a cancel during one still cancels the run.
    async prepareRequest(request, runSignal) {
      return { ...request, input: await inputWithFiles(request, (file) => upload(file, runSignal)) };
    },
    async submit(request, runSignal): Promise<ProviderResult> {
      const { input } = request;
      if (mode === "run") {
        return call(runSignal, "the request", async (signal) => {
          const result = await fal.run(request.upstreamModel, { input, abortSignal: signal });
          return outputsOf(result.data, request.entry, signal);
        });
      }
      return call(runSignal, "the request", async (signal) => {
        const queued = await fal.queue.submit(request.upstreamModel, {
          input,
          abortSignal: signal,
          // Sent as the `fal_webhook` query parameter: fal POSTs {request_id, status, payload} there when done.
          ...(request.webhookUrl && { webhookUrl: request.webhookUrl }),
        });
        if (typeof queued?.request_id !== "string") throw failures.badAnswer("a queue answer without a request_id");
        return { kind: "pending", jobId: queued.request_id, started: false };
      });
    },
    async poll({ id: requestId, entry }, runSignal): Promise<ProviderResult> {
      const jobId = requestId;
      return call(runSignal, "the request", async (signal) => {
        const status: QueueStatus = await fal.queue.status(entry.upstreamModel, {
          requestId,
          logs: true,
          abortSignal: signal,
        });
        if (status?.status === "IN_QUEUE") {
          const place = status.queue_position;
          const queuePosition = Number.isSafeInteger(place) && place >= 0 ? place : null;
          return { kind: "pending", jobId, started: false, queuePosition };
        }
        if (status?.status === "IN_PROGRESS")
          return { kind: "pending", jobId, started: true, progress: progressFromLogs(status.logs) };
        if (status?.status !== "COMPLETED") throw failures.badAnswer("a request status it does not have");
        // A failed request is COMPLETED too: its result is the error (422 refusal, 5xx failure).
        const result = await fal.queue.result(entry.upstreamModel, { requestId, abortSignal: signal });
        return outputsOf(result.data, entry, signal);
      });
    },
    async cancel({ id: requestId, entry }) {
      if (mode === "run") return;
      // 202 CANCELLATION_REQUESTED; 400 ALREADY_COMPLETED and 404 NOT_FOUND are answers too.
      await fal.queue
        .cancel(entry.upstreamModel, { requestId, abortSignal: AbortSignal.timeout(config.timeoutMs) })
        .catch(() => undefined);
    },
  };
}

/**
 * `kind: "fal"`. Provider fields: `api_key_env` (required; the FAL_KEY), `base_url` (the queue
 * host, default https://queue.fal.run), `mode` ("queue", the default, or "run": fal's synchronous
 * host, one call, not cancelable there), `run_base_url` (the synchronous host, default
 * https://fal.run), `rest_base_url` (fal's REST host, where storage uploads of large file inputs
 * start, default https://rest.fal.ai), `platform_base_url` (fal's Platform API, read by the
 * connection check, default https://api.fal.ai/v1), `openapi_base_url` (where an import reads an
 * endpoint's OpenAPI document, default https://fal.ai). Entry fields: `upstream_model` (the endpoint id,
 * "fal-ai/flux/dev"), optional `output_fields` and `file_list_inputs` (replicate-fal-shared.ts).
 */
export const falKind: ProviderKind = {
  name: "fal",
  // 3D: endpoints such as fal-ai/trellis or fal-ai/hunyuan3d/v2 answer a File with content_type
  // model/gltf-binary (`model_mesh`), picked out by that type (replicate-fal-shared.ts).
  modalities: ["image", "video", "audio", "3d"],
  baseUrlRequired: false,
  keyRequired: { example: "FAL_KEY" },
  upstreamModelRequired: true,
  providerFields: ["mode", "run_base_url", "rest_base_url", "platform_base_url", "openapi_base_url"],
  entryFields: [...HOSTED_ENTRY_FIELDS],
  parseProvider(provider: JsonObject, path: string) {
    const mode = stringAt(provider, "mode", path, {
      fallback: "queue",
      oneOf: ["queue", "run"],
    }) as FalProviderOptions["mode"];
    const hostAt = (key: string, fallback: string): string => {
      if (provider[key] === undefined) return fallback;
      const raw = stringAt(provider, key, path);
      if (!/^https?:\/\/[^/?#@\s]+(\/[^?#@\s]*)?$/i.test(raw))
        fail(`${path}.${key}`, `must be an absolute http(s) URL without a query; got "${raw}".`);
      return raw.replace(/\/+$/, "");
    };
    return {
      mode,
      runBaseUrl: hostAt("run_base_url", FAL_RUN_URL),
      restBaseUrl: hostAt("rest_base_url", FAL_REST_URL),
      platformBaseUrl: hostAt("platform_base_url", FAL_PLATFORM_URL),
      openapiBaseUrl: hostAt("openapi_base_url", FAL_OPENAPI_URL),
    } satisfies FalProviderOptions;
  },
  parseEntry(entry, path, schema) {
    if (typeof entry.upstream_model !== "string" || !isFalEndpoint(entry.upstream_model)) {
      fail(
        `${path}.upstream_model`,
        `must be a fal endpoint id such as "fal-ai/flux/dev"; got ${JSON.stringify(entry.upstream_model)}.`,
      );
    }
    return { ...parseHostedEntry(entry, path, schema) };
  },
  createAdapter: falAdapter,
};
