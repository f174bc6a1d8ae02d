// Recording a webhook delivery's attempts: the attempt's row, the delivery's next step (done,
// the next try on the retry schedule, or given up) and its endpoint's health (disabled after five
// days of failures without a break), each in one transaction with the attempt.
import { sql, type Compilable, type CompiledQuery } from "kysely";
import { METRICS, type WebhookOutcome } from "../../primitives/metrics";
import type { Db, WebhookDeliveriesTable } from "../../store/database";
import { reusedQuery } from "../../store/reused-sql";
import { withTransaction, writeList } from "../../store/writes";
import type { AttemptResult } from "./send-attempt";

/** An endpoint whose deliveries only failed for this long, without a break (failureGapMs), is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/**
 * The longest wait a receiver's Retry-After may ask for: the default schedule's longest step. A
 * receiver cannot park a delivery for days (nor push its time past what a date can hold).
 */
export const RETRY_AFTER_CAP_SECONDS = 10 * 3600;

/** When the next attempt goes: the schedule's delay with ±20 % jitter, or later when Retry-After says so (at most 10 h). */
export function nextAttemptAt(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterSeconds: number | null,
  now: number,
  random = Math.random,
): string | null {
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
 * A success, the common case, is committed together with the other successes being recorded
 * (successWrites); should that fail, it is recorded alone like any other outcome.
 */
export async function recordAttempt(db: Db, input: AttemptRecord): Promise<void> {
  const grouped = input.result.ok ? await storeSuccessGrouped(db, input).catch(() => undefined) : undefined;
  const outcome = grouped === undefined ? await storeAttemptOrWithoutAnswer(db, input) : grouped;
  if (outcome) METRICS.webhookDeliveries.inc({ outcome });
}

/**
 * storeAttempt; should the store refuse the record, the attempt is recorded again without the
 * receiver's answer: it still counts, so a delivery never loops on an answer it cannot store.
 */
async function storeAttemptOrWithoutAnswer(db: Db, input: AttemptRecord): Promise<WebhookOutcome | null> {
  try {
    return await storeAttempt(db, input);
  } catch (err) {
    const { result } = input;
    const why = storable(err instanceof Error ? err.message : String(err)).slice(0, 300);
    return storeAttempt(db, {
      ...input,
      result: {
        ...result,
        status:
          Number.isInteger(result.status) && result.status! >= 100 && result.status! <= 999 ? result.status : null,
        latencyMs: Number.isFinite(result.latencyMs) ? Math.min(Math.max(result.latencyMs, 0), 2 ** 31 - 1) : 0,
        responseBody: "",
        error: `${result.error === null ? "" : `${storable(result.error).slice(0, 300)}; `}the answer could not be recorded (${why})`,
      },
    });
  }
}

interface AttemptRecord {
  delivery: WebhookDeliveriesTable;
  owner: string;
  result: AttemptResult;
  at: Date;
  schedule: readonly number[];
}

/** The write groups' key for recorded successes (a workspace's creates use its ID). */
const SUCCESS_GROUP = "webhook attempt successes";

/**
 * A success's writes, all or nothing unless the delivery is still ours (our lease, pending): it
 * becomes succeeded with the lease kept for a moment, so the attempt's row is written only for a
 * delivery this transaction marked, then the lease goes, and the endpoint is healthy again (a
 * write only when it was failing; it did answer 2xx, even to an attempt whose lease had lapsed).
 * Only conditional writes, nothing read in between, so a transaction can hold many
 * (write-groups.ts): a backlog's successes share a commit rather than paying one each.
 */
function successWrites(db: Db, { delivery, owner, result, at }: AttemptRecord): Compilable[] {
  const attempt = delivery.attempt_count + 1;
  const writes: Compilable[] = [
    reusedQuery(db, "webhook success: mark", ["succeeded", attempt, null, delivery.id, owner, "pending"], () =>
      db
        .updateTable("webhook_deliveries")
        .set({ status: "succeeded", attempt_count: attempt, next_attempt_at: null })
        .where("id", "=", delivery.id)
        .where("lease_owner", "=", owner)
        .where("status", "=", "pending"),
    ),
    reusedQuery(
      db,
      "webhook success: attempt",
      [
        at.toISOString(),
        result.status,
        Math.round(result.latencyMs),
        storable(result.responseBody),
        delivery.id,
        owner,
        "succeeded",
        attempt,
      ],
      () =>
        db
          .insertInto("webhook_attempts")
          .columns(["delivery_id", "attempt", "at", "response_status", "latency_ms", "response_body", "error"])
          .expression(
            db
              .selectFrom("webhook_deliveries")
              .select((eb) => [
                "id",
                "attempt_count",
                eb.val(at.toISOString()).as("at"),
                sql<number>`cast(${result.status} as integer)`.as("response_status"),
                sql<number>`cast(${Math.round(result.latencyMs)} as integer)`.as("latency_ms"),
                eb.val(storable(result.responseBody)).as("response_body"),
                sql<null>`null`.as("error"),
              ])
              .where("id", "=", delivery.id)
              .where("lease_owner", "=", owner)
              .where("status", "=", "succeeded")
              .where("attempt_count", "=", attempt),
          ),
    ),
    reusedQuery(db, "webhook success: release", [null, null, delivery.id, owner], () =>
      db
        .updateTable("webhook_deliveries")
        .set({ lease_owner: null, lease_expires_at: null })
        .where("id", "=", delivery.id)
        .where("lease_owner", "=", owner),
    ),
  ];
  if (delivery.webhook_id) {
    writes.push(
      reusedQuery(db, "webhook success: endpoint healthy", [null, null, delivery.webhook_id], () =>
        db
          .updateTable("webhook_endpoints")
          .set({ failing_since: null, last_failure_at: null })
          .where("id", "=", delivery.webhook_id!)
          .where((eb) => eb.or([eb("failing_since", "is not", null), eb("last_failure_at", "is not", null)])),
      ),
    );
  }
  return writes;
}

/**
 * After a group, the attempts of its deliveries, newest last (webhook_attempts' key is delivery and
 * attempt): a group keeps each delivery's last row, a list written alone gets them all.
 */
function attemptsOf(db: Db, ids: readonly string[]): CompiledQuery<{ id: string; attempt: number; at: string }> {
  return db
    .selectFrom("webhook_attempts")
    .select(["delivery_id as id", "attempt", "at"])
    .where("delivery_id", "in", ids)
    .orderBy("delivery_id")
    .orderBy("attempt")
    .compile();
}

/** "succeeded", or null when the delivery was no longer ours (nothing written). */
async function storeSuccessGrouped(db: Db, input: AttemptRecord): Promise<"succeeded" | null> {
  const { delivery } = input;
  const rows = await writeList(db, successWrites(db, input), {
    groupBy: SUCCESS_GROUP,
    read: { ids: [delivery.id], query: attemptsOf },
  });
  const attempt = delivery.attempt_count + 1;
  const at = input.at.toISOString();
  return rows.some((row) => row.id === delivery.id && row.attempt === attempt && row.at === at) ? "succeeded" : null;
}

/** What became of the delivery (null: it was no longer ours, nothing recorded). */
async function storeAttempt(db: Db, input: AttemptRecord): Promise<WebhookOutcome | null> {
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
      await trx
        .updateTable("webhook_deliveries")
        .set({ status: "succeeded", next_attempt_at: null })
        .where("id", "=", delivery.id)
        .execute();
      if (delivery.webhook_id) {
        await trx
          .updateTable("webhook_endpoints")
          .set({ failing_since: null, last_failure_at: null })
          .where("id", "=", delivery.webhook_id)
          .execute();
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
    await trx
      .updateTable("webhook_endpoints")
      .set({ enabled: 0, disabled_reason: reason, updated_at: atIso })
      .where("id", "=", endpoint.id)
      .execute();
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
