// Sending webhook deliveries: due rows are claimed with a short lease (so several processes
// share the work and a crash only delays a delivery), each attempt is signed and sent with the
// SSRF-safe sender, and its outcome is recorded in one transaction with the next attempt's time
// (webhook-attempt-records.ts).
// Runs beside the run engine and never blocks it or the API. Also purges events past 30 days.
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { purgeEvents } from "../core/webhooks/events";
import { announceBudgetAlerts } from "../core/budgets/budget-alerts";
import { announceLowCreditAlerts } from "../core/credits/low-credit-alerts";
import { claimScheduledTurn } from "./scheduled-tasks";
import { randomBase62 } from "../primitives/ids";
import { signingSecrets } from "../core/webhooks/webhook-secrets";
import type { Db, WebhookDeliveriesTable } from "../store/database";
import type { DialectName } from "../store/dialects";
import { logStoreUnreachable, storeUnreachable } from "../primitives/unreachable";
import { sendAttempt, type AttemptResult } from "../core/webhooks/send-attempt";
import { recordAttempt } from "../core/webhooks/webhook-attempt-records";
import { signatureHeader } from "../core/webhooks/signing";
import { isTracing, SpanKind, traced } from "../primitives/tracing";

const TIMEOUT_MS = 15_000;
const LEASE_MS = TIMEOUT_MS + 15_000;

export async function claimDueDeliveries(
  db: Db,
  dialect: DialectName,
  input: { owner: string; limit: number; now?: Date },
): Promise<WebhookDeliveriesTable[]> {
  const now = (input.now ?? new Date()).toISOString();
  const due = db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_expires_at", "<", now)]))
    .orderBy("next_attempt_at")
    .limit(input.limit);
  return db
    .updateTable("webhook_deliveries")
    .set({ lease_owner: input.owner, lease_expires_at: new Date(Date.parse(now) + LEASE_MS).toISOString() })
    .where("id", "in", dialect === "postgres" ? due.forUpdate().skipLocked() : due)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_expires_at", "<", now)]))
    .returningAll()
    .execute();
}

/** What a claimed batch's attempts read from the store, read once for the batch. */
export interface AttemptInputs {
  events: Map<string, { id: string; payload_json: string }>;
  /** Each workspace's signing secrets (webhook-secrets.ts). */
  secrets: Map<string, string[]>;
}

/** The events of `deliveries` and their workspaces' secrets: a backlog's 20 deliveries of one event read it once. */
export async function loadAttemptInputs(
  db: Db,
  deliveries: readonly WebhookDeliveriesTable[],
  now = Date.now(),
): Promise<AttemptInputs> {
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const events =
    eventIds.length === 0
      ? []
      : await db.selectFrom("events").select(["id", "payload_json"]).where("id", "in", eventIds).execute();
  const secrets = new Map<string, string[]>();
  for (const workspaceId of new Set(deliveries.map((d) => d.workspace_id)))
    secrets.set(workspaceId, await signingSecrets(db, workspaceId, now));
  return { events: new Map(events.map((event) => [event.id, event])), secrets };
}

/**
 * Signs and sends one attempt of a claimed delivery, then records it: in the span `webhook.deliver`
 * (a trace of its own: it only happens to be scheduled by whatever finished a run) when tracing is on.
 */
export function attemptDelivery(
  db: Db,
  services: Services,
  owner: string,
  delivery: WebhookDeliveriesTable,
  inputs?: AttemptInputs,
): Promise<void> {
  if (!isTracing()) return sendAndRecord(db, services, owner, delivery, inputs).then(() => undefined);
  return traced(
    "webhook.deliver",
    async (span) => {
      const result = await sendAndRecord(db, services, owner, delivery, inputs);
      span?.setAttributes({
        "atelier.webhook.outcome": result.ok ? "delivered" : result.gone ? "gone" : "failed",
        ...(result.status !== null && { "http.response.status_code": result.status }),
        ...(result.error !== null && { "atelier.webhook.error": result.error }),
      });
    },
    {
      root: true,
      kind: SpanKind.CLIENT,
      attributes: () => ({
        "atelier.webhook.delivery.id": delivery.id,
        "atelier.webhook.event.id": delivery.event_id,
        "atelier.workspace.id": delivery.workspace_id,
        "atelier.webhook.attempt": delivery.attempt_count + 1,
        "server.address": hostOf(delivery.url),
      }),
    },
  );
}

