// budget.threshold_reached: a budget's counter reached 50, 80 or 100 % of its cap in a period.
// The claim is the trigger's (migration 025), made in the hold's own transaction, once per
// (counter, threshold) by the primary key; here each claim becomes its event and deliveries
// (announceClaimed: one event however many processes announce). The webhook sender calls this on
// its turns.
import type { BudgetAlertsTable, Db } from "../../store/database";
import { formatUsd } from "../../primitives/money";
import { announceClaimed } from "../webhooks/claimed-events";
import type { BudgetThreshold } from "../webhooks/webhook-shape";

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

function announce(db: Db, alert: BudgetAlertsTable): Promise<boolean> {
  return announceClaimed(db, {
    workspaceId: alert.workspace_id,
    type: TYPE,
    data: thresholdData(alert),
    markAnnounced: (trx, eventId) =>
      trx
        .updateTable("budget_alerts")
        .set({ event_id: eventId })
        .where("workspace_id", "=", alert.workspace_id)
        .where("scope", "=", alert.scope)
        .where("subject_id", "=", alert.subject_id)
        .where("period", "=", alert.period)
        .where("period_start", "=", alert.period_start)
        .where("threshold", "=", alert.threshold)
        .where("event_id", "is", null)
        .executeTakeFirst(),
  });
}

/** Announces up to `limit` claimed thresholds not yet announced; answers how many it announced. */
export async function announceBudgetAlerts(db: Db, limit = 100): Promise<number> {
  const pending = await db.selectFrom("budget_alerts").selectAll().where("event_id", "is", null).limit(limit).execute();
  let announced = 0;
  for (const alert of pending) if (await announce(db, alert)) announced++;
  return announced;
}
