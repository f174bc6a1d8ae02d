// One request to /v1 with the API's retry rules (retry.ts): each attempt has its own timeout, the
// body is read as text before it is parsed (a proxy's 502 may not be JSON), and a request is
// repeated only when its caller marked it safe to repeat.
import { AtelierConnectionError, AtelierError, AtelierTimeoutError, errorFromAnswer } from "./errors.js";
import { retryDelayMs, type Outcome, type RetryPolicy } from "./retry.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

/** Told before each retry (for logs and tests). */
export interface RetryInfo {
  method: HttpMethod;
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the SDK now waits (already scaled by retryDelayScale). */
  delayMs: number;
  /** What that attempt ended with. */
  error: AtelierError;
}

/** Per-call options every method takes as its last argument. */
export interface RequestOptions {
  /** Aborts the call (all attempts and the waits between them). */
  signal?: AbortSignal;
  /** Per attempt, instead of the client's timeoutMs (a `Prefer: wait` is added to it). */
  timeoutMs?: number;
  /** Instead of the client's maxRetries. */
  maxRetries?: number;
  /** More request headers. */
  headers?: Record<string, string>;
}

export interface TransportConfig {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: FetchLike | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
  headers: Record<string, string>;
  onRetry: ((info: RetryInfo) => void) | undefined;
}

export interface RequestSpec {
  method: HttpMethod;
  /** A path under the base URL (`/v1/…`), or an absolute URL used exactly as given (an upload_url). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body. */
  json?: unknown;
  /** A body sent as it is (FormData, Blob), with its own content type in `headers`. */
  body?: FormData | Blob;
  headers?: Record<string, string>;
  /** Send the API key (false for the signed upload URL, which must not get it). */
  auth?: boolean;
  /** Safe to repeat (the API's retry rules): only then is it retried. */
  retry: boolean;
  /** The `Prefer: wait` seconds this request carries: its timeout is longer by that much. */
  waitSeconds?: number;
  /** The answer is text (CSV), given as it is rather than parsed as JSON. */
  text?: boolean;
}

export interface Answer<T> {
  data: T;
  status: number;
  headers: Headers;
}

export class Transport {
  constructor(readonly config: TransportConfig) {}

  url(path: string, query?: Record<string, QueryValue>): string {
    const base = /^https?:\/\//i.test(path) ? path : `${this.config.baseUrl}${path}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      params.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const qs = params.toString();
    return qs ? `${base}${base.includes("?") ? "&" : "?"}${qs}` : base;
  }

  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<Answer<T>> {
    const { config } = this;
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = {
      accept: "application/json",
      ...config.headers,
      ...spec.headers,
      ...options.headers,
    };
    if (spec.auth !== false && config.apiKey) headers["x-api-key"] = config.apiKey;
    let body: string | FormData | Blob | undefined = spec.body;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] = "application/json";
    }
    const init: RequestInit = { method: spec.method, headers, ...(body === undefined ? {} : { body }) };
    const maxRetries = spec.retry ? Math.max(0, options.maxRetries ?? config.policy.maxRetries) : 0;
    const timeoutMs = (options.timeoutMs ?? config.timeoutMs) + (spec.waitSeconds ?? 0) * 1000;

    for (let retry = 0; ; retry++) {
      let error: AtelierError;
      let outcome: Outcome;
      try {
        const { response, text } = await this.attempt(spec, url, init, timeoutMs, options.signal);
        if (response.ok)
          return {
            data: spec.text ? (text as T) : parseJson<T>(text, response),
            status: response.status,
            headers: response.headers,
          };
        error = errorFromAnswer(response.status, response.statusText, response.headers, text);
        outcome = { kind: "answer", status: response.status, headers: response.headers };
      } catch (err) {
        if (!(err instanceof AtelierConnectionError)) throw err;
        error = err;
        outcome = { kind: "network" };
      }
      if (retry >= maxRetries) throw error;
      const delayMs = retryDelayMs(outcome, retry, config.policy);
      if (delayMs === null) throw error;
      config.onRetry?.({ method: spec.method, url, attempt: retry + 1, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /** One attempt: the answer and its whole body as text, or an AtelierConnectionError. */
  private async attempt(
    spec: RequestSpec,
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; text: string }> {
    signal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const fetchImpl: FetchLike = this.config.fetch ?? ((input, requestInit) => globalThis.fetch(input, requestInit));
    const where = `${spec.method} ${url.replace(/\?.*$/, "")}`;
    try {
      const response = await fetchImpl(url, { ...init, signal: controller.signal });
      const text = await response.text();
      return { response, text };
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (timedOut) throw new AtelierTimeoutError(`${where}: no answer within ${timeoutMs} ms.`);
      throw new AtelierConnectionError(`${where}: ${describe(err)}`, err);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

function parseJson<T>(text: string, response: Response): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new AtelierError(`The answer (HTTP ${response.status}) is not JSON: ${text.slice(0, 200)}`, {
      status: response.status,
      requestId: response.headers.get("x-request-id"),
      headers: response.headers,
      body: text,
    });
  }
}

/** "fetch failed: other side closed" rather than just "fetch failed". */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : typeof err.cause === "string" ? err.cause : null;
  return cause && cause !== err.message ? `${err.message}: ${cause}` : err.message;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
