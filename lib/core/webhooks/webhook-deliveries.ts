// Deliveries of events: one row per event and destination, written in the transaction that wrote
// the event (the one that ends the run), sent by the engine (lib/engine/webhook-sender.ts); their
// attempts are recorded, listed, and an event can be sent again.
import { sql, type Compilable, type CompiledQuery, type Expression, type SelectQueryBuilder } from "kysely";
import { onPostgres } from "../../store/dialects";
import { withTransaction } from "../../store/writes";
import type {
  Database,
  Db,
  EventsTable,
  WebhookEndpointsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
} from "../../store/database";
import { nowIso, requireScope, type Ctx } from "../context";
import { requireWebhookAdmin } from "./webhook-admin";
import { ApiError } from "../../primitives/errors";
import { newId } from "../../primitives/ids";
import { afterPosition, keysetPage } from "../../primitives/paging";
import { refuseUnknownFields, requireObject } from "../runs/run-request";
import { endpointTakes, requireEndpoint } from "./webhook-endpoints";
import type { Delivery, DeliveryAttempt } from "./webhook-shape";

export type { Delivery, DeliveryAttempt };

function deliveryRow(
  workspaceId: string,
  eventId: string,
  destination: { webhookId: string | null; url: string },
  now: string,
): WebhookDeliveriesTable {
  return {
    id: newId("delivery"),
    workspace_id: workspaceId,
    event_id: eventId,
    webhook_id: destination.webhookId,
    url: destination.url,
    status: "pending",
    attempt_count: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
  };
}

/** The workspace's webhook endpoints, for destinationsAmong; `workspaceId` may be a query giving it (lib/engine/finish.ts). */
export function webhookEndpointsQuery(
  db: Db,
  workspaceId: string | Expression<string>,
): CompiledQuery<WebhookEndpointsTable> {
  return db.selectFrom("webhook_endpoints").selectAll().where("workspace_id", "=", workspaceId).compile();
}

/** Where an event goes: the run's own webhook URL, and every enabled endpoint that takes its type. */
function destinationsAmong(endpoints: readonly WebhookEndpointsTable[], type: string, runWebhook: string | null) {
  return [
    ...(runWebhook ? [{ webhookId: null, url: runWebhook }] : []),
    ...endpoints.filter((e) => endpointTakes(e, type)).map((e) => ({ webhookId: e.id, url: e.url })),
  ];
}

async function destinationsOf(db: Db, event: Pick<EventsTable, "workspace_id" | "type">, runWebhook: string | null) {
  return destinationsAmong(
    (await db.executeQuery(webhookEndpointsQuery(db, event.workspace_id))).rows,
    event.type,
    runWebhook,
  );
}

/**
 * The delivery rows of a new event (none or one insert), to be written in the transaction that
 * writes the event; `endpoints` are the workspace's (webhookEndpointsQuery).
 */
export function deliveryWrites(
  db: Db,
  event: Pick<EventsTable, "id" | "workspace_id" | "type">,
  endpoints: readonly WebhookEndpointsTable[],
  runWebhook: string | null,
): Compilable[] {
  const now = nowIso();
  const rows = destinationsAmong(endpoints, event.type, runWebhook).map((d) =>
    deliveryRow(event.workspace_id, event.id, d, now),
  );
  return rows.length > 0 ? [db.insertInto("webhook_deliveries").values(rows)] : [];
}

async function presentDeliveries(db: Db, rows: WebhookDeliveriesTable[]): Promise<Delivery[]> {
  const attempts: WebhookAttemptsTable[] =
    rows.length === 0
      ? []
      : await db
          .selectFrom("webhook_attempts")
          .selectAll()
          .where(
            "delivery_id",
            "in",
            rows.map((r) => r.id),
          )
          .orderBy("attempt")
          .execute();
  return rows.map((r) => ({
    id: r.id,
    object: "webhook_delivery",
    event_id: r.event_id,
    webhook_id: r.webhook_id,
    url: r.url,
    status: r.status,
    attempts: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attempt: a.attempt,
        at: a.at,
        response_status: a.response_status,
        latency_ms: a.latency_ms,
        response_body: a.response_body,
        error: a.error,
      })),
    next_attempt_at: r.status === "pending" ? r.next_attempt_at : null,
    created_at: r.created_at,
  }));
}

