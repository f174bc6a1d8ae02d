import type { RateLimitState } from "./rate-limit";

/** The RateLimit-* headers every answer carries (docs/api.md, "Limits"): the per-IP budget. */
export function rateLimitHeaders(rate: RateLimitState, into: Record<string, string> = {}): Record<string, string> {
  into["RateLimit-Limit"] = String(rate.limit);
  into["RateLimit-Remaining"] = String(rate.remaining);
  into["RateLimit-Reset"] = String(rate.resetSeconds);
  return into;
}
