// Adapter for the OpenAI-compatible image endpoint many providers serve:
// POST {base_url}/v1/images/generations with {model, prompt, n, size, response_format, …} and a
// Bearer key; the answer's data[] holds b64_json or a url to fetch. It answers in one call, so a
// request is billed as soon as it is sent (billsOnSubmit) and there is never a job to poll.
import { createHealth, DOWN_FOR_MS, markDown, markUp } from "./health";
import { BodyTooLargeError, imageOutputOf, readCapped } from "./response-bytes";
import { ProviderError, type ProviderAdapter, type ProviderConfig, type ProviderRequest, type ProviderResult } from "./types";
import type { ImageOutput } from "../models/types";

const MAX_JSON_BYTES = 128 * 1024 * 1024;
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;
/** A Retry-After longer than this is not believed. */
const MAX_BUSY_MS = 5 * 60_000;

/** The provider's own words from an error body ({error: {message}} or close variants). */
function errorMessageOf(body: Buffer): string | null {
  try {
    const json = JSON.parse(body.toString("utf8")) as { error?: unknown; message?: unknown };
    const error = json.error as { message?: unknown } | string | undefined;
    const message = typeof error === "string" ? error : typeof error?.message === "string" ? error.message : json.message;
    if (typeof message === "string" && message.trim()) return message.trim().slice(0, 500);
  } catch {
    // not JSON: the status alone tells it
  }
  return null;
}

/** ECONNREFUSED, ENOTFOUND, …: fetch hides it in `cause` (in `cause.errors` when several addresses were tried). */
function causeCode(err: unknown): string {
  type Cause = { code?: unknown; message?: unknown; errors?: Cause[] };
  const cause = (err as { cause?: Cause })?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message;
  return typeof code === "string" && code.length <= 80 ? code : "network error";
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export function openAiImagesAdapter(config: ProviderConfig): ProviderAdapter {
  const health = createHealth();
  const origin = new URL(config.baseUrl).origin;

  function headersFor(url: string): Record<string, string> {
    // The key goes to the provider's own host only, never to a storage host a result links to.
    return config.apiKey && new URL(url).origin === origin ? { authorization: `Bearer ${config.apiKey}` } : {};
  }

  function down(reason: string, message: string, forMs = DOWN_FOR_MS): ProviderError {
    markDown(health, reason, forMs);
    return new ProviderError(message, true);
  }

  async function failureOf(response: Response, what: string): Promise<ProviderError> {
    const detail = errorMessageOf(await readCapped(response, MAX_ERROR_BYTES).catch(() => Buffer.alloc(0)));
    const status = response.status;
    if (status === 401) {
      return down(`HTTP 401, the key was refused`, `The provider ${config.id} refused this server's credentials (HTTP 401); the operators must check its API key.`);
    }
    if (status === 429) {
      const retryAfter = Number(response.headers.get("retry-after"));
      const forMs = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, MAX_BUSY_MS) : DOWN_FOR_MS;
      return down("HTTP 429, too many requests", `The provider ${config.id} is busy (HTTP 429)${detail ? `: ${detail}` : ""}. Try again later.`, forMs);
    }
    if (status >= 400 && status < 500) {
      return new ProviderError(`The provider ${config.id} refused ${what}: ${detail ?? `HTTP ${status}`}`, false);
    }
    return down(`HTTP ${status}`, `The provider ${config.id} failed (HTTP ${status}${detail ? `: ${detail}` : ""}). Try again later.`);
  }

  async function fetchImage(url: string, signal: AbortSignal): Promise<Buffer> {
    const inline = /^data:image\/[a-z0-9.+-]+;base64,/i.exec(url);
    if (inline) return Buffer.from(url.slice(inline[0].length), "base64");
    if (!/^https?:\/\//i.test(url)) throw new ProviderError(`The provider ${config.id} gave a result link that is not http(s).`, false);
    const response = await fetch(url, { headers: headersFor(url), signal });
    if (!response.ok) throw await failureOf(response, "to hand over the image it made");
    return readCapped(response, MAX_IMAGE_BYTES);
  }

  async function generate(request: ProviderRequest, signal: AbortSignal): Promise<ImageOutput[]> {
    const url = `${config.baseUrl}/v1/images/generations`;
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headersFor(url) },
      body: JSON.stringify({ ...request.input, model: request.upstreamModel, response_format: "b64_json" }),
      signal,
    });
    if (!response.ok) throw await failureOf(response, "the request");
    let items: unknown;
    try {
      items = (JSON.parse((await readCapped(response, MAX_JSON_BYTES)).toString("utf8")) as { data?: unknown }).data;
    } catch (err) {
      if (err instanceof BodyTooLargeError || signal.aborted) throw err;
      throw down("an answer that is not JSON", `The provider ${config.id} answered with something that is not the JSON of its image API.`);
    }
    if (!Array.isArray(items) || items.length === 0) {
      throw down("an answer without images", `The provider ${config.id} answered without any image.`);
    }
    const outputs: ImageOutput[] = [];
    for (const item of items as Array<{ b64_json?: unknown; url?: unknown }>) {
      let bytes: Buffer;
      if (typeof item?.b64_json === "string") bytes = Buffer.from(item.b64_json, "base64");
      else if (typeof item?.url === "string") bytes = await fetchImage(item.url, signal);
      else throw down("a result without b64_json or url", `The provider ${config.id} answered with a result that holds no image.`);
      const output = await imageOutputOf(bytes);
      if (!output) throw new ProviderError(`The provider ${config.id} returned a result that is not a PNG, JPEG, WebP, GIF or AVIF image.`, false);
      outputs.push(output);
    }
    return outputs;
  }

  return {
    billsOnSubmit: true,
    health,
    async submit(request, runSignal): Promise<ProviderResult> {
      runSignal.throwIfAborted();
      const timeout = AbortSignal.timeout(config.timeoutMs);
      try {
        const outputs = await generate(request, AbortSignal.any([runSignal, timeout]));
        markUp(health);
        return { kind: "done", outputs };
      } catch (err) {
        if (runSignal.aborted) throw runSignal.reason;
        if (timeout.aborted) {
          throw down(`no answer within ${seconds(config.timeoutMs)}`, `The provider ${config.id} did not answer within ${seconds(config.timeoutMs)}. Try again later.`);
        }
        if (err instanceof ProviderError) throw err;
        if (err instanceof BodyTooLargeError) throw new ProviderError(`The provider ${config.id} sent ${err.message}.`, false);
        const code = causeCode(err);
        throw down(`unreachable (${code})`, `The provider ${config.id} could not be reached (${code}). Try again later.`);
      }
    },
    async poll(jobId) {
      throw new Error(`openai-images answers in one call; there is no job ${jobId} to poll`);
    },
  };
}
