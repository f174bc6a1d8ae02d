// The rules every adapter applies to a call that went wrong, in the words the tests and the docs
// use: a refused key (401, and 403 where the kind says so) and 429 (for its Retry-After, at most
// five minutes) and every outage (5xx, no answer within timeout_ms, no connection) fail the run and
// take the provider's entries out of service for a while; any other 4xx is a refusal of this run
// (the provider's own words, and it stays in service); an answer too large fails the run only.
// Each kind finds the status, the provider's words and the network code its own way.
import { DOWN_FOR_MS, markDown } from "./health";
import type { BodyTooLargeError } from "./response-bytes";
import { ProviderError, type ProviderHealth } from "./types";

/** A Retry-After longer than this is not believed. */
const MAX_BUSY_MS = 5 * 60_000;

/** ECONNREFUSED, ENOTFOUND, …: fetch hides it in `cause` (in `cause.errors` when several addresses were tried). */
export function causeCode(err: unknown): string {
  type Cause = { code?: unknown; message?: unknown; errors?: Cause[] };
  const cause = (err as { cause?: Cause })?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message;
  return typeof code === "string" && code.length <= 80 ? code : "network error";
}

/** A duration for a message: "5 s", "0.3 s". */
export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The message with the key cut out (as is and URL-encoded): a provider may quote it back. */
export function scrub(message: string, apiKey: string | null): string {
  if (!apiKey || apiKey.length < 4) return message;
  return message.split(apiKey).join("[key]").split(encodeURIComponent(apiKey)).join("[key]");
}

/**
 * Turns what went wrong at one provider into the run's error, marking the provider down (in
 * `health`) when it is the provider's fault. Every message has the provider's key cut out.
 */
export class ProviderFailures {
  constructor(
    readonly providerId: string,
    readonly health: ProviderHealth,
    private readonly apiKey: string | null,
  ) {}

  private clean(message: string): string {
    return scrub(message, this.apiKey);
  }

  /**
   * One call within `ms`: `fn` gets a signal that ends with the run or the timeout. What it
   * throws becomes the run's own abort reason when the run was canceled, timedOut when the time
   * ran out, else what `sort` makes of it (scrubbed of the key).
   */
  async within<T>(
    runSignal: AbortSignal,
    ms: number,
    fn: (signal: AbortSignal) => Promise<T>,
    sort: (err: unknown) => unknown,
  ): Promise<T> {
    runSignal.throwIfAborted();
    const timeout = AbortSignal.timeout(ms);
    try {
      return await fn(AbortSignal.any([runSignal, timeout]));
    } catch (err) {
      if (runSignal.aborted) throw runSignal.reason;
      if (timeout.aborted) throw this.timedOut(ms);
      const sorted = sort(err);
      throw sorted instanceof ProviderError
        ? new ProviderError(this.clean(sorted.message), sorted.transient, sorted.providerSeconds)
        : sorted;
    }
  }

  /** An outage: fails the run and takes the provider's entries out of service for a while. */
  down(reason: string, message: string, forMs = DOWN_FOR_MS): ProviderError {
    markDown(this.health, reason, forMs);
    return new ProviderError(this.clean(message), true);
  }

  /** A refusal: fails this run with the provider's own words; the provider stays in service. */
  refused(what: string, detail: string): ProviderError {
    return new ProviderError(this.clean(`The provider ${this.providerId} refused ${what}: ${detail}`), false);
  }

  /**
   * An HTTP error answer. `detail` is the provider's own message, when it gave one; `keyStatuses`
   * are the statuses that mean the key was refused (the provider's words, which may quote the
   * key, are not passed on then).
   */
  http(
    status: number,
    detail: string | null,
    retryAfter: string | null | undefined,
    what: string,
    keyStatuses: readonly number[] = [401, 403],
  ): ProviderError {
    const id = this.providerId;
    if (keyStatuses.includes(status)) {
      return this.down(
        `HTTP ${status}, the key was refused`,
        `The provider ${id} refused this server's credentials (HTTP ${status}); the operators must check its API key.`,
      );
    }
    if (status === 429) {
      const after = Number(retryAfter);
      const forMs = Number.isFinite(after) && after > 0 ? Math.min(after * 1000, MAX_BUSY_MS) : DOWN_FOR_MS;
      return this.down(
        "HTTP 429, too many requests",
        `The provider ${id} is busy (HTTP 429)${detail ? `: ${detail}` : ""}. Try again later.`,
        forMs,
      );
    }
    if (status >= 400 && status < 500) return this.refused(what, detail ?? `HTTP ${status}`);
    return this.down(
      `HTTP ${status}`,
      `The provider ${id} failed (HTTP ${status}${detail ? `: ${detail}` : ""}). Try again later.`,
    );
  }

  unreachable(code: string): ProviderError {
    return this.down(
      `unreachable (${code})`,
      `The provider ${this.providerId} could not be reached (${code}). Try again later.`,
    );
  }

  timedOut(ms: number): ProviderError {
    return this.down(
      `no answer within ${seconds(ms)}`,
      `The provider ${this.providerId} did not answer within ${seconds(ms)}. Try again later.`,
    );
  }

  /** An answer larger than the adapter reads: fails the run only. */
  tooLarge(err: BodyTooLargeError): ProviderError {
    return new ProviderError(this.clean(`The provider ${this.providerId} sent ${err.message}.`), false);
  }
}
