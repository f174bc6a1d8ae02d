// Workspace webhook endpoints: each receives the workspace's events (all, or the types it names).
import type { WebhookEndpointsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { nowIso, type Ctx } from "../context";
import { requireWebhookAdmin } from "./webhook-admin";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, newId } from "../../primitives/ids";
import { afterPosition, keysetPage } from "../../primitives/paging";
import { parseWebhookUrl, refuseUnknownFields, requireObject } from "../runs/run-request";
import { requireSafeWebhookUrl } from "./webhook-url";
import type { DeletedWebhookEndpoint, WebhookEndpoint, WebhookEndpointList } from "./webhook-shape";
import { fromTo, recordAudit, type AuditChanges } from "../audit/audit-writer";

export const EVENT_TYPES = [
  "generation.succeeded",
  "generation.failed",
  "generation.canceled",
  "budget.threshold_reached",
  "credits.low",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const MAX_ENDPOINTS = 20;
const DESCRIPTION_MAX = 500;
const FIELDS = ["url", "description", "event_types", "enabled"] as const;

export type { WebhookEndpoint };

export function presentEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    object: "webhook_endpoint",
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types_json) as EventType[],
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Whether an endpoint takes events of `type` (an empty list takes all). */
export function endpointTakes(row: Pick<WebhookEndpointsTable, "event_types_json" | "enabled">, type: string): boolean {
  if (row.enabled !== 1) return false;
  const types = JSON.parse(row.event_types_json) as string[];
  return types.length === 0 || types.includes(type);
}

interface EndpointFields {
  url?: string;
  description?: string;
  event_types?: EventType[];
  enabled?: boolean;
}

async function parseFields(ctx: Ctx, body: unknown, creating: boolean): Promise<EndpointFields> {
  const object = requireObject(body, null);
  refuseUnknownFields(object, FIELDS);
  const fields: EndpointFields = {};
  if (object.url !== undefined || creating) {
    const url = parseWebhookUrl(object.url, "url", ctx.services.webhooks.allowInsecure);
    if (url === null)
      throw new ApiError("invalid_parameter", "url is required: the https:// URL that receives the events.", {
        param: "url",
      });
    await requireSafeWebhookUrl(ctx.services, url, "url");
    fields.url = url;
  }
  if (object.description !== undefined) {
    if (typeof object.description !== "string" || object.description.length > DESCRIPTION_MAX) {
      throw new ApiError("invalid_parameter", `description is text of at most ${DESCRIPTION_MAX} characters.`, {
        param: "description",
      });
    }
    fields.description = object.description;
  }
  if (object.event_types !== undefined) {
    const types = object.event_types;
    if (!Array.isArray(types) || types.some((t) => !(EVENT_TYPES as readonly unknown[]).includes(t))) {
      throw new ApiError(
        "invalid_parameter",
        `event_types is a list of ${EVENT_TYPES.join(", ")}; an empty list means all of them.`,
        {
          param: "event_types",
        },
      );
    }
    fields.event_types = [...new Set(types as EventType[])];
  }
  if (object.enabled !== undefined) {
    if (typeof object.enabled !== "boolean")
      throw new ApiError("invalid_parameter", "enabled is true or false.", { param: "enabled" });
    fields.enabled = object.enabled;
  }
  return fields;
}

async function requireEndpoint(ctx: Ctx, id: string): Promise<WebhookEndpointsTable> {
  const row = hasIdPrefix("webhook", id)
    ? await ctx.db
        .selectFrom("webhook_endpoints")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError("resource_not_found", `No webhook endpoint ${id} in this workspace.`);
  return row;
}

/**
 * What the audit log keeps of an endpoint's URL: its host. A path or query may carry the receiver's
 * own secret (many hooks put a token there), and the log never holds one.
 */
function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** The fields an update changed, as the audit log shows them. */
function endpointChanges(before: WebhookEndpointsTable, after: WebhookEndpointsTable): AuditChanges {
  const changes: AuditChanges = {};
  if (before.url !== after.url) changes.host = fromTo(urlHost(before.url), urlHost(after.url));
  if (before.description !== after.description) changes.description = fromTo(before.description, after.description);
  if (before.event_types_json !== after.event_types_json)
    changes.event_types = fromTo(
      JSON.parse(before.event_types_json) as string[],
      JSON.parse(after.event_types_json) as string[],
    );
  if (before.enabled !== after.enabled) changes.enabled = fromTo(before.enabled === 1, after.enabled === 1);
  return changes;
}