/** The receiver's host (never the path or query, which may carry a token of the receiver's). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

async function sendAndRecord(
  db: Db,
  services: Services,
  owner: string,
  delivery: WebhookDeliveriesTable,
  inputs: AttemptInputs | undefined,
): Promise<AttemptResult> {
  const { events, secrets } = inputs ?? (await loadAttemptInputs(db, [delivery]));
  const event = events.get(delivery.event_id);
  const at = new Date();
  let result: AttemptResult;
  if (!event) {
    result = {
      ok: false,
      status: null,
      latencyMs: 0,
      responseBody: "",
      error: "the event no longer exists (purged)",
      retryAfterSeconds: null,
      gone: false,
    };
  } else {
    const timestamp = Math.floor(at.getTime() / 1000);
    result = await sendAttempt({
      url: delivery.url,
      body: event.payload_json,
      headers: {
        "content-type": "application/json",
        "user-agent": "Atelier-Webhooks/1",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(
          secrets.get(delivery.workspace_id)!,
          event.id,
          timestamp,
          event.payload_json,
        ),
      },
      timeoutMs: TIMEOUT_MS,
      allowInsecure: services.webhooks.allowInsecure,
    });
  }
  await recordAttempt(db, {
    delivery,
    owner,
    result,
    at,
    schedule: event ? services.webhooks.retryScheduleSeconds : [],
  });
  return result;
}

export interface WebhookSender {
  stop(): Promise<void>;
}

export function startWebhookSender(options: {
  db: Db;
  dialect: DialectName;
  services: Services;
  logger: Logger;
  /** Deliveries in flight at once. */
  concurrency?: number;
  pollMs?: number;
  name?: string;
  /** How often the events past 30 days are purged (EVENTS_PURGE_INTERVAL_SECONDS); hourly by default. */
  purgeEveryMs?: number;
}): WebhookSender {
  const owner = `${options.name ?? "webhooks"}-${process.pid}-${randomBase62(6)}`;
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 250;
  const purgeEveryMs = options.purgeEveryMs ?? 3600 * 1000;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let timerDue = Infinity;
  let ticking = false;
  let tickAgain = false;
  /** The last claim filled every free slot: more may be due. */
  let backlog = false;
  let lastPurge = 0;

  // The poll is the fallback: a finished run (its events' deliveries were written in the same
  // transaction) and a freed slot look again at once, so a backlog drains at full speed and a
  // new delivery leaves without waiting for the next poll.
  const schedule = (delayMs: number) => {
    if (stopping) return;
    if (ticking) {
      if (delayMs === 0) tickAgain = true;
      return;
    }
    const due = Date.now() + delayMs;
    if (timer && timerDue <= due) return;
    if (timer) clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => void tick(), delayMs);
  };
  const unsubscribe = options.services.signals.onFinished(() => schedule(0));

  const tick = async () => {
    timer = null;
    timerDue = Infinity;
    if (stopping) return;
    ticking = true;
    let claimedAll = false;
    try {
      if (Date.now() - lastPurge >= purgeEveryMs) {
        lastPurge = Date.now();
        // Every process asks; one per interval across them all does it (scheduled-tasks.ts).
        if (await claimScheduledTurn(options.db, { name: "events_purge", everyMs: purgeEveryMs, owner })) {
          const purged = await purgeEvents({ db: options.db });
          if (purged > 0) options.logger.info({ purged }, "purged events older than 30 days");
        }
      }
      // Alerts the holds claimed since the last turn become events (and deliveries) first: budget
      // thresholds, and balances dropped under their low-balance threshold.
      await announceBudgetAlerts(options.db);
      await announceLowCreditAlerts(options.db);
      const free = concurrency - inFlight.size;
      const claimed = free > 0 ? await claimDueDeliveries(options.db, options.dialect, { owner, limit: free }) : [];
      claimedAll = free > 0 && claimed.length === free;
      const inputs = await loadAttemptInputs(options.db, claimed);
      for (const delivery of claimed) {
        const work = attemptDelivery(options.db, options.services, owner, delivery, inputs)
          .catch((err) =>
            options.logger.error(
              { err, delivery: delivery.id },
              "webhook delivery attempt failed to record; its lease will lapse",
            ),
          )
          .finally(() => {
            inFlight.delete(work);
            // A slot is free: claim more now only when there may be a backlog.
            if (backlog) schedule(0);
          });
        inFlight.add(work);
      }
    } catch (err) {
      if (storeUnreachable(err))
        logStoreUnreachable(options.logger, err, {}, "the store cannot be reached: webhook deliveries wait");
      else options.logger.error({ err }, "claiming webhook deliveries failed");
    }
    backlog = claimedAll;
    ticking = false;
    const again = tickAgain;
    tickAgain = false;
    schedule(again ? 0 : pollMs);
  };
  schedule(0);

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
