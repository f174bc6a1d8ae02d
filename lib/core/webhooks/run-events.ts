// The event row written in the same transaction that ends a run (docs/architecture.md),
// with its webhook delivery rows.
import type { Compilable } from "kysely";
import type { Db, GenerationsTable, WebhookEndpointsTable } from "../../store/database";
import { writeList } from "../../store/writes";
import type { Services } from "../context";
import { presentGeneration } from "../runs/generation-view";
import { newId } from "../../primitives/ids";
import { deliveryWrites, webhookEndpointsQuery } from "./webhook-deliveries";

/** The ended run's event and its deliveries, given its workspace's webhook endpoints (webhookEndpointsQuery). */
export async function runEndedEventWrites(
  db: Db,
  services: Services,
  row: GenerationsTable,
  endpoints: readonly WebhookEndpointsTable[],
): Promise<Compilable[]> {
  const type = `generation.${row.status}`;
  const timestamp = row.completed_at ?? new Date().toISOString();
  const id = newId("event");
  const event = db.insertInto("events").values({
    id,
    workspace_id: row.workspace_id,
    type,
    generation_id: row.id,
    payload_json: JSON.stringify({ type, timestamp, data: await presentGeneration(services, row) }),
    created_at: timestamp,
  });
  return [event, ...deliveryWrites(db, { id, workspace_id: row.workspace_id, type }, endpoints, row.webhook)];
}

/** Writes the ended run's event and deliveries, in db's transaction. */
export async function appendRunEndedEvent(db: Db, services: Services, row: GenerationsTable): Promise<void> {
  const endpoints = (await db.executeQuery(webhookEndpointsQuery(db, row.workspace_id))).rows;
  await writeList(db, await runEndedEventWrites(db, services, row, endpoints));
}
