// budget.threshold_reached: a budget's counter reached 50, 80 or 100 % of its cap in a period.
// The claim is the trigger's (migration 025), made in the hold's own transaction, once per
// (counter, threshold) by the primary key; here each claim becomes its event and deliveries, in
// one transaction that also sets the claim's event_id only where it was still null, so two
// processes announcing at once write one event. The webhook sender calls this on its turns.
import type { BudgetAlertsTable, Db } from "../../store/database";
import { withTransaction, writeList } from "../../store/writes";
import { newId } from "../../primitives/ids";
import { formatUsd } from "../../primitives/money";
import { nowIso } from "../context";
import { deliveryWrites, webhookEndpointsQuery } from "../webhooks/webhook-deliveries";
import type { BudgetThreshold, WebhookPayload } from "../webhooks/webhook-shape";

const TYPE = "budget.threshold_reached";

function thresholdData(alert: BudgetAlertsTable): BudgetThreshold {
  return {
    budget: {
      scope: alert.scope,
      subject_id: alert.subject_id,
      period: alert.period,
      period_start: alert.period_start,
      cap_usd: formatUsd(Number(alert.cap_micros)),
    },
    threshold: Number(alert.threshold) as BudgetThreshold["threshold"],
    spent_usd: formatUsd(Number(alert.spent_micros)),
  };
}

async function announce(db: Db, alert: BudgetAlertsTable): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const id = newId("event");
    const claimed = await trx
      .updateTable("budget_alerts")
      .set({ event_id: id })
      .where("workspace_id", "=", alert.workspace_id)
      .where("scope", "=", alert.scope)
      .where("subject_id", "=", alert.subject_id)
      .where("period", "=", alert.period)
      .where("period_start", "=", alert.period_start)
      .where("threshold", "=", alert.threshold)
      .where("event_id", "is", null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const timestamp = nowIso();
    const payload: WebhookPayload = { type: TYPE, timestamp, data: thresholdData(alert) };
    const event = { id, workspace_id: alert.workspace_id, type: TYPE };
    const endpoints = (await trx.executeQuery(webhookEndpointsQuery(trx, alert.workspace_id))).rows;
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

/** Announces up to `limit` claimed thresholds not yet announced; answers how many it announced. */
export async function announceBudgetAlerts(db: Db, limit = 100): Promise<number> {
  const pending = await db.selectFrom("budget_alerts").selectAll().where("event_id", "is", null).limit(limit).execute();
  let announced = 0;
  for (const alert of pending) if (await announce(db, alert)) announced++;
  return announced;
}
