// The studio's Usage charts: a range's runs and spend per day and model, in one statement grouped
// on both (rather than the day grouping asked once per model or the model grouping once per day).
// Counted as GET /v1/usage counts (lib/core/usage/usage.ts), so the charts add up to its totals.
import { sql } from "kysely";
import type { Db } from "../../store/database";
import { requireScope, type Ctx } from "../context";
import { requireRole } from "../workspaces/roles";
import { countColumns, countsOf, runsInRange, type Counts, type UsageScope } from "./usage";
import { parseUsageQuery, type UsageQuery } from "./usage-query";

export interface DailyUsageRow extends Counts {
  /** `YYYY-MM-DD` (UTC), the day the runs started. */
  day: string;
  model: string;
}

export interface DailyUsage {
  from: string;
  to: string;
  /** Days in order, then models by name; only the pairs that had runs. */
  data: DailyUsageRow[];
  total: { runs: number; costMicros: number };
}

/** The checked query's runs per day and model, on `reads`. */
export async function readDailyUsage(
  reads: Db,
  scope: UsageScope,
  query: Omit<UsageQuery, "group_by">,
  now: Date,
): Promise<DailyUsage> {
  const range = parseUsageQuery({ ...query, group_by: "day" }, now);
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await runsInRange(reads, scope, range)
    .select([day.as("day"), "model", ...countColumns()])
    .groupBy([day, "model"])
    .execute();
  const data = rows
    .map((r) => ({ day: r.day, model: r.model, ...countsOf(r) }))
    .sort((a, b) => (a.day === b.day ? (a.model < b.model ? -1 : 1) : a.day < b.day ? -1 : 1));
  const total = { runs: 0, costMicros: 0 };
  for (const r of data) {
    total.runs += r.runs;
    total.costMicros += r.costMicros;
  }
  return { from: range.from, to: range.to, data, total };
}

/** A workspace's runs per day and model: read as GET /v1/usage is (owners and admins). */
export async function getDailyUsage(
  ctx: Ctx,
  query: Omit<UsageQuery, "group_by">,
  now = new Date(),
): Promise<DailyUsage> {
  requireScope(ctx, "workspace:read");
  requireRole(ctx, "admin", "read the workspace's usage and spend");
  return readDailyUsage(ctx.services.historyReads ?? ctx.db, { workspaceId: ctx.workspaceId }, query, now);
}
