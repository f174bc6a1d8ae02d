// credits.low: a workspace's available balance dropped under its low-balance threshold. The claim
// is the balance trigger's (migration 026), made in the statement that moved the balance, once
// per crossing; here each claim becomes its event and deliveries (announceClaimed: one event
// however many processes announce). The webhook sender calls this on its turns.
import type { CreditAlertsTable, Db } from "../../store/database";
import type { Selectable } from "kysely";
import { formatUsd } from "../../primitives/money";
import { announceClaimed } from "../webhooks/claimed-events";
import type { LowCredit } from "../webhooks/webhook-shape";

const TYPE = "credits.low";

function announce(db: Db, alert: Selectable<CreditAlertsTable>): Promise<boolean> {
  const data: LowCredit = {
    available_usd: formatUsd(Number(alert.available_micros)),
    threshold_usd: formatUsd(Number(alert.threshold_micros)),
  };
  return announceClaimed(db, {
    workspaceId: alert.workspace_id,
    type: TYPE,
    data,
    markAnnounced: (trx, eventId) =>
      trx
        .updateTable("credit_alerts")
        .set({ event_id: eventId })
        .where("id", "=", alert.id)
        .where("event_id", "is", null)
        .executeTakeFirst(),
  });
}

/** Announces up to `limit` claimed low-balance alerts not yet announced; answers how many it announced. */
export async function announceLowCreditAlerts(db: Db, limit = 100): Promise<number> {
  const pending = await db
    .selectFrom("credit_alerts")
    .selectAll()
    .where("event_id", "is", null)
    .orderBy("id")
    .limit(limit)
    .execute();
  let announced = 0;
  for (const alert of pending) if (await announce(db, alert)) announced++;
  return announced;
}
