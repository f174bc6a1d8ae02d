// Adapter for Replicate (`kind: "replicate"`), on its own client library (`replicate`; wire
// protocol: replicate.com/docs/reference/http): a prediction is created with the model's full input
// (`owner/name` through the model's endpoint, `owner/name:version` pinned to a version), holding
// the request with `Prefer: wait` so a fast model answers in one call; a slower one is followed with
// GET /v1/predictions/{id} by the engine's polling (starting → processing → succeeded | failed |
// canceled | aborted; `aborted` handled here: the client's own wait() never ends on it). Output
// URLs (or data URIs) are fetched into memory; the engine stores and serves them. A file input
// goes inline as a data URI when small; a larger one is first uploaded with Replicate's Files API
// (`files.create`: POST /v1/files, multipart `content` + `metadata`) and sent as the file's
// `urls.get` (replicate-fal-shared.ts INLINE_FILE_MAX_BYTES), in `prepareRequest`: before the run's
// cancel point, as an upload bills nothing.
//
// Push: with a webhook URL (the server has PUBLIC_BASE_URL) the prediction is created with
// `webhook` and `webhook_events_filter: ["start", "output", "completed"]`; Replicate then POSTs the
// prediction there when it starts, makes output and ends (output at most every 500 ms, start and
// completed always). Atelier reads none of it: each only makes the engine poll now.
//
// A succeeded prediction's `metrics.predict_time` (seconds) is handed on as the run's provider
// time, what a per-second `cost` in the providers file is counted on.
//
// Billing and cancel: Replicate bills a prediction for the time it ran, a canceled one included
// (private models and deployments bill their boot time too), so once a prediction is created
// cancel answers 409 and the run goes on (billsOnSubmit). A run canceled before submission (during
// an upload too) sends no prediction. When Atelier gives a prediction up (the entry's wait ran out), it cancels it there so
// Replicate stops working and billing.
//
// The client is given a fetch that (a) answers a network failure with a stand-in 599 answer, so
// its retry loop never sends a POST twice (it retries any thrown error, but a POST's answer only
// on 429), and (b) keeps each error answer's body, which the client reads into its message only.
import Replicate from "replicate";
import type { Prediction } from "replicate";
import type { ProviderKind } from "../common/kind";
import { fail, integerAt, type JsonObject } from "../common/json-fields";
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

export const REPLICATE_BASE_URL = "https://api.replicate.com/v1";
/** The stand-in status for "no answer at all" (never sent by a real server). */
const UNREACHABLE = 599;
const UNREACHABLE_HEADER = "x-atelier-unreachable";

/** The webhook events a prediction is created with: what a poll would show sooner (logs are left to the polls). */
export const REPLICATE_WEBHOOK_EVENTS = ["start", "output", "completed"] as const;

export interface ReplicateProviderOptions {
  /** Seconds the create request may hold for the answer (Prefer: wait=N, 1–60); 0: never wait. */
  waitSeconds: number;
}

/** "owner/name" or "owner/name:version". */
export function parseReplicateModel(ref: string): { model: string; version: string | null } | null {
  const match = /^([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9._-]*)(?::([0-9a-f]{8,128}))?$/i.exec(ref.trim());
  if (!match) return null;
  return { model: `${match[1]}/${match[2]}`, version: match[3] ?? null };
}

interface WireFetch {
  fetch: (input: Request | string, init?: RequestInit) => Promise<Response>;
  /** The body of an error answer the client got (it reads bodies into its message only). */
  bodyOf(response: Response): string | null;
}

/** The fetch the client uses: see the header comment. */
export function replicateWireFetch(): WireFetch {
  const bodies = new WeakMap<Response, string>();
  return {
    async fetch(input, init) {
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (err) {
        if (init?.signal?.aborted) throw err;
        return new Response(null, { status: UNREACHABLE, headers: { [UNREACHABLE_HEADER]: causeCode(err) } });
      }
      if (response.ok) return response;
      const text = await errorText(response);
      const headers = new Headers();
      for (const name of ["content-type", "retry-after"]) {
        const value = response.headers.get(name);
        if (value) headers.set(name, value);
      }
      const copy = new Response(text, { status: response.status, statusText: response.statusText, headers });
      bodies.set(copy, text);
      return copy;
    },
    bodyOf: (response) => bodies.get(response) ?? null,
  };
}

