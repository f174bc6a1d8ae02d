// Events announced from a claim: a store trigger claims an alert in the transaction that causes it
// (a budget counter reaching a threshold, migration 025; a balance dropping under its low-balance
// threshold, migration 026), and the webhook sender's turn announces it here. One transaction
// marks the claim announced (its event_id set only where still null) and writes the event and its
// deliveries, so two processes announcing at once write one event, and a crash between the claim
// and its announcement delays the event without losing it.
import type { Db } from "../../store/database";
import { withTransaction, writeList } from "../../store/writes";
import { newId } from "../../primitives/ids";
import { nowIso } from "../context";
import { deliveryWrites, webhookEndpointsQuery } from "./webhook-deliveries";
import type { EventType } from "./webhook-endpoints";
import type { WebhookPayload } from "./webhook-shape";

export interface ClaimedEvent {
  workspaceId: string;
  type: EventType;
  data: WebhookPayload["data"];
  /**
   * Sets the claim's event_id to `eventId` where it is still null, inside `trx`; answers how many
   * rows it set (1: this announcer won the claim; 0: another already announced it).
   */
  markAnnounced(trx: Db, eventId: string): Promise<{ numUpdatedRows: bigint }>;
}

/** Writes the claim's event and deliveries unless another announcer did; answers whether this one did. */
export async function announceClaimed(db: Db, claim: ClaimedEvent): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const id = newId("event");
    const marked = await claim.markAnnounced(trx, id);
    if (Number(marked.numUpdatedRows) !== 1) return false;
    const timestamp = nowIso();
    const payload: WebhookPayload = { type: claim.type, timestamp, data: claim.data };
    const event = { id, workspace_id: claim.workspaceId, type: claim.type };
    const endpoints = (await trx.executeQuery(webhookEndpointsQuery(trx, claim.workspaceId))).rows;
    await writeList(trx, [
      trx.insertInto("events").values({
        ...event,
        generation_id: null,
        payload_json: JSON.stringify(payload),
        created_at: timestamp,
      }),
      ...deliveryWrites(trx, event, endpoints, null),
    ]);
    return true;
  });
}
