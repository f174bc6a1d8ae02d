// Sending webhook deliveries: due rows are claimed with a short lease (so several processes
// share the work and a crash only delays a delivery), each attempt is signed and sent with the
// SSRF-safe sender, and its outcome is recorded in one transaction with the next attempt's time.
// Runs beside the run engine and never blocks it or the API. Also purges events past 30 days.
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { purgeEvents } from "../core/events";
import { claimScheduledTurn } from "./scheduled-tasks";
import { randomBase62 } from "../core/ids";
import { signingSecrets } from "../core/webhook-secrets";
import type { Db, WebhookDeliveriesTable } from "../store/database";
import type { DialectName } from "../store/dialects";
import { METRICS, type WebhookOutcome } from "../metrics";
import { logStoreUnreachable, storeUnreachable } from "../store/unreachable";
import { withTransaction } from "../store/store";
import { sendAttempt, type AttemptResult } from "../webhooks/send-attempt";
import { signatureHeader } from "../webhooks/signing";

const TIMEOUT_MS = 15_000;
const LEASE_MS = TIMEOUT_MS + 15_000;
/** An endpoint whose deliveries only failed for this long, without a break (failureGapMs), is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

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

/**
 * The longest wait a receiver's Retry-After may ask for: the default schedule's longest step. A
 * receiver cannot park a delivery for days (nor push its time past what a date can hold).
 */
export const RETRY_AFTER_CAP_SECONDS = 10 * 3600;

/** When the next attempt goes: the schedule's delay with ±20 % jitter, or later when Retry-After says so (at most 10 h). */
export function nextAttemptAt(schedule: readonly number[], attemptsMade: number, retryAfterSeconds: number | null, now: number, random = Math.random): string | null {
  if (attemptsMade >= schedule.length) return null;
  const delay = schedule[attemptsMade]! * 1000 * (0.8 + 0.4 * random());
  const wait = Math.max(delay, Math.min(retryAfterSeconds ?? 0, RETRY_AFTER_CAP_SECONDS) * 1000);
  return new Date(now + wait).toISOString();
}

/**
 * "Failing for 5 days" means without a break: a failure more than this long after the previous
 * one starts the clock again. 24 h is more than the longest wait between two attempts of one
 * failing delivery (10 h + 20 % jitter, Retry-After capped at 10 h), so an endpoint that keeps
 * failing its retries keeps its clock, while one that failed once, was quiet for days and then
 * failed once is not disabled. A longer schedule (WEBHOOK_RETRY_SCHEDULE) widens it to twice its longest step.
 */
export function failureGapMs(schedule: readonly number[]): number {
  return Math.max(24 * 3600 * 1000, 2 * Math.max(0, ...schedule) * 1000);
}

/** Text the store takes: PostgreSQL refuses U+0000 in text columns. */
function storable(text: string): string {
  return text.replaceAll("\u0000", "");
}

/**
 * Records one attempt and moves the delivery (and its endpoint's health) on, in one transaction.
 * Should the store refuse the record, the attempt is recorded again without the receiver's answer:
 * it still counts, so a delivery never loops on an answer it cannot store.
 */
export async function recordAttempt(
  db: Db,
  input: { delivery: WebhookDeliveriesTable; owner: string; result: AttemptResult; at: Date; schedule: readonly number[] },
): Promise<void> {
  let outcome: WebhookOutcome | null;
  try {
    outcome = await storeAttempt(db, input);
  } catch (err) {
    const { result } = input;
    const why = storable(err instanceof Error ? err.message : String(err)).slice(0, 300);
    outcome = await storeAttempt(db, {
      ...input,
      result: {
        ...result,
        status: Number.isInteger(result.status) && result.status! >= 100 && result.status! <= 999 ? result.status : null,
        latencyMs: Number.isFinite(result.latencyMs) ? Math.min(Math.max(result.latencyMs, 0), 2 ** 31 - 1) : 0,
        responseBody: "",
        error: `${result.error === null ? "" : `${storable(result.error).slice(0, 300)}; `}the answer could not be recorded (${why})`,
      },
    });
  }
  if (outcome) METRICS.webhookDeliveries.inc({ outcome });
}

