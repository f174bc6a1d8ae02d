// Margins, for the operators of the install: what the runs of every workspace were charged against
// what they cost upstream (generations.provider_cost_micros, the providers file's `cost`), per
// model and provider, over a range of UTC days. Counted as usage counts (lib/core/usage/usage.ts:
// a run counts on the day it was created, the same range rules and the same charge columns), so
// the charges add up to GET /v1/usage's and to the ledger's. The margin is taken over the runs
// whose cost is known only: a built-in model's run, or one of an entry without `cost`, has no
// cost, and counting its charge as profit would overstate the margin. Ops-only: an OpsCtx.
import { sql } from "kysely";
import { allCatalogEntries } from "../catalog/catalog";
import { countColumns, countsOf, runsInRange } from "../usage/usage";
import { parseUsageQuery, type UsageQuery } from "../usage/usage-query";
import type { OpsCtx } from "./ops-principal";

export type MarginsQuery = Pick<UsageQuery, "from" | "to" | "model">;

export interface MarginFigures {
  runs: number;
  succeeded: number;
  /** What the runs were charged (the ledger's charges for them). */
  chargedMicros: number;
  /** Runs whose provider cost is known (succeeded runs of an entry with `cost`). */
  costedRuns: number;
  /** Their provider cost. */
  costMicros: number;
  /** What those same runs were charged: the margin's other side. */
  costedChargedMicros: number;
  /** costedChargedMicros − costMicros; null when no run's cost is known. */
  marginMicros: number | null;
  /** The margin as a percentage of what the costed runs were charged, one decimal; null when that is 0. */
  marginPercent: number | null;
}

export interface MarginRow extends MarginFigures {
  model: string;
  /** The provider's id ("atelier" for built-ins); null for a run that never started whose model is no longer in the catalog. */
  provider: string | null;
}

export interface Margins {
  /** First and last day, `YYYY-MM-DD` (UTC), both included. */
  from: string;
  to: string;
  /** What was charged most first, then by model and provider. */
  data: MarginRow[];
  total: MarginFigures;
}

type Sums = Pick<MarginFigures, "runs" | "succeeded" | "chargedMicros" | "costedRuns" | "costMicros" | "costedChargedMicros">; // prettier-ignore

function withMargin(s: Sums): MarginFigures {
  const marginMicros = s.costedRuns === 0 ? null : s.costedChargedMicros - s.costMicros;
  const marginPercent =
    marginMicros === null || s.costedChargedMicros === 0
      ? null
      : Math.round((1000 * marginMicros) / s.costedChargedMicros) / 10;
  return { ...s, marginMicros, marginPercent };
}

function add(into: Sums, s: Sums): void {
  into.runs += s.runs;
  into.succeeded += s.succeeded;
  into.chargedMicros += s.chargedMicros;
  into.costedRuns += s.costedRuns;
  into.costMicros += s.costMicros;
  into.costedChargedMicros += s.costedChargedMicros;
}

const empty = (): Sums => ({ runs: 0, succeeded: 0, chargedMicros: 0, costedRuns: 0, costMicros: 0, costedChargedMicros: 0 }); // prettier-ignore

/**
 * The range's runs per model and provider, in one grouped read on `ops.reads`. A run that never
 * started has no provider yet (canceled while queued, or still queued): it counts for the provider
 * its model's entry names now.
 */
export async function opsMargins(ops: OpsCtx, query: MarginsQuery, now = new Date()): Promise<Margins> {
  const range = parseUsageQuery({ from: query.from, to: query.to, model: query.model, group_by: "model" }, now);
  const rows = await runsInRange(ops.reads ?? ops.db, "all", range)
    .select([
      "model",
      "provider",
      ...countColumns(),
      sql<number | string>`count(provider_cost_micros)`.as("costed"),
      sql<number | string | null>`sum(provider_cost_micros)`.as("provider_cost"),
      sql<
        number | string | null
      >`sum(case when provider_cost_micros is not null then coalesce(charged_micros, 0) else 0 end)`.as(
        "costed_charged",
      ),
    ])
    .groupBy(["model", "provider"])
    .execute();
  const providerOf = new Map(allCatalogEntries().map((d) => [d.id, d.provider ?? "atelier"]));
  const groups = new Map<string, MarginRow & Sums>();
  for (const r of rows) {
    const provider = r.provider ?? providerOf.get(r.model) ?? null;
    const key = JSON.stringify([r.model, provider]);
    const counts = countsOf(r);
    const sums: Sums = {
      runs: counts.runs,
      succeeded: counts.succeeded,
      chargedMicros: counts.costMicros,
      costedRuns: Number(r.costed),
      costMicros: Number(r.provider_cost ?? 0),
      costedChargedMicros: Number(r.costed_charged ?? 0),
    };
    const group = groups.get(key);
    if (group) add(group, sums);
    else groups.set(key, { model: r.model, provider, ...sums, marginMicros: null, marginPercent: null });
  }
  const total = empty();
  const data = [...groups.values()]
    .map((g): MarginRow => {
      add(total, g);
      return { ...g, ...withMargin(g) };
    })
    .sort(
      (a, b) =>
        b.chargedMicros - a.chargedMicros ||
        (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) ||
        (a.provider ?? "").localeCompare(b.provider ?? ""),
    );
  return { from: range.from, to: range.to, data, total: withMargin(total) };
}
