// A routed run's attempts (migration 031): which targets it tried, how each ended and how long
// each took. Only the studio's run page and the ops run page read them; the public Generation
// names only the provider that produced the output.
import type { RouteAttempt } from "../catalog/model-definition";
import { requireScope, type Ctx } from "../context";
import { requireRow } from "./generations";

const OUTCOMES: readonly string[] = ["succeeded", "failed", "skipped"] satisfies RouteAttempt["outcome"][];

function isAttempt(value: unknown): value is RouteAttempt {
  if (typeof value !== "object" || value === null) return false;
  const a = value as Record<string, unknown>;
  return (
    typeof a.provider === "string" &&
    typeof a.upstream_model === "string" &&
    typeof a.outcome === "string" &&
    OUTCOMES.includes(a.outcome) &&
    (a.reason === null || typeof a.reason === "string") &&
    typeof a.started_at === "string" &&
    typeof a.ms === "number" &&
    Number.isFinite(a.ms)
  );
}

/**
 * The stored column as attempts; null for a run of one target, and for anything not a list of
 * attempts: a page that shows them should lose the list, not fail, on a row it cannot read.
 */
export function parseRouteAttempts(json: string | null | undefined): RouteAttempt[] | null {
  if (json === null || json === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || !value.every(isAttempt)) return null;
  // Only the known fields: the list is drawn as is, and nothing else in the column should travel.
  return value.map(({ provider, upstream_model, outcome, reason, started_at, ms }) => ({
    provider,
    upstream_model,
    outcome,
    reason,
    started_at,
    ms,
  }));
}

/** The attempts of a run of ctx's workspace (the studio's run page); null when it had one target. */
export async function runAttempts(ctx: Ctx, input: { id: string }): Promise<RouteAttempt[] | null> {
  requireScope(ctx, "generations:read");
  const row = await requireRow(ctx, input.id);
  return parseRouteAttempts(row.route_attempts_json);
}
