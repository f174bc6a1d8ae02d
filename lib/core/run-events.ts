// The event row written in the same transaction that ends a run (ARCHITECTURE.md rule 12),
// with its webhook delivery rows (rule 6).
import type { Db, GenerationsTable } from "../store/database";
import type { Services } from "./context";
import { presentGeneration } from "./generation-view";
import { newId } from "./ids";
import { enqueueDeliveries } from "./webhook-deliveries";

export async function appendRunEndedEvent(db: Db, services: Services, row: GenerationsTable): Promise<void> {
  const type = `generation.${row.status}`;
  const timestamp = row.completed_at ?? new Date().toISOString();
  const id = newId("event");
  await db
    .insertInto("events")
    .values({
      id,
      workspace_id: row.workspace_id,
      type,
      generation_id: row.id,
      payload_json: JSON.stringify({ type, timestamp, data: await presentGeneration(services, row) }),
      created_at: timestamp,
    })
    .execute();
  await enqueueDeliveries(db, { id, workspace_id: row.workspace_id, type }, row.webhook);
}