/** What became of the delivery (null: it was no longer ours, nothing recorded). */
async function storeAttempt(
  db: Db,
  input: { delivery: WebhookDeliveriesTable; owner: string; result: AttemptResult; at: Date; schedule: readonly number[] },
): Promise<WebhookOutcome | null> {
  const { delivery, result, at } = input;
  const attempt = delivery.attempt_count + 1;
  const atIso = at.toISOString();
  return withTransaction(db, async (trx): Promise<WebhookOutcome | null> => {
    const ours = await trx
      .updateTable("webhook_deliveries")
      .set({ attempt_count: attempt, lease_owner: null, lease_expires_at: null })
      .where("id", "=", delivery.id)
      .where("lease_owner", "=", input.owner)
      .where("status", "=", "pending")
      .executeTakeFirst();
    if (ours.numUpdatedRows === 0n) return null;
    await trx
      .insertInto("webhook_attempts")
      .values({
        delivery_id: delivery.id,
        attempt,
        at: atIso,
        response_status: result.status,
        latency_ms: Math.round(result.latencyMs),
        response_body: storable(result.responseBody),
        error: result.error === null ? null : storable(result.error),
      })
      .execute();
    if (result.ok) {
      await trx.updateTable("webhook_deliveries").set({ status: "succeeded", next_attempt_at: null }).where("id", "=", delivery.id).execute();
      if (delivery.webhook_id) {
        await trx.updateTable("webhook_endpoints").set({ failing_since: null, last_failure_at: null }).where("id", "=", delivery.webhook_id).execute();
      }
      return "succeeded";
    }
    // 410 Gone: the receiver wants no more, whether it is an endpoint or a run's own URL.
    const next = result.gone ? null : nextAttemptAt(input.schedule, attempt, result.retryAfterSeconds, at.getTime());
    const outcome = next === null ? "failed" : "retrying";
    await trx
      .updateTable("webhook_deliveries")
      .set(next === null ? { status: "failed", next_attempt_at: null } : { next_attempt_at: next })
      .where("id", "=", delivery.id)
      .execute();
    if (!delivery.webhook_id) return outcome;
    // The clock restarts unless the previous failure was recent (failureGapMs); both columns are
    // computed from the row as it was, so concurrent attempts of one endpoint agree.
    const gapStart = new Date(at.getTime() - failureGapMs(input.schedule)).toISOString();
    const endpoint = await trx
      .updateTable("webhook_endpoints")
      .set({
        failing_since: sql<string>`case when failing_since is null or last_failure_at is null or last_failure_at < ${gapStart} then ${atIso} else failing_since end`,
        last_failure_at: sql<string>`case when last_failure_at is null or last_failure_at < ${atIso} then ${atIso} else last_failure_at end`,
      })
      .where("id", "=", delivery.webhook_id)
      .returningAll()
      .executeTakeFirst();
    if (!endpoint || endpoint.enabled !== 1) return outcome;
    const reason = result.gone
      ? `The receiver answered 410 Gone at ${atIso}.`
      : at.getTime() - Date.parse(endpoint.failing_since!) >= DISABLE_AFTER_MS
        ? `Every delivery failed from ${endpoint.failing_since} to ${atIso} (5 days).`
        : null;
    if (reason === null) return outcome;
    await trx.updateTable("webhook_endpoints").set({ enabled: 0, disabled_reason: reason, updated_at: atIso }).where("id", "=", endpoint.id).execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "failed", next_attempt_at: null })
      .where("webhook_id", "=", endpoint.id)
      .where("status", "=", "pending")
      .execute();
    // The endpoint is disabled: this delivery is given up with the rest of its pending ones.
    return "failed";
  });
}

/** Signs and sends one attempt of a claimed delivery, then records it. */
export async function attemptDelivery(db: Db, services: Services, owner: string, delivery: WebhookDeliveriesTable): Promise<void> {
  const event = await db.selectFrom("events").select(["id", "payload_json"]).where("id", "=", delivery.event_id).executeTakeFirst();
  const at = new Date();
  let result: AttemptResult;
  if (!event) {
    result = { ok: false, status: null, latencyMs: 0, responseBody: "", error: "the event no longer exists (purged)", retryAfterSeconds: null, gone: false };
  } else {
    const timestamp = Math.floor(at.getTime() / 1000);
    const secrets = await signingSecrets(db, delivery.workspace_id, at.getTime());
    result = await sendAttempt({
      url: delivery.url,
      body: event.payload_json,
      headers: {
        "content-type": "application/json",
        "user-agent": "Atelier-Webhooks/1",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, event.id, timestamp, event.payload_json),
      },
      timeoutMs: TIMEOUT_MS,
      allowInsecure: services.webhooks.allowInsecure,
    });
  }
  await recordAttempt(db, { delivery, owner, result, at, schedule: event ? services.webhooks.retryScheduleSeconds : [] });
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
      const free = concurrency - inFlight.size;
      const claimed = free > 0 ? await claimDueDeliveries(options.db, options.dialect, { owner, limit: free }) : [];
      claimedAll = free > 0 && claimed.length === free;
      for (const delivery of claimed) {
        const work = attemptDelivery(options.db, options.services, owner, delivery)
          .catch((err) => options.logger.error({ err, delivery: delivery.id }, "webhook delivery attempt failed to record; its lease will lapse"))
          .finally(() => {
            inFlight.delete(work);
            // A slot is free: claim more now only when there may be a backlog.
            if (backlog) schedule(0);
          });
        inFlight.add(work);
      }
    } catch (err) {
      if (storeUnreachable(err)) logStoreUnreachable(options.logger, err, {}, "the store cannot be reached: webhook deliveries wait");
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
