// Reading the audit log: a workspace's events for its owners and admins (the API, the studio's
// Audit page), and every workspace's for ops. Newest first, keyset paged like every list, the
// cursor bound to the filters (and, for ops, to the workspace chosen).
import type { AuditEventsTable, Db } from "../../store/database";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import { afterPosition, keysetPage } from "../../primitives/paging";
import { requireScope, type Ctx, type Services } from "../context";
import type { OpsCtx } from "../ops/ops-principal";
import { requireRole } from "../workspaces/roles";
import type { AuditAction, AuditTargetType } from "./audit-actions";
import { parseAuditFilters, type AuditFilters, type AuditQuery } from "./audit-filters";
import type { AuditEvent, AuditEventList } from "./audit-shape";

export type { AuditEvent, AuditEventList };

export interface AuditPageQuery extends AuditQuery {
  limit?: string;
  cursor?: string;
}

function present(row: AuditEventsTable): AuditEvent {
  return {
    id: row.id,
    object: "audit_event",
    action: row.action as AuditAction,
    actor: {
      type: row.actor_type,
      id: row.actor_id,
      ...(row.actor_email !== null && { email: row.actor_email }),
    },
    target: { type: row.target_type as AuditTargetType, id: row.target_id },
    ip: row.ip,
    changes: JSON.parse(row.changes_json) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

/** Which events: one workspace's, the install's own (null), or all of them. */
type Scope = string | null | "all";

async function auditPage(db: Db, secret: string, scope: Scope, filters: AuditFilters, query: AuditPageQuery) {
  return keysetPage(
    {
      secret,
      limit: query.limit,
      cursor: query.cursor,
      filters: JSON.stringify([filters.canonical, scope]),
    },
    (after, take) => {
      let q = db.selectFrom("audit_events").selectAll();
      if (scope === null) q = q.where("workspace_id", "is", null);
      else if (scope !== "all") q = q.where("workspace_id", "=", scope);
      if (filters.actions) q = q.where("action", "in", filters.actions);
      if (filters.actor !== null) q = q.where("actor_id", "=", filters.actor);
      if (filters.from !== null) q = q.where("created_at", ">=", filters.from);
      if (filters.before !== null) q = q.where("created_at", "<", filters.before);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
}

/**
 * GET /v1/audit-events: the workspace's events. Owners and admins (a key a member made acts with
 * their role); a key the admin CLI made has no role and reads with its workspace:read scope.
 */
export async function listAuditEvents(ctx: Ctx, query: AuditPageQuery): Promise<AuditEventList> {
  requireScope(ctx, "workspace:read");
  requireRole(ctx, "admin", "read the audit log");
  const filters = parseAuditFilters(query);
  const page = await auditPage(ctx.db, ctx.services.secretKey, ctx.workspaceId, filters, query);
  return {
    object: "list",
    url: "/v1/audit-events",
    data: page.rows.map(present),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** GET /v1/audit-events/{id}: one event of the workspace; another workspace's, or the install's, is not found. */
export async function getAuditEvent(ctx: Ctx, input: { id: string }): Promise<AuditEvent> {
  requireScope(ctx, "workspace:read");
  requireRole(ctx, "admin", "read the audit log");
  const row =
    isPossibleId(input.id) && hasIdPrefix("auditEvent", input.id)
      ? await ctx.db
          .selectFrom("audit_events")
          .selectAll()
          .where("workspace_id", "=", ctx.workspaceId)
          .where("id", "=", input.id)
          .executeTakeFirst()
      : undefined;
  if (!row) throw new ApiError("resource_not_found", `No audit event ${input.id.slice(0, 100)} in this workspace.`);
  return present(row);
}

export type OpsAuditEvent = AuditEvent & { workspace_id: string | null; workspace_name: string | null };

/** "install": the install's own events (no workspace); absent or "": every workspace's. */
export interface OpsAuditQuery extends AuditPageQuery {
  workspace?: string;
}

/** Ops: every workspace's events, or one workspace's, or the install's own (an ops principal only). */
export async function listAuditEventsForOps(
  ops: OpsCtx,
  services: Pick<Services, "secretKey">,
  query: OpsAuditQuery,
): Promise<{ data: OpsAuditEvent[]; has_more: boolean; next_cursor: string | null }> {
  const workspace = query.workspace || undefined;
  let scope: Scope = "all";
  if (workspace === "install") scope = null;
  else if (workspace !== undefined) {
    if (!isPossibleId(workspace) || !hasIdPrefix("workspace", workspace))
      throw new ApiError("invalid_parameter", 'workspace is a workspace ID (ws_…) or "install".', {
        param: "workspace",
      });
    scope = workspace;
  }
  const filters = parseAuditFilters(query);
  const page = await auditPage(ops.db, services.secretKey, scope, filters, query);
  const ids = [...new Set(page.rows.flatMap((row) => (row.workspace_id === null ? [] : [row.workspace_id])))];
  const names = new Map(
    ids.length === 0
      ? []
      : (await ops.db.selectFrom("workspaces").select(["id", "name"]).where("id", "in", ids).execute()).map(
          (w) => [w.id, w.name] as const,
        ),
  );
  return {
    data: page.rows.map((row) => ({
      ...present(row),
      workspace_id: row.workspace_id,
      workspace_name: row.workspace_id === null ? null : (names.get(row.workspace_id) ?? null),
    })),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}
