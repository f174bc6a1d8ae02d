// Usage across workspaces, for the operators of the install (the studio's Usage page with "All
// workspaces" or any one of them): the same counts as GET /v1/usage, behind the ops principal.
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import type { OpsCtx } from "../ops/ops-principal";
import { readUsage, type Usage, type UsageScope } from "./usage";
import { readDailyUsage, type DailyUsage } from "./usage-daily";
import { parseUsageQuery, type UsageQuery } from "./usage-query";

export interface OpsUsageQuery extends UsageQuery {
  /** A workspace ID (`ws_…`); absent or empty: every workspace. */
  workspace?: string;
}

/** Which workspaces: one (whether or not it exists: an unknown one has no runs) or all. */
function scopeOf(workspace: string | undefined): UsageScope {
  if (!workspace) return "all";
  if (!isPossibleId(workspace) || !hasIdPrefix("workspace", workspace))
    throw new ApiError("invalid_parameter", "workspace is a workspace ID (ws_…), or empty for all workspaces.", {
      param: "workspace",
    });
  return { workspaceId: workspace };
}

export async function getUsageForOps(ops: OpsCtx, query: OpsUsageQuery, now = new Date()): Promise<Usage> {
  const scope = scopeOf(query.workspace);
  return readUsage(ops.reads ?? ops.db, ops.db, scope, parseUsageQuery(query, now));
}

export async function getDailyUsageForOps(
  ops: OpsCtx,
  query: Omit<OpsUsageQuery, "group_by">,
  now = new Date(),
): Promise<DailyUsage> {
  return readDailyUsage(ops.reads ?? ops.db, scopeOf(query.workspace), query, now);
}
