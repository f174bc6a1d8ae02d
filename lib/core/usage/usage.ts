// GET /v1/usage: a workspace's runs and what they were charged over a range of days, grouped.
// A run counts on the day it was created (UTC), whenever it ended, so a range's figures never
// change once its runs have ended, and the total equals the ledger's charges for those runs.
// One grouped query over the workspace's runs in the range (an index range on workspace and
// created_at); the names of keys and members come after, by ID, for the groups found.
import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../store/database";
import { hasIdPrefix } from "../../primitives/ids";
import { formatUsd } from "../../primitives/money";
import { requireScope, type Ctx } from "../context";
import { requireRole } from "../workspaces/roles";
import { parseUsageQuery, type UsageQuery, type UsageRange } from "./usage-query";
import type { Usage, UsageGroup, UsageRow } from "./usage-shape";

export type { Usage, UsageQuery };

export interface Counts {
  runs: number;
  succeeded: number;
  failed: number;
  canceled: number;
  costMicros: number;
}

/** What the rows are grouped on: key and member both start from who created the run. */
function groupColumn(groupBy: UsageGroup): RawBuilder<string | null> {
  if (groupBy === "day") return sql<string>`substr(created_at, 1, 10)`;
  if (groupBy === "model") return sql<string>`model`;
  if (groupBy === "source") return sql<string>`source`;
  return sql<string | null>`created_by`;
}

const countOf = (status: string) => sql<number | string>`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`;

/** Whose runs: one workspace's, or (ops only, lib/core/usage/usage-ops.ts) every workspace's. */
export type UsageScope = { workspaceId: string } | "all";

/** The runs created in the range (an index range on workspace and created_at), with the model filter. */
export function runsInRange(db: Db, scope: UsageScope, range: UsageRange) {
  let q = db
    .selectFrom("generations")
    // ISO text with milliseconds compares as time: the range's first instant to its last.
    .where("created_at", ">=", `${range.from}T00:00:00.000Z`)
    .where("created_at", "<=", `${range.to}T23:59:59.999Z`);
  if (scope !== "all") q = q.where("workspace_id", "=", scope.workspaceId);
  if (range.model !== null) {
    const at = range.model.indexOf("@");
    q = q.where("model_base", "=", at === -1 ? range.model : range.model.slice(0, at));
    if (at !== -1) q = q.where("model", "=", range.model);
  }
  return q;
}

/** The counts of a group of runs, as select expressions (one home for what a row counts). */
export function countColumns() {
  return [
    sql<number | string>`count(*)`.as("runs"),
    countOf("succeeded").as("succeeded"),
    countOf("failed").as("failed"),
    countOf("canceled").as("canceled"),
    sql<number | string | null>`sum(coalesce(charged_micros, 0))`.as("cost"),
  ] as const;
}

/** A row of countColumns() as numbers (PostgreSQL answers sums as text). */
export function countsOf(r: {
  runs: number | string;
  succeeded: number | string;
  failed: number | string;
  canceled: number | string;
  cost: number | string | null;
}): Counts {
  return {
    runs: Number(r.runs),
    succeeded: Number(r.succeeded),
    failed: Number(r.failed),
    canceled: Number(r.canceled),
    costMicros: Number(r.cost ?? 0),
  };
}

/** The runs created in the range, grouped: one statement. */
async function groupedRuns(db: Db, scope: UsageScope, range: UsageRange): Promise<Map<string | null, Counts>> {
  const group = groupColumn(range.groupBy);
  const q = runsInRange(db, scope, range).select([group.as("grp"), ...countColumns()]);
  const rows = await q.groupBy(group).execute();
  return new Map(rows.map((r) => [r.grp, countsOf(r)]));
}

function add(into: Map<string | null, Counts>, key: string | null, c: Counts): void {
  const had = into.get(key);
  if (!had) into.set(key, { ...c });
  else {
    had.runs += c.runs;
    had.succeeded += c.succeeded;
    had.failed += c.failed;
    had.canceled += c.canceled;
    had.costMicros += c.costMicros;
  }
}

