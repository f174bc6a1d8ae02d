// The Usage page's figures from the core's runs per day and model: every day of the range (the
// quiet ones at zero, so the axis is time), the models by spend (the top seven by name, the rest
// as one "other models"), runs by outcome, and the per-day and per-model rows of the tables that
// stand in for the charts.
import type { DailyUsage } from "@/lib/core/usage/usage-daily";
import type { RunsPerDay, SpendSeries } from "@/components/usage-charts";

const DAY_MS = 86_400_000;
const NAMED_MODELS = 7;

export interface DayRow {
  day: string;
  runs: number;
  succeeded: number;
  failed: number;
  costMicros: number;
}

export interface ModelRow {
  model: string;
  runs: number;
  costMicros: number;
}

export function chartData(usage: DailyUsage) {
  const days: string[] = [];
  for (let at = Date.parse(usage.from); at <= Date.parse(usage.to); at += DAY_MS)
    days.push(new Date(at).toISOString().slice(0, 10));
  const index = new Map(days.map((d, i) => [d, i]));

  const perModel = new Map<string, ModelRow>();
  const perDay: DayRow[] = days.map((day) => ({ day, runs: 0, succeeded: 0, failed: 0, costMicros: 0 }));
  const runs: RunsPerDay = { succeeded: days.map(() => 0), failed: days.map(() => 0), other: days.map(() => 0) };
  for (const r of usage.data) {
    const i = index.get(r.day)!;
    const m = perModel.get(r.model) ?? { model: r.model, runs: 0, costMicros: 0 };
    m.runs += r.runs;
    m.costMicros += r.costMicros;
    perModel.set(r.model, m);
    const d = perDay[i]!;
    d.runs += r.runs;
    d.succeeded += r.succeeded;
    d.failed += r.failed;
    d.costMicros += r.costMicros;
    runs.succeeded[i]! += r.succeeded;
    runs.failed[i]! += r.failed;
    runs.other[i]! += r.runs - r.succeeded - r.failed;
  }
  const models = [...perModel.values()].sort((a, b) => b.costMicros - a.costMicros || (a.model < b.model ? -1 : 1));
  const named = models.filter((m) => m.costMicros > 0).slice(0, NAMED_MODELS);
  const series: SpendSeries[] = named.map((m, n) => ({
    name: m.model,
    color: `var(--chart-${n + 1})`,
    micros: days.map(() => 0),
  }));
  const rest: SpendSeries = { name: "other models", color: "var(--chart-8)", micros: days.map(() => 0) };
  const seriesOf = new Map(series.map((s) => [s.name, s]));
  for (const r of usage.data) (seriesOf.get(r.model) ?? rest).micros[index.get(r.day)!]! += r.costMicros;
  if (rest.micros.some((v) => v > 0)) series.push(rest);
  return { days, series, runs, perDay, models };
}
