// What an AI SDK call's failure means for the run and for the provider's health, in the words the
// openai-images adapter always used: a refusal (4xx) fails the run with the provider's message and
// leaves it in service; 401 and 429 and every outage (5xx, unreachable, an answer that is not its
// API's) fail the run and take the provider's entries out of service for a while. The key never
// appears in a message: messages are built from status codes and the provider's own words, never
// from the SDK's (which may carry a URL, and Google's result links carry `?key=`), and scrubbed.
// The rules every kind shares (401, 429, 4xx, 5xx, no connection, no answer) are provider-failures.ts's.
import { aiPackage } from "./ai-sdk-packages";
import { JobEndedError, type AiSdkProviderInfo, type JobEnd } from "./ai-sdk-providers";
import { ProviderFailures, scrub } from "../common/provider-failures";
import { BodyTooLargeError } from "../common/response-bytes";
import { ProviderError, type ProviderHealth } from "../common/types";

/** What an empty answer lacked: in the run's message, and in the health record's reason. */
const WHAT: Record<string, [string, string]> = {
  image: ["any image", "images"],
  audio: ["any sound", "sound"],
  video: ["any video", "videos"],
};

export interface FailureContext {
  providerId: string;
  apiKey: string | null;
  health: ProviderHealth;
  modality: string;
  /** The package's reader of 2xx answers it could not parse (AiSdkProviderInfo.unparsedAnswer). */
  unparsedAnswer?: AiSdkProviderInfo["unparsedAnswer"];
}

/** The provider's own words from an error body: OpenAI, Google, ElevenLabs, fal, Replicate shapes. */
function providerWords(body: string | undefined): string | null {
  if (!body) return null;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const pick = (value: unknown): string | null => {
    if (typeof value === "string") return value;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      return pick(o.message) ?? pick(o.msg) ?? pick(o.detail) ?? pick(o.error) ?? pick(o.title);
    }
    if (Array.isArray(value)) return pick(value[0]);
    return null;
  };
  const o = json as Record<string, unknown>;
  const words =
    json && typeof json === "object" ? (pick(o.error) ?? pick(o.detail) ?? pick(o.message) ?? pick(o.title)) : null;
  return words && words.trim() ? words.trim().slice(0, 500) : null;
}

/**
 * ECONNREFUSED, ENOTFOUND, …: the SDK wraps fetch's error, which hides it in `cause` (in
 * `cause.errors` when several addresses were tried); only a code-like word counts. (Stricter than
 * provider-failures.ts's causeCode, which also takes the cause's message.)
 */
function sdkCauseCode(err: unknown): string {
  type Cause = { code?: unknown; message?: unknown; errors?: Cause[]; cause?: Cause };
  const e = err as Cause;
  for (const cause of [e?.cause, e?.cause?.cause, e]) {
    const code = cause?.code ?? cause?.errors?.[0]?.code;
    if (typeof code === "string" && /^[A-Z_0-9]{2,40}$/.test(code)) return code;
  }
  return "network error";
}

/** The message with the key (and its URL-encoded form) cut out, whatever put it there. */
/** The failure rules for one call's context, every message scrubbed of the key. */
export function failuresFor(ctx: FailureContext): ProviderFailures {
  return new ProviderFailures(ctx.providerId, ctx.health, ctx.apiKey);
}

/** A job's end in the provider's words: a refusal, or a failed job; the run fails, the provider stays in service. */
function jobFailure(ctx: FailureContext, end: JobEnd): ProviderError {
  if (end.refused) return failuresFor(ctx).refused("the request", end.words);
  return new ProviderError(scrub(`The provider ${ctx.providerId} could not make it: ${end.words}`, ctx.apiKey), false);
}