async function listDeliveries(
  ctx: Ctx,
  query: Record<string, string | undefined>,
  scope: { column: "event_id" | "webhook_id"; id: string; url: string },
) {
  const page = await keysetPage(
    {
      secret: ctx.services.secretKey,
      limit: query.limit,
      cursor: query.cursor,
      filters: `deliveries:${scope.column}:${scope.id}`,
    },
    (after, take) => {
      let q = ctx.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where(scope.column, "=", scope.id);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
  return {
    object: "list" as const,
    url: scope.url,
    data: await presentDeliveries(ctx.db, page.rows),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

export async function requireEvent(ctx: Ctx, id: string): Promise<EventsTable> {
  const row = id.startsWith("evt_")
    ? await ctx.db
        .selectFrom("events")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError("resource_not_found", `No event ${id} in this workspace (events are kept 30 days).`);
  return row;
}

/** GET /v1/events/{id}/deliveries */
export async function listEventDeliveries(ctx: Ctx, input: { id: string; query: Record<string, string | undefined> }) {
  requireScope(ctx, "generations:read");
  const event = await requireEvent(ctx, input.id);
  return listDeliveries(ctx, input.query, {
    column: "event_id",
    id: event.id,
    url: `/v1/events/${event.id}/deliveries`,
  });
}

/** GET /v1/webhooks/{id}/deliveries */
export async function listEndpointDeliveries(
  ctx: Ctx,
  input: { id: string; query: Record<string, string | undefined> },
) {
  requireScope(ctx, "generations:read");
  const endpoint = await requireEndpoint(ctx, input.id);
  return listDeliveries(ctx, input.query, {
    column: "webhook_id",
    id: endpoint.id,
    url: `/v1/webhooks/${endpoint.id}/deliveries`,
  });
}

/**
 * Queues a delivery of `event` to `destination` unless one is already pending there, in one
 * statement (insert … select … where not exists): two resends cannot both see "none pending" and
 * both insert. Returns the new row, or null when one was already queued.
 */
async function queueUnlessPending(db: Db, row: WebhookDeliveriesTable): Promise<WebhookDeliveriesTable | null> {
  const inserted = await db
    .insertInto("webhook_deliveries")
    .columns([
      "id",
      "workspace_id",
      "event_id",
      "webhook_id",
      "url",
      "status",
      "attempt_count",
      "next_attempt_at",
      "lease_owner",
      "lease_expires_at",
      "created_at",
    ])
    .expression(
      db
        .selectNoFrom((eb) => [
          eb.val(row.id).as("id"),
          eb.val(row.workspace_id).as("workspace_id"),
          eb.val(row.event_id).as("event_id"),
          eb.val(row.webhook_id).as("webhook_id"),
          eb.val(row.url).as("url"),
          eb.val(row.status).as("status"),
          // A literal: PostgreSQL reads an untyped parameter of a select list as text (fine for every other column).
          sql<number>`0`.as("attempt_count"),
          eb.val(row.next_attempt_at).as("next_attempt_at"),
          eb.val(row.lease_owner).as("lease_owner"),
          eb.val(row.lease_expires_at).as("lease_expires_at"),
          eb.val(row.created_at).as("created_at"),
        ])
        .where((eb) => eb.not(eb.exists(pendingAt(db.selectFrom("webhook_deliveries"), row).select(sql`1`.as("one"))))),
    )
    .returning("id")
    .executeTakeFirst();
  return inserted ? row : null;
}

/** The deliveries of one event still pending at one destination (an endpoint, or a run's own URL). */
function pendingAt<Q extends SelectQueryBuilder<Database, "webhook_deliveries", object>>(
  q: Q,
  row: Pick<WebhookDeliveriesTable, "event_id" | "webhook_id" | "url">,
): Q {
  const at = q
    .where("webhook_deliveries.event_id", "=", row.event_id)
    .where("webhook_deliveries.status", "=", "pending");
  return (
    row.webhook_id === null
      ? at.where("webhook_deliveries.webhook_id", "is", null).where("webhook_deliveries.url", "=", row.url)
      : at.where("webhook_deliveries.webhook_id", "=", row.webhook_id)
  ) as Q;
}

/**
 * POST /v1/events/{id}/resend `{webhook_id?}`: new deliveries of the same event (same webhook-id),
 * to one endpoint of the workspace (even a disabled one), or to every destination it has now.
 * At most one delivery per event and destination is pending: a destination that already has one
 * is skipped, and when every destination has one the answer is 409 conflict ("already queued").
 */
export async function resendEvent(
  ctx: Ctx,
  input: { id: string; body: unknown },
): Promise<{ object: "list"; data: Delivery[] }> {
  requireWebhookAdmin(ctx);
  const body = requireObject(input.body, null);
  refuseUnknownFields(body, ["webhook_id"]);
  const event = await requireEvent(ctx, input.id);
  let destinations: { webhookId: string | null; url: string }[];
  if (body.webhook_id !== undefined) {
    if (typeof body.webhook_id !== "string")
      throw new ApiError("invalid_parameter", "webhook_id is a webhook endpoint ID (wh_…).", { param: "webhook_id" });
    const endpoint = await requireEndpoint(ctx, body.webhook_id);
    destinations = [{ webhookId: endpoint.id, url: endpoint.url }];
  } else {
    const run = event.generation_id
      ? await ctx.db
          .selectFrom("generations")
          .select("webhook")
          .where("id", "=", event.generation_id)
          .executeTakeFirst()
      : undefined;
    destinations = await destinationsOf(ctx.db, event, run?.webhook ?? null);
  }
  const now = nowIso();
  const rows = await withTransaction(ctx.db, async (trx) => {
    // PostgreSQL: resends of one event wait for each other here, so the "not exists" of the next
    // sees the delivery the previous one committed. SQLite writes one transaction at a time.
    if (onPostgres(trx)) await trx.selectFrom("events").select("id").where("id", "=", event.id).forUpdate().execute();
    const queued: WebhookDeliveriesTable[] = [];
    for (const d of destinations) {
      const row = await queueUnlessPending(trx, deliveryRow(ctx.workspaceId, event.id, d, now));
      if (row) queued.push(row);
    }
    return queued;
  });
  if (rows.length === 0 && destinations.length > 0) {
    const where = destinations.length === 1 ? "its destination" : `each of its ${destinations.length} destinations`;
    throw new ApiError(
      "conflict",
      `Event ${event.id} is already queued for delivery to ${where}; it can be sent again once that delivery has succeeded or failed.`,
    );
  }
  return { object: "list", data: await presentDeliveries(ctx.db, rows) };
}