/** Keys and members, folded from the creators: a key's runs count for the member who made it. */
async function byActor(
  db: Db,
  scope: UsageScope,
  groupBy: "key" | "member",
  creators: Map<string | null, Counts>,
): Promise<{ groups: Map<string | null, Counts>; labels: Map<string, string> }> {
  const keyIds = [...creators.keys()].filter((id): id is string => id !== null && hasIdPrefix("apiKey", id));
  let keyQuery = db.selectFrom("api_keys").select(["id", "name", "created_by"]).where("id", "in", keyIds);
  if (scope !== "all") keyQuery = keyQuery.where("workspace_id", "=", scope.workspaceId);
  const keys = keyIds.length ? await keyQuery.execute() : [];
  const groups = new Map<string | null, Counts>();
  if (groupBy === "key") {
    for (const [creator, c] of creators)
      add(groups, creator !== null && hasIdPrefix("apiKey", creator) ? creator : null, c);
    return { groups, labels: new Map(keys.map((k) => [k.id, k.name])) };
  }
  const makers = new Map(keys.map((k) => [k.id, k.created_by]));
  for (const [creator, c] of creators) {
    const member = creator === null ? null : hasIdPrefix("user", creator) ? creator : (makers.get(creator) ?? null);
    add(groups, member, c);
  }
  const userIds = [...groups.keys()].filter((id): id is string => id !== null);
  const users = userIds.length
    ? await db.selectFrom("users").select(["id", "email"]).where("id", "in", userIds).execute()
    : [];
  return { groups, labels: new Map(users.map((u) => [u.id, u.email])) };
}

function row(groupBy: UsageGroup, id: string | null, label: string | null, c: Counts): UsageRow {
  const counts = {
    runs: c.runs,
    succeeded: c.succeeded,
    failed: c.failed,
    canceled: c.canceled,
    cost_usd: formatUsd(c.costMicros),
  };
  switch (groupBy) {
    case "day":
      return { day: id!, ...counts };
    case "model":
      return { model: id!, ...counts };
    case "source":
      return { source: id as "api" | "mcp" | "studio", ...counts };
    case "key":
      return { key: id, name: label, ...counts };
    case "member":
      return { member: id, email: label, ...counts };
  }
}

/** Days in order; any other group by what it cost (most first), then by its ID (none last). */
function ordered(groupBy: UsageGroup, groups: Map<string | null, Counts>): Array<[string | null, Counts]> {
  const byId = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
  return [...groups].sort(([a, ca], [b, cb]) =>
    groupBy === "day" ? byId(a, b) : cb.costMicros - ca.costMicros || byId(a, b),
  );
}

/**
 * GET /v1/usage. Spend is the workspace's money, so owners and admins read it (a key a member made
 * acts with their role); a key the admin CLI made has no role and reads with its workspace:read scope.
 */
export async function getUsage(ctx: Ctx, query: UsageQuery, now = new Date()): Promise<Usage> {
  requireScope(ctx, "workspace:read");
  requireRole(ctx, "admin", "read the workspace's usage and spend");
  const range = parseUsageQuery(query, now);
  return readUsage(ctx.services.historyReads ?? ctx.db, ctx.db, { workspaceId: ctx.workspaceId }, range);
}

/** The answer for a checked range: the grouped runs on `reads`, names of keys and members on `db`. */
export async function readUsage(reads: Db, db: Db, scope: UsageScope, range: UsageRange): Promise<Usage> {
  const grouped = await groupedRuns(reads, scope, range);
  let groups = grouped;
  let labels = new Map<string, string>();
  if (range.groupBy === "key" || range.groupBy === "member")
    ({ groups, labels } = await byActor(db, scope, range.groupBy, grouped));
  const data = ordered(range.groupBy, groups).map(([id, c]) =>
    row(range.groupBy, id, id === null ? null : (labels.get(id) ?? null), c),
  );
  let runs = 0;
  let costMicros = 0;
  for (const c of groups.values()) {
    runs += c.runs;
    costMicros += c.costMicros;
  }
  return {
    object: "usage",
    from: range.from,
    to: range.to,
    group_by: range.groupBy,
    data,
    total: { runs, cost_usd: formatUsd(costMicros) },
  };
}