/** What the package's reader makes of a 2xx body it could not parse, or null. */
function unparsedEnd(ctx: FailureContext, body: string | undefined): JobEnd | null {
  if (!ctx.unparsedAnswer || !body) return null;
  try {
    const answer: unknown = JSON.parse(body);
    return answer && typeof answer === "object" && !Array.isArray(answer)
      ? ctx.unparsedAnswer(answer as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The reason a failed job's answer gives, when the package's error carries that answer (Luma's failure_reason). */
function jobReason(data: unknown): string | null {
  const reason = (data as { failure_reason?: unknown } | null)?.failure_reason;
  return typeof reason === "string" && reason.trim() ? reason.trim().slice(0, 500) : null;
}

function statusFailure(
  ctx: FailureContext,
  status: number,
  words: string | null,
  headers: Record<string, string> | undefined,
  what: string,
): ProviderError {
  const failures = failuresFor(ctx);
  const id = ctx.providerId;
  if (status === 408) return failures.down("HTTP 408", `The provider ${id} timed out (HTTP 408). Try again later.`);
  if (status >= 200 && status < 300) {
    return failures.down(
      "an answer that is not its API's",
      `The provider ${id} answered with something that is not the JSON of its API.`,
    );
  }
  // Only 401 says the key was refused: a 403 is the provider's refusal of this request.
  return failures.http(status, words, headers?.["retry-after"], what, [401]);
}

/** An HTTP error answer (status and body as read) under the same rules as the package's calls. */
export function answerFailure(
  ctx: FailureContext,
  status: number,
  body: string,
  retryAfter: string | null,
  what: string,
): ProviderError {
  return statusFailure(ctx, status, providerWords(body), retryAfter ? { "retry-after": retryAfter } : undefined, what);
}

/**
 * The run's error for what a call threw (the run's own abort and the timeout are told apart by
 * the caller first). Marks the provider down for outages.
 */
export function failureOf(err: unknown, ctx: FailureContext): ProviderError {
  const id = ctx.providerId;
  if (err instanceof ProviderError) return err;
  if (err instanceof BodyTooLargeError) return failuresFor(ctx).tooLarge(err);
  if (err instanceof JobEndedError) return jobFailure(ctx, err.end);
  const {
    APICallError,
    DownloadError,
    InvalidResponseDataError,
    NoImageGeneratedError,
    NoSpeechGeneratedError,
    NoVideoGeneratedError,
    RetryError,
  } = aiPackage();
  const error = RetryError.isInstance(err) ? err.lastError : err;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) return failuresFor(ctx).unreachable(sdkCauseCode(error));
    const end = error.statusCode >= 200 && error.statusCode < 300 ? unparsedEnd(ctx, error.responseBody) : null;
    if (end) return jobFailure(ctx, end);
    const what =
      error.requestBodyValues && Object.keys(error.requestBodyValues as object).length > 0
        ? "the request"
        : "to hand over what it made";
    return statusFailure(ctx, error.statusCode, providerWords(error.responseBody), error.responseHeaders, what);
  }
  if (DownloadError.isInstance(error)) {
    if (error.statusCode !== undefined)
      return statusFailure(ctx, error.statusCode, null, undefined, "to hand over what it made");
    return new ProviderError(
      `The provider ${id} gave a result link Atelier does not fetch (not http(s), or a local or private address).`,
      false,
    );
  }
  if (
    NoImageGeneratedError.isInstance(error) ||
    NoSpeechGeneratedError.isInstance(error) ||
    NoVideoGeneratedError.isInstance(error)
  ) {
    const [what, noun] = WHAT[ctx.modality] ?? ["any result", "results"];
    return failuresFor(ctx).down(`an answer without ${noun}`, `The provider ${id} answered without ${what}.`);
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message))
    return failuresFor(ctx).unreachable(sdkCauseCode(error));
  // The provider's job ended badly (a Veo operation with an error, a prediction that failed…):
  // the provider's reason where the error carries its answer, else the SDK's message; it fails the run only.
  const reason = InvalidResponseDataError.isInstance(error) ? jobReason(error.data) : null;
  if (reason) return jobFailure(ctx, { refused: false, words: reason });
  const message = error instanceof Error && error.message ? error.message.slice(0, 500) : String(error);
  return new ProviderError(scrub(`The provider ${id} could not make it: ${message}`, ctx.apiKey), false);
}
