// The API's retry rules (docs/api.md, "Retry rules"), as pure functions (retry.test.ts checks them; http.ts applies them):
//   network error or timeout      → again, backoff, the same Idempotency-Key
//   429                           → again after Retry-After seconds (a minute when absent)
//   500, 502, 503, 504            → again with backoff 1 s, 2 s, 4 s … up to a minute;
//                                   a 503 with Retry-After waits that long
//   any other 4xx (and 501, …)    → never
// Only requests that are safe to repeat are retried at all (the caller of http.ts says which).

export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). */
  maxRetries: number;
  /** The first backoff; each next one doubles. */
  baseMs: number;
  /** The backoff's ceiling. */
  maxMs: number;
  /** Multiplies every wait (backoff and Retry-After); 1 in production, small in tests. */
  scale: number;
  /** A Retry-After longer than this is not waited for: the error is thrown at once. */
  maxRetryAfterMs: number;
  /** [0, 1); Math.random unless a test fixes it. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  baseMs: 1000,
  maxMs: 60_000,
  scale: 1,
  maxRetryAfterMs: 120_000,
  random: Math.random,
};

/** A 429 without Retry-After waits a minute. */
export const RATE_LIMIT_DEFAULT_WAIT_MS = 60_000;

/** The statuses the retry rules retry. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * `Retry-After` in milliseconds: delta-seconds (`"2"`) or an HTTP date (`"Wed, 21 Oct 2026
 * 07:28:00 GMT"`, RFC 9110 §10.2.3; a past date is 0). Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (v === "") return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/**
 * The exponential backoff before retry number `retry` (0 for the first retry): baseMs · 2^retry,
 * capped at maxMs, with jitter that takes up to a quarter off (so 1 s is 0.75–1 s, and the cap
 * is never passed).
 */
export function backoffMs(retry: number, policy: Pick<RetryPolicy, "baseMs" | "maxMs" | "random">): number {
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry, 30));
  return full * (0.75 + 0.25 * policy.random());
}

/** What ended an attempt: an answer's status and headers, or no answer. */
export type Outcome = { kind: "answer"; status: number; headers: Headers } | { kind: "network" };

/**
 * Milliseconds to wait before retry number `retry` after `outcome` (already scaled), or null when
 * the rules say not to retry it. `retry` counts retries already made; callers check maxRetries.
 */
export function retryDelayMs(
  outcome: Outcome,
  retry: number,
  policy: RetryPolicy,
  now: number = Date.now(),
): number | null {
  let wait: number;
  if (outcome.kind === "network") {
    wait = backoffMs(retry, policy);
  } else if (!isRetryableStatus(outcome.status)) {
    return null;
  } else {
    const retryAfter = parseRetryAfter(outcome.headers.get("retry-after"), now);
    const told = outcome.status === 429 || outcome.status === 503 ? retryAfter : null;
    // A wait longer than the caller accepts (a daily allowance, a model out of service for
    // hours) is handed back as the error, with its `retryAfter`, rather than slept through.
    if (told !== null && told > policy.maxRetryAfterMs) return null;
    if (told !== null) wait = told;
    else if (outcome.status === 429) wait = RATE_LIMIT_DEFAULT_WAIT_MS;
    else wait = backoffMs(retry, policy);
  }
  return wait * policy.scale;
}
