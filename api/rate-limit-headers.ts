import type { RateLimitState } from "./rate-limit";

/** The RateLimit-* headers every answer carries (SPEC.md "Limits"): the per-IP budget. */
export function rateLimitHeaders(rate: RateLimitState): Record<string, string> {
  return {
    "RateLimit-Limit": String(rate.limit),
    "RateLimit-Remaining": String(rate.remaining),
    "RateLimit-Reset": String(rate.resetSeconds),
  };
}
