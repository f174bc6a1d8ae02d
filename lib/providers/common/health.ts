// A provider's health as this process saw it: a failure that says "the provider is down"
// (5xx, unreachable, timeout) takes its entries out of service for a short while, so new runs
// get 503 with Retry-After instead of failing one after another. The process that saw it also
// writes it to the store (RunTools.reportProviderHealth → provider_outages), so the API server
// learns of an outage a separate worker process (`npm run worker`) ran into.
import type { ProviderHealth } from "./types";

/** How long one such failure keeps the provider's entries out of service. */
export const DOWN_FOR_MS = 30_000;

export function createHealth(): ProviderHealth {
  return { lastFailure: null, downUntil: null };
}

/** `reason` is a short clause such as "HTTP 502" or "no answer within 60 s". */
export function markDown(health: ProviderHealth, reason: string, forMs = DOWN_FOR_MS, now = Date.now()): void {
  health.lastFailure = { at: new Date(now).toISOString(), message: reason };
  health.downUntil = Math.max(health.downUntil ?? 0, now + forMs);
}

/** A good answer ends a down spell early (another run may have got through once it lapsed). */
export function markUp(health: ProviderHealth): void {
  health.downUntil = null;
}

export function isDown(health: ProviderHealth, now = Date.now()): boolean {
  return health.downUntil !== null && health.downUntil > now;
}

/**
 * Null while the provider is healthy; else why its entries cannot run now and until when, in the
 * shape of ModelDefinition.unavailableReason (the catalog adds "It is expected back at …").
 */
export function providerUnavailableReason(
  providerId: string,
  health: ProviderHealth,
  now = Date.now(),
): { message: string; until: string } | null {
  if (!isDown(health, now)) return null;
  const failure = health.lastFailure ? ` (${health.lastFailure.message}, at ${health.lastFailure.at})` : "";
  return {
    message: `its provider ${providerId} is failing${failure}`,
    until: new Date(health.downUntil!).toISOString(),
  };
}
