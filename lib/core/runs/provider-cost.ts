// What a run cost the operators upstream, from its entry's `cost` (the providers file,
// lib/providers/entry-config.ts): per unit, priced from the run's input exactly as its price is
// (pricing.ts, so drivers and overrides mean the same); or per second of provider time, the
// seconds the provider reported (Replicate's `metrics.predict_time`) or, for a provider that
// reports none (fal, ComfyUI, the AI SDK's), the run's wall time from its start to its finish.
// Rounded up to a whole micro-dollar, as a price is. Ops-only: kept in
// generations.provider_cost_micros for the margins (lib/core/ops/margins.ts), never presented to a
// workspace.
import type { ProviderCost } from "../catalog/model-definition";
import { parseUsd, type Micros } from "../../primitives/money";
import { priceInput } from "./pricing";

export interface ProviderTime {
  /** The seconds the provider reported for the run; null when it reported none. */
  reportedSeconds: number | null;
  /** The run's wall time in milliseconds, from its start to its finish: the fallback. */
  wallMs: number;
}

/** A week: a reported time beyond it, negative or not a number is not believed (the wall time counts instead). */
const MAX_REPORTED_SECONDS = 7 * 86_400;

function believable(seconds: number | null): seconds is number {
  return seconds !== null && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_REPORTED_SECONDS;
}

/**
 * The run's provider cost in micro-dollars; null when its entry declares none (built-in models,
 * entries without `cost`) or when it cannot be counted (out of range): an unknown cost, never a
 * wrong one, and never a reason to fail a run the workspace has paid for.
 */
export function providerCostMicros(
  cost: ProviderCost | undefined,
  input: Record<string, unknown>,
  time: ProviderTime,
): Micros | null {
  if (!cost) return null;
  try {
    if (cost.per === "unit") return priceInput(cost.pricing, input);
    const perSecond = parseUsd(cost.usd);
    if (perSecond === null) return null;
    // Whole microseconds, so the product is exact; then up to a whole micro-dollar.
    const microseconds = believable(time.reportedSeconds)
      ? BigInt(Math.round(time.reportedSeconds * 1_000_000))
      : BigInt(Math.max(0, Math.round(time.wallMs))) * 1_000n;
    const micros = (microseconds * BigInt(perSecond) + 999_999n) / 1_000_000n;
    return micros > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(micros);
  } catch {
    return null;
  }
}

/**
 * What a failed job cost upstream: only a per-second cost on the time its provider reported
 * billing (Replicate bills a failed prediction's time); nothing was made, so a per-unit cost is
 * none, and a wall time is no evidence of billing. Null when unknown.
 */
export function failedJobCostMicros(cost: ProviderCost | undefined, reportedSeconds: number | null): Micros | null {
  if (cost?.per !== "second" || !believable(reportedSeconds)) return null;
  return providerCostMicros(cost, {}, { reportedSeconds, wallMs: 0 });
}