/**
 * The seconds Replicate says a prediction ran (`metrics.predict_time`: what it bills a community
 * model by, failed and canceled predictions too); null when it says none or something that is not a time.
 */
export function predictTime(prediction: Prediction): number | null {
  const seconds: unknown = prediction.metrics?.predict_time;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

function isApiError(err: unknown): err is Error & { response: Response } {
  return (
    err instanceof Error && err.name === "ApiError" && (err as { response?: unknown }).response instanceof Response
  );
}

function replicateAdapter(config: ProviderConfig): ProviderAdapter {
  const failures = new Failures(config);
  const baseUrl = config.baseUrl || REPLICATE_BASE_URL;
  const links: ResultLinks = {
    fetch: providerLinkFetch(
      config,
      baseUrl,
      (reason) => `The provider ${config.id} gave a result link Atelier does not fetch (${reason}).`,
    ),
    authorization: `Bearer ${config.apiKey}`,
  };
  const wire = replicateWireFetch();
  const client = new Replicate({
    // Never "": the client would read REPLICATE_API_TOKEN itself (parseProvider requires a key).
    auth: config.apiKey ?? "missing-key",
    baseUrl,
    fetch: wire.fetch,
    useFileOutput: false,
    userAgent: "atelier",
  });
  const options = config.options as Partial<ReplicateProviderOptions>;
  // The hold must end well before our own limit for the call (timeout_ms), or a prediction would
  // go on without our knowing its id: 60 s → 54, 10 s → 9, 3 s → 2, under 2 s → no hold.
  const limit = Math.floor(config.timeoutMs / 1000);
  const waitSeconds = Math.min(options.waitSeconds ?? 60, limit - Math.max(1, Math.ceil(limit / 10)));

  function errorOf(err: unknown, what: string): unknown {
    if (isApiError(err)) {
      const { status, headers } = err.response;
      if (status === UNREACHABLE && headers.has(UNREACHABLE_HEADER))
        return failures.unreachable(headers.get(UNREACHABLE_HEADER)!);
      return failures.http(status, detailOf(wire.bodyOf(err.response) ?? ""), headers.get("retry-after"), what);
    }
    return failures.of(err);
  }

  async function resultOf(
    prediction: Prediction,
    entry: RemoteEntryConfig,
    signal: AbortSignal,
  ): Promise<ProviderResult> {
    if (typeof prediction?.id !== "string" || typeof prediction.status !== "string")
      throw failures.badAnswer("something that is not a prediction");
    switch (prediction.status) {
      case "starting":
        return { kind: "pending", jobId: prediction.id };
      case "processing":
        return {
          kind: "pending",
          jobId: prediction.id,
          progress: progressFromLogs(prediction.logs),
        };
      case "failed": {
        const error =
          typeof prediction.error === "string" && prediction.error.trim()
            ? prediction.error.trim().slice(0, 500)
            : "the prediction failed";
        throw new ProviderError(
          `The provider ${config.id} failed the prediction: ${error}`,
          false,
          predictTime(prediction),
        );
      }
      case "canceled":
        throw new ProviderError(
          `The provider ${config.id} canceled the prediction before it finished (its deadline passed, or it was canceled there).`,
          false,
          predictTime(prediction),
        );
      case "aborted":
        throw new ProviderError(
          `The provider ${config.id} gave the prediction up before it started (its deadline passed).`,
          false,
        );
      case "succeeded":
        break;
      default:
        throw failures.badAnswer(
          `a prediction in a state it does not have (${String(prediction.status).slice(0, 40)})`,
        );
    }
    const done = await finishedOutputs(prediction.output, entry, "prediction", { failures, signal, links });
    return { ...done, providerSeconds: predictTime(prediction) };
  }

  const call = <T>(runSignal: AbortSignal, what: string, fn: (signal: AbortSignal) => Promise<T>) =>
    failures.call(runSignal, what, errorOf, fn);

  /** A large file input through the Files API: its `urls.get` is what the prediction takes (the token stays with Replicate). */
  function upload(file: InputFile, runSignal: AbortSignal): Promise<string> {
    return call(runSignal, `the file input ${file.field}`, async (signal) => {
      const created = await client.files.create(blobOf(file), {}, { signal });
      return uploadedUrl(created?.urls?.get, failures, "a file object");
    });
  }

  return {
    billsOnSubmit: true,
    health: failures.health,
    // Uploads bill nothing: they happen before the run's cancel point, so a cancel during one still cancels the run.
    async prepareRequest(request, runSignal) {
      return { ...request, input: await inputWithFiles(request, (file) => upload(file, runSignal)) };
    },
    async submit(request, runSignal) {
      const ref = parseReplicateModel(request.upstreamModel);
      if (!ref)
        throw new ProviderError(
          `The entry ${request.entry.id} names no Replicate model ("owner/name" or "owner/name:version").`,
          false,
        );
      return call(runSignal, "the prediction", async (signal) => {
        const created = await client.predictions.create({
          ...(ref.version ? { version: ref.version } : { model: ref.model }),
          input: request.input,
          ...(request.webhookUrl && {
            webhook: request.webhookUrl,
            webhook_events_filter: [...REPLICATE_WEBHOOK_EVENTS],
          }),
          ...(waitSeconds >= 1 ? { wait: waitSeconds } : {}),
          signal,
        });
        return resultOf(created, request.entry, signal);
      });
    },
    async poll({ id: predictionId, entry }, runSignal) {
      return call(runSignal, "to report on the prediction", async (signal) =>
        resultOf(await client.predictions.get(predictionId, { signal }), entry, signal),
      );
    },
    // GET /v1/account (accounts.current): the account the token belongs to, read for free.
    async checkConnection(runSignal) {
      return call(runSignal, "to show the account", async (signal) => {
        const account: unknown = await client.accounts.current({ signal });
        const { username, type } = (account ?? {}) as { username?: unknown; type?: unknown };
        if (typeof username !== "string" || !username) throw failures.badAnswer("something that is not an account");
        return `account ${username.slice(0, 100)}${typeof type === "string" ? ` (${type.slice(0, 40)})` : ""}`;
      });
    },
    async cancel({ id: predictionId }) {
      await client.predictions.cancel(predictionId, {
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    },
  };
}

/**
 * `kind: "replicate"`. Provider fields: `api_key_env` (required; Replicate's API token),
 * `base_url` (default https://api.replicate.com/v1), `wait_seconds` (0–60, default 60: how long
 * the create request holds for a synchronous answer). Entry fields: `upstream_model`
 * ("owner/name" or "owner/name:version"), optional `output_fields` and `file_list_inputs`
 * (replicate-fal-shared.ts).
 */
export const replicateKind: ProviderKind = {
  name: "replicate",
  // 3D: models such as firtoz/trellis answer an object of file URLs, the .glb among videos and
  // images; the entry's modality picks it out by its extension (replicate-fal-shared.ts).
  modalities: ["image", "video", "audio", "3d"],
  baseUrlRequired: false,
  keyRequired: { example: "REPLICATE_API_TOKEN" },
  upstreamModelRequired: true,
  providerFields: ["wait_seconds"],
  entryFields: [...HOSTED_ENTRY_FIELDS],
  parseProvider(provider: JsonObject, path: string) {
    const waitSeconds = integerAt(provider, "wait_seconds", path, { fallback: 60, min: 0, max: 60 });
    return { waitSeconds } satisfies ReplicateProviderOptions;
  },
  parseEntry(entry, path, schema) {
    const ref = typeof entry.upstream_model === "string" ? parseReplicateModel(entry.upstream_model) : null;
    if (!ref)
      fail(
        `${path}.upstream_model`,
        `must be a Replicate model, "owner/name" or "owner/name:version"; got ${JSON.stringify(entry.upstream_model)}.`,
      );
    return { ...parseHostedEntry(entry, path, schema) };
  },
  createAdapter: replicateAdapter,
};