/** POST /v1/webhooks */
export async function createWebhookEndpoint(ctx: Ctx, body: unknown): Promise<WebhookEndpoint> {
  requireWebhookAdmin(ctx);
  const fields = await parseFields(ctx, body, true);
  const count = await ctx.db
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("workspace_id", "=", ctx.workspaceId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_ENDPOINTS) {
    throw new ApiError(
      "invalid_parameter",
      `A workspace has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
      { param: "url" },
    );
  }
  const now = nowIso();
  const row: WebhookEndpointsTable = {
    id: newId("webhook"),
    workspace_id: ctx.workspaceId,
    url: fields.url!,
    description: fields.description ?? "",
    event_types_json: JSON.stringify(fields.event_types ?? []),
    enabled: fields.enabled === false ? 0 : 1,
    disabled_reason: null,
    failing_since: null,
    last_failure_at: null,
    created_at: now,
    updated_at: now,
  };
  await withTransaction(ctx.db, async (trx) => {
    await trx.insertInto("webhook_endpoints").values(row).execute();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "webhook.created",
      target: { type: "webhook_endpoint", id: row.id },
      changes: {
        host: urlHost(row.url),
        description: row.description,
        event_types: fields.event_types ?? [],
        enabled: row.enabled === 1,
      },
    });
  });
  return presentEndpoint(row);
}

/** GET /v1/webhooks/{id} */
export async function getWebhookEndpoint(ctx: Ctx, input: { id: string }): Promise<WebhookEndpoint> {
  requireWebhookAdmin(ctx);
  return presentEndpoint(await requireEndpoint(ctx, input.id));
}

/**
 * PATCH /v1/webhooks/{id}. Enabling again clears why it was disabled. Disabling fails its pending
 * deliveries, as deleting does: a disabled endpoint gets nothing more. A new URL takes its pending
 * deliveries with it, due at once (the old URL's failures say nothing of the new one), and starts
 * its health afresh.
 */
export async function updateWebhookEndpoint(ctx: Ctx, input: { id: string; body: unknown }): Promise<WebhookEndpoint> {
  requireWebhookAdmin(ctx);
  const before = await requireEndpoint(ctx, input.id);
  const fields = await parseFields(ctx, input.body, false);
  const now = nowIso();
  const moved = fields.url !== undefined && fields.url !== before.url;
  return withTransaction(ctx.db, async (trx) => {
    const row = await trx
      .updateTable("webhook_endpoints")
      .set({
        ...(fields.url === undefined ? {} : { url: fields.url }),
        ...(fields.description === undefined ? {} : { description: fields.description }),
        ...(fields.event_types === undefined ? {} : { event_types_json: JSON.stringify(fields.event_types) }),
        ...(fields.enabled === undefined ? {} : { enabled: fields.enabled ? 1 : 0 }),
        ...(fields.enabled === true || moved ? { failing_since: null, last_failure_at: null } : {}),
        ...(fields.enabled === true ? { disabled_reason: null } : {}),
        updated_at: now,
      })
      .where("workspace_id", "=", ctx.workspaceId)
      .where("id", "=", input.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const pending = trx
      .updateTable("webhook_deliveries")
      .where("webhook_id", "=", row.id)
      .where("status", "=", "pending");
    if (fields.enabled === false) await pending.set({ status: "failed", next_attempt_at: null }).execute();
    else if (moved) await pending.set({ url: row.url, next_attempt_at: now }).execute();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "webhook.updated",
      target: { type: "webhook_endpoint", id: row.id },
      changes: endpointChanges(before, row),
    });
    return presentEndpoint(row);
  });
}

/** DELETE /v1/webhooks/{id}: its pending deliveries are dropped with it. */
export async function deleteWebhookEndpoint(ctx: Ctx, input: { id: string }): Promise<DeletedWebhookEndpoint> {
  requireWebhookAdmin(ctx);
  const row = await requireEndpoint(ctx, input.id);
  await withTransaction(ctx.db, async (trx) => {
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "failed", next_attempt_at: null })
      .where("webhook_id", "=", row.id)
      .where("status", "=", "pending")
      .execute();
    // Deleted by a request racing this one: that one wrote the event.
    const deleted = await trx.deleteFrom("webhook_endpoints").where("id", "=", row.id).executeTakeFirst();
    if (deleted.numDeletedRows > 0n)
      await recordAudit(trx, ctx, {
        workspaceId: ctx.workspaceId,
        action: "webhook.deleted",
        target: { type: "webhook_endpoint", id: row.id },
        changes: { host: urlHost(row.url), description: row.description },
      });
  });
  return { id: row.id, object: "webhook_endpoint", deleted: true };
}

/** GET /v1/webhooks */
export async function listWebhookEndpoints(
  ctx: Ctx,
  query: Record<string, string | undefined>,
): Promise<WebhookEndpointList> {
  requireWebhookAdmin(ctx);
  const page = await keysetPage(
    { secret: ctx.services.secretKey, limit: query.limit, cursor: query.cursor, filters: "webhooks" },
    (after, take) => {
      let q = ctx.db.selectFrom("webhook_endpoints").selectAll().where("workspace_id", "=", ctx.workspaceId);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
  return {
    object: "list" as const,
    url: "/v1/webhooks",
    data: page.rows.map(presentEndpoint),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

export { requireEndpoint };
