// Events: what happened to a workspace's runs, kept 30 days, listed and read through the API and
// delivered to webhooks (webhook-deliveries.ts). The payload is what receivers get.
import type { Db, EventsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { requireScope, type Ctx, type SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { afterPosition, keysetPage } from "../../primitives/paging";
import { EVENT_TYPES } from "./webhook-endpoints";
import { requireEvent } from "./webhook-deliveries";
import type { Event, EventList, WebhookPayload } from "./webhook-shape";

export const EVENT_RETENTION_DAYS = 30;

export type { Event };

export function presentEvent(row: EventsTable): Event {
  const payload = JSON.parse(row.payload_json) as WebhookPayload;
  return { id: row.id, object: "event", type: payload.type, timestamp: payload.timestamp, data: payload.data };
}

function parseTypes(value: string | undefined): string[] {
  if (value === undefined) return [];
  const types = value.split(",").map((t) => t.trim());
  for (const type of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(
        "invalid_parameter",
        `type is a comma list of ${EVENT_TYPES.join(", ")}; got "${type.slice(0, 40)}".`,
        { param: "type" },
      );
    }
  }
  return [...new Set(types)].sort();
}

/** GET /v1/events: newest first, paged, optionally of some types. */
export async function listEvents(ctx: Ctx, query: Record<string, string | undefined>): Promise<EventList> {
  requireScope(ctx, "generations:read");
  const types = parseTypes(query.type);
  const page = await keysetPage(
    { secret: ctx.services.secretKey, limit: query.limit, cursor: query.cursor, filters: `events:${types.join(",")}` },
    (after, take) => {
      let q = ctx.db.selectFrom("events").selectAll().where("workspace_id", "=", ctx.workspaceId);
      if (types.length > 0) q = q.where("type", "in", types);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
  return {
    object: "list" as const,
    url: "/v1/events",
    data: page.rows.map(presentEvent),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** GET /v1/events/{id} */
export async function getEvent(ctx: Ctx, input: { id: string }): Promise<Event> {
  requireScope(ctx, "generations:read");
  return presentEvent(await requireEvent(ctx, input.id));
}

/**
 * The event a run produced when it ended (succeeded, failed or canceled), or null while it has
 * not ended, when it is older than the retention, or when the run is not this workspace's.
 */
export async function findRunEvent(ctx: Ctx, runId: string): Promise<Event | null> {
  requireScope(ctx, "generations:read");
  const row = await ctx.db
    .selectFrom("events")
    .selectAll()
    .where("workspace_id", "=", ctx.workspaceId)
    .where("generation_id", "=", runId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? presentEvent(row) : null;
}

/** Deletes events older than `olderThanDays` days with their deliveries; returns how many events. */
export async function purgeEvents(
  ctx: SystemCtx,
  input: { olderThanDays?: number; now?: number } = {},
): Promise<number> {
  const days = input.olderThanDays ?? EVENT_RETENTION_DAYS;
  const before = new Date((input.now ?? Date.now()) - days * 24 * 3600 * 1000).toISOString();
  return withTransaction(ctx.db, async (trx: Db) => {
    const old = trx.selectFrom("events").select("id").where("created_at", "<", before);
    const deliveries = trx.selectFrom("webhook_deliveries").select("id").where("event_id", "in", old);
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", deliveries).execute();
    await trx.deleteFrom("webhook_deliveries").where("event_id", "in", old).execute();
    const result = await trx.deleteFrom("events").where("created_at", "<", before).executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
