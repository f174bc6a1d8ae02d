// Webhooks in the store: delivery rows written with the event, endpoints, secrets and rotation,
// recording attempts (retry schedule, 410, five failing days), leases, purge; and one real
// delivery to a local receiver whose signature verifies with the published secret.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptDelivery, claimDueDeliveries } from "../../engine/webhook-sender";
import { nextAttemptAt, recordAttempt } from "./webhook-attempt-records";
import type { Db, WebhookDeliveriesTable } from "../../store/database";
import type { AttemptResult } from "./send-attempt";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { getEvent, listEvents, purgeEvents } from "./events";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { listEventDeliveries, resendEvent } from "./webhook-deliveries";
import {
  createWebhookEndpoint,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
} from "./webhook-endpoints";
import { getDefaultWebhookSecret, rotateDefaultWebhookSecret, signingSecrets } from "./webhook-secrets";
import { createWorkspace } from "../workspaces/workspaces";
import { METRICS } from "../../primitives/metrics";

const ok: AttemptResult = {
  ok: true,
  status: 200,
  latencyMs: 3,
  responseBody: "thanks",
  error: null,
  retryAfterSeconds: null,
  gone: false,
};
const fail = (status: number, extra: Partial<AttemptResult> = {}): AttemptResult => ({
  ...ok,
  ok: false,
  status,
  responseBody: "nope",
  error: "failed",
  ...extra,
});

describe(`webhooks (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "webhooks test", creditMicros: 1_000_000 })).id);
  }

  /** A run that ends canceled: its event and deliveries are written by the cancel transaction. */
  async function endedRun(ctx: Ctx, webhook?: string) {
    const { generation } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "x" },
      ...(webhook ? { webhook } : {}),
    });
    await cancelGeneration(ctx, { id: generation.id });
    const event = await db
      .selectFrom("events")
      .selectAll()
      .where("generation_id", "=", generation.id)
      .executeTakeFirstOrThrow();
    return { generation, event };
  }

  async function deliveriesOf(eventId: string): Promise<WebhookDeliveriesTable[]> {
    return db.selectFrom("webhook_deliveries").selectAll().where("event_id", "=", eventId).orderBy("url").execute();
  }

  async function errorOf(promise: Promise<unknown>): Promise<ApiError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  it("an ending run writes its event and one delivery per destination in the same transaction", async () => {
    const ctx = await workspaceCtx();
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/all" });
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/canceled-only", event_types: ["generation.canceled"] });
    await createWebhookEndpoint(ctx, {
      url: "http://127.0.0.1:9/succeeded-only",
      event_types: ["generation.succeeded"],
    });
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/disabled", enabled: false });
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/run");
    const deliveries = await deliveriesOf(event.id);
    expect(deliveries.map((d) => [d.url.split("/").pop(), d.status, d.attempt_count, d.webhook_id === null])).toEqual([
      ["all", "pending", 0, false],
      ["canceled-only", "pending", 0, false],
      ["run", "pending", 0, true],
    ]);
    const shown = await getEvent(ctx, { id: event.id });
    expect(shown).toMatchObject({
      id: event.id,
      object: "event",
      type: "generation.canceled",
      data: { status: "canceled" },
    });
    expect((await listEvents(ctx, { type: "generation.succeeded" })).data).toEqual([]);
    expect((await listEvents(ctx, { type: "generation.canceled,generation.failed" })).data.map((e) => e.id)).toEqual([
      event.id,
    ]);
    expect((await errorOf(listEvents(ctx, { type: "generation.started" }))).param).toBe("type");
  });

  it("endpoints: validated fields, 404 across workspaces, enabling clears the disabled reason, delete", async () => {
    const ctx = await workspaceCtx();
    const other = await workspaceCtx();
    for (const [body, param] of [
      [{}, "url"],
      [{ url: "ftp://x.example" }, "url"],
      [{ url: "http://127.0.0.1:9/x", event_types: ["nope"] }, "event_types"],
      [{ url: "http://127.0.0.1:9/x", description: "d".repeat(501) }, "description"],
      [{ url: "http://127.0.0.1:9/x", enabled: "yes" }, "enabled"],
      [{ url: "http://127.0.0.1:9/x", secret: "mine" }, "secret"],
    ] as const) {
      expect((await errorOf(createWebhookEndpoint(ctx, body))).param).toBe(param);
    }
    const endpoint = await createWebhookEndpoint(ctx, {
      url: "http://127.0.0.1:9/x",
      description: "ops",
      event_types: ["generation.failed", "generation.failed"],
    });
    expect(endpoint).toMatchObject({
      object: "webhook_endpoint",
      description: "ops",
      event_types: ["generation.failed"],
      enabled: true,
      disabled_reason: null,
    });
    expect((await errorOf(getWebhookEndpoint(other, { id: endpoint.id }))).code).toBe("resource_not_found");
    await db
      .updateTable("webhook_endpoints")
      .set({ enabled: 0, disabled_reason: "410" })
      .where("id", "=", endpoint.id)
      .execute();
    expect(await updateWebhookEndpoint(ctx, { id: endpoint.id, body: { enabled: true } })).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
    expect((await listWebhookEndpoints(ctx, {})).data.map((e) => e.id)).toEqual([endpoint.id]);
    expect(await deleteWebhookEndpoint(ctx, { id: endpoint.id })).toEqual({
      id: endpoint.id,
      object: "webhook_endpoint",
      deleted: true,
    });
    expect((await errorOf(getWebhookEndpoint(ctx, { id: endpoint.id }))).code).toBe("resource_not_found");
  });

  it("refuses unsafe URLs when insecure webhooks are off", async () => {
    const ctx = await workspaceCtx();
    const secure = {
      ...ctx,
      services: { ...ctx.services, webhooks: { ...ctx.services.webhooks, allowInsecure: false } },
    };
    expect((await errorOf(createWebhookEndpoint(secure, { url: "http://example.com/x" }))).param).toBe("url");
    expect((await errorOf(createWebhookEndpoint(secure, { url: "https://127.0.0.1/x" }))).param).toBe("url");
    const err = await errorOf(
      createGeneration(secure, { model: "atelier/gradient", input: { prompt: "x" }, webhook: "https://10.1.2.3/x" }),
    );
    expect(err.param).toBe("webhook");
  });

  it("the secret is made once; a rotation signs with both for 24 hours", async () => {
    const ctx = await workspaceCtx();
    const first = await getDefaultWebhookSecret(ctx);
    expect(first).toMatchObject({ object: "webhook_secret", previous_expires_at: null });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    expect(await getDefaultWebhookSecret(ctx)).toEqual(first);
    const rotated = await rotateDefaultWebhookSecret(ctx);
    expect(rotated.secret).not.toBe(first.secret);
    expect(Date.parse(rotated.previous_expires_at!) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect(await signingSecrets(db, ctx.workspaceId)).toEqual([rotated.secret, first.secret]);
    expect(await signingSecrets(db, ctx.workspaceId, Date.now() + 25 * 3600 * 1000)).toEqual([rotated.secret]);
  });

  /** Lists committed by the store's write groups so far, and in how many transactions. */
  async function writeGroups(): Promise<{ transactions: number; lists: number }> {
    const { values } = await METRICS.writeGroupSize.get();
    const of = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
    return {
      transactions: of("atelier_store_write_group_size_count"),
      lists: of("atelier_store_write_group_size_sum"),
    };
  }

  async function succeededCount(): Promise<number> {
    return (await METRICS.webhookDeliveries.get()).values.find((v) => v.labels.outcome === "succeeded")?.value ?? 0;
  }

  async function attemptsOf(deliveryId: string) {
    return db
      .selectFrom("webhook_attempts")
      .select(["attempt", "response_status", "latency_ms", "response_body", "error"])
      .where("delivery_id", "=", deliveryId)
      .execute();
  }

  it("successes recorded at once share one transaction, each written only while the delivery is still ours", async () => {
    const ctx = await workspaceCtx();
    const failing = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/failing" });
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/healthy" });
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/taken" });
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000).toISOString();
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: yesterday, last_failure_at: yesterday })
      .where("id", "=", failing.id)
      .execute();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/run");
    const [failingDelivery, healthy, run, taken] = await Promise.all(
      ["failing", "healthy", "run", "taken"].map((name) => claimedDelivery(event.id, `http://127.0.0.1:9/${name}`)),
    );
    // Its lease lapsed and another process holds it now.
    await db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: "another process" })
      .where("id", "=", taken!.id)
      .execute();
    const succeededBefore = await succeededCount();
    const groupsBefore = await writeGroups();
    await Promise.all(
      [failingDelivery, healthy, run, taken].map((delivery) =>
        recordAttempt(db, { delivery: delivery!, owner: "o", result: ok, at: new Date(), schedule: [0, 1] }),
      ),
    );
    expect(await writeGroups()).toEqual({ transactions: groupsBefore.transactions + 1, lists: groupsBefore.lists + 4 });
    expect(await succeededCount()).toBe(succeededBefore + 3);
    for (const delivery of [failingDelivery, healthy, run]) {
      expect(await deliveryRow(delivery!.id)).toMatchObject({
        status: "succeeded",
        attempt_count: 1,
        next_attempt_at: null,
        lease_owner: null,
        lease_expires_at: null,
      });
      expect(await attemptsOf(delivery!.id)).toEqual([
        { attempt: 1, response_status: 200, latency_ms: 3, response_body: "thanks", error: null },
      ]);
    }
    expect(await deliveryRow(taken!.id)).toMatchObject({
      status: "pending",
      attempt_count: 0,
      lease_owner: "another process",
    });
    expect(await attemptsOf(taken!.id)).toEqual([]);
    const health = await db
      .selectFrom("webhook_endpoints")
      .select(["failing_since", "last_failure_at"])
      .where("id", "=", failing.id)
      .executeTakeFirstOrThrow();
    expect(health).toEqual({ failing_since: null, last_failure_at: null });
  });

  it("a success the store refuses is recorded alone without the answer; the successes beside it keep theirs", async () => {
    const ctx = await workspaceCtx();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/run");
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/fine" });
    const { event: second } = await endedRun(ctx, "http://127.0.0.1:9/run");
    const refused = await claimedDelivery(event.id, "http://127.0.0.1:9/run");
    const fine = await claimedDelivery(second.id, "http://127.0.0.1:9/fine");
    await Promise.all([
      recordAttempt(db, {
        delivery: refused,
        owner: "o",
        result: { ...ok, latencyMs: Number.NaN },
        at: new Date(),
        schedule: [0, 1],
      }),
      recordAttempt(db, { delivery: fine, owner: "o", result: ok, at: new Date(), schedule: [0, 1] }),
    ]);
    expect(await deliveryRow(fine.id)).toMatchObject({ status: "succeeded", attempt_count: 1, lease_owner: null });
    expect(await attemptsOf(fine.id)).toEqual([
      { attempt: 1, response_status: 200, latency_ms: 3, response_body: "thanks", error: null },
    ]);
    expect(await deliveryRow(refused.id)).toMatchObject({ status: "succeeded", attempt_count: 1, lease_owner: null });
    expect(await attemptsOf(refused.id)).toEqual([
      {
        attempt: 1,
        response_status: 200,
        latency_ms: 0,
        response_body: "",
        error: expect.stringMatching(/the answer could not be recorded/),
      },
    ]);
  });

  it("records attempts: retries on the schedule, honours Retry-After, succeeds, or fails after the last", async () => {
    const ctx = await workspaceCtx();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/run");
    const owner = `test-${Math.random()}`;
    const [claimed] = await claimDueDeliveries(db, t.store.dialect, {
      owner,
      limit: 50,
      now: new Date(Date.now() + 1000),
    }).then((rows) => rows.filter((r) => r.event_id === event.id));
    expect(claimed).toBeDefined();
    // Another owner cannot claim it while the lease holds.
    expect(
      (await claimDueDeliveries(db, t.store.dialect, { owner: "other", limit: 50 })).some((r) => r.id === claimed!.id),
    ).toBe(false);
    const at = new Date();
    await recordAttempt(db, {
      delivery: claimed!,
      owner,
      result: fail(503, { retryAfterSeconds: 120 }),
      at,
      schedule: [0, 1, 1],
    });
    let row = (await deliveriesOf(event.id))[0]!;
    expect(row).toMatchObject({ status: "pending", attempt_count: 1, lease_owner: null });
    expect(Date.parse(row.next_attempt_at!) - at.getTime()).toBeGreaterThanOrEqual(120_000);
    await recordAttempt(db, {
      delivery: { ...row, lease_owner: owner },
      owner: "not-the-lease-holder",
      result: ok,
      at,
      schedule: [0, 1, 1],
    });
    expect((await deliveriesOf(event.id))[0]!.attempt_count).toBe(1);
    await db.updateTable("webhook_deliveries").set({ lease_owner: owner }).where("id", "=", row.id).execute();
    await recordAttempt(db, { delivery: row, owner, result: ok, at, schedule: [0, 1, 1] });
    row = (await deliveriesOf(event.id))[0]!;
    expect(row).toMatchObject({ status: "succeeded", attempt_count: 2, next_attempt_at: null });
    const listed = await listEventDeliveries(ctx, { id: event.id, query: {} });
    expect(listed.data[0]!.attempts.map((a) => [a.attempt, a.response_status, a.response_body])).toEqual([
      [1, 503, "nope"],
      [2, 200, "thanks"],
    ]);
    expect(nextAttemptAt([0, 5], 2, null, 0)).toBeNull();
    const next = Date.parse(nextAttemptAt([0, 5], 1, null, 0)!);
    expect(next).toBeGreaterThanOrEqual(4000);
    expect(next).toBeLessThanOrEqual(6000);
  });

  it("410 disables the endpoint at once, failing its pending deliveries; five failing days disable it too", async () => {
    const ctx = await workspaceCtx();
    const gone = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/gone" });
    const { event } = await endedRun(ctx);
    const delivery = (await deliveriesOf(event.id))[0]!;
    await db.updateTable("webhook_deliveries").set({ lease_owner: "o" }).where("id", "=", delivery.id).execute();
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(410, { gone: true }),
      at: new Date(),
      schedule: [0, 1, 1],
    });
    expect(await getWebhookEndpoint(ctx, { id: gone.id })).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(/410/),
    });
    expect((await deliveriesOf(event.id))[0]!.status).toBe("failed");

    await deleteWebhookEndpoint(ctx, { id: gone.id });
    const flaky = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/flaky" });
    // Failing without a break: the latest failure was an hour ago.
    const sixDaysAgo = new Date(Date.now() - 6 * 24 * 3600 * 1000).toISOString();
    const anHourAgo = new Date(Date.now() - 3600 * 1000).toISOString();
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: sixDaysAgo, last_failure_at: anHourAgo })
      .where("id", "=", flaky.id)
      .execute();
    const second = await endedRun(ctx);
    const d2 = (await deliveriesOf(second.event.id))[0]!;
    await db.updateTable("webhook_deliveries").set({ lease_owner: "o" }).where("id", "=", d2.id).execute();
    await recordAttempt(db, { delivery: d2, owner: "o", result: fail(500), at: new Date(), schedule: [0, 1, 1] });
    expect(await getWebhookEndpoint(ctx, { id: flaky.id })).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(/5 days/),
    });
  });

  /** The delivery of `eventId` to `url`, leased to "o" as the sender would have it. */
  async function claimedDelivery(eventId: string, url: string): Promise<WebhookDeliveriesTable> {
    const row = (await deliveriesOf(eventId)).find((d) => d.url === url)!;
    await db.updateTable("webhook_deliveries").set({ lease_owner: "o" }).where("id", "=", row.id).execute();
    return { ...row, lease_owner: "o" };
  }

  async function deliveryRow(id: string): Promise<WebhookDeliveriesTable> {
    return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  }

  it("410 from a run's own URL ends its delivery at once (no endpoint to disable)", async () => {
    const ctx = await workspaceCtx();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/own-gone");
    const delivery = await claimedDelivery(event.id, "http://127.0.0.1:9/own-gone");
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(410, { gone: true }),
      at: new Date(),
      schedule: [0, 1, 1, 1],
    });
    expect(await deliveryRow(delivery.id)).toMatchObject({ status: "failed", next_attempt_at: null, attempt_count: 1 });
  });

  it("a 410 to a disabled endpoint (a resend) ends that delivery too", async () => {
    const ctx = await workspaceCtx();
    const endpoint = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/off", enabled: false });
    const { event } = await endedRun(ctx);
    await resendEvent(ctx, { id: event.id, body: { webhook_id: endpoint.id } });
    const delivery = await claimedDelivery(event.id, "http://127.0.0.1:9/off");
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(410, { gone: true }),
      at: new Date(),
      schedule: [0, 1, 1, 1],
    });
    expect(await deliveryRow(delivery.id)).toMatchObject({ status: "failed", next_attempt_at: null });
  });

  it("disabling an endpoint fails its pending deliveries; a new URL takes them along, due now, with a fresh health record", async () => {
    const ctx = await workspaceCtx();
    const off = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/to-disable" });
    const moving = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/old" });
    const { event } = await endedRun(ctx);
    const later = new Date(Date.now() + 3600 * 1000).toISOString();
    await db
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: later })
      .where("event_id", "=", event.id)
      .execute();
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: later, last_failure_at: later })
      .where("id", "=", moving.id)
      .execute();

    // A change that neither disables nor moves leaves them alone.
    await updateWebhookEndpoint(ctx, { id: off.id, body: { description: "still on" } });
    expect((await deliveriesOf(event.id)).every((d) => d.status === "pending")).toBe(true);

    await updateWebhookEndpoint(ctx, { id: off.id, body: { enabled: false } });
    const disabled = (await deliveriesOf(event.id)).find((d) => d.webhook_id === off.id)!;
    expect(disabled).toMatchObject({ status: "failed", next_attempt_at: null, url: "http://127.0.0.1:9/to-disable" });

    const before = Date.now();
    const moved = await updateWebhookEndpoint(ctx, { id: moving.id, body: { url: "http://127.0.0.1:9/new" } });
    expect(moved.url).toBe("http://127.0.0.1:9/new");
    const repointed = (await deliveriesOf(event.id)).find((d) => d.webhook_id === moving.id)!;
    expect(repointed).toMatchObject({ status: "pending", url: "http://127.0.0.1:9/new" });
    expect(Date.parse(repointed.next_attempt_at!)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(repointed.next_attempt_at!)).toBeGreaterThanOrEqual(before - 1000);
    const health = await db
      .selectFrom("webhook_endpoints")
      .select(["failing_since", "last_failure_at"])
      .where("id", "=", moving.id)
      .executeTakeFirstOrThrow();
    expect(health).toEqual({ failing_since: null, last_failure_at: null });
  });

  it("stores an answer with U+0000 without it, and an attempt the store refuses still counts", async () => {
    const ctx = await workspaceCtx();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/nul");
    let delivery = await claimedDelivery(event.id, "http://127.0.0.1:9/nul");
    const at = new Date();
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(500, { responseBody: "a\u0000b", error: "bad\u0000" }),
      at,
      schedule: [0, 1, 1, 1],
    });
    delivery = await claimedDelivery(event.id, "http://127.0.0.1:9/nul");
    expect(delivery).toMatchObject({ status: "pending", attempt_count: 1 });
    // No latency column takes NaN: the first write is refused, and the attempt is recorded without the answer.
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(502, { latencyMs: Number.NaN, responseBody: "kept?" }),
      at,
      schedule: [0, 1, 1, 1],
    });
    expect(await deliveryRow(delivery.id)).toMatchObject({ status: "pending", attempt_count: 2, lease_owner: null });
    const listed = (await listEventDeliveries(ctx, { id: event.id, query: {} })).data[0]!;
    expect(listed.attempts.map((a) => [a.attempt, a.response_status, a.response_body, a.latency_ms])).toEqual([
      [1, 500, "ab", 3],
      [2, 502, "", 0],
    ]);
    expect(listed.attempts[0]!.error).toBe("bad");
    expect(listed.attempts[1]!.error).toMatch(/^failed; the answer could not be recorded \(.+\)$/);
  });

  it("Retry-After is honoured up to 10 hours, however far it points", async () => {
    const ctx = await workspaceCtx();
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/later");
    const delivery = await claimedDelivery(event.id, "http://127.0.0.1:9/later");
    const at = new Date();
    await recordAttempt(db, {
      delivery,
      owner: "o",
      result: fail(503, { retryAfterSeconds: 1e20 }),
      at,
      schedule: [0, 1, 1],
    });
    const row = await deliveryRow(delivery.id);
    expect(row).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(Date.parse(row.next_attempt_at!) - at.getTime()).toBe(10 * 3600 * 1000);
    expect(nextAttemptAt([0, 5], 1, 3 * 24 * 3600, 0, () => 0.5)).toBe(new Date(10 * 3600 * 1000).toISOString());
    expect(nextAttemptAt([0, 5], 1, 60, 0, () => 0.5)).toBe(new Date(60_000).toISOString());
    expect(nextAttemptAt([0, 50_000], 1, 3 * 24 * 3600, 0, () => 0.5)).toBe(new Date(50_000_000).toISOString());
  });

  it("five failing days means without a break: a failure after a day of silence starts the clock again", async () => {
    const ctx = await workspaceCtx();
    const endpoint = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/quiet" });
    const days = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000).toISOString();
    // Failed once six days ago, then nothing for two days... and now fails again.
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: days(6), last_failure_at: days(2) })
      .where("id", "=", endpoint.id)
      .execute();
    const first = await endedRun(ctx);
    const at = new Date();
    await recordAttempt(db, {
      delivery: await claimedDelivery(first.event.id, "http://127.0.0.1:9/quiet"),
      owner: "o",
      result: fail(500),
      at,
      schedule: [0, 1, 1],
    });
    expect(await getWebhookEndpoint(ctx, { id: endpoint.id })).toMatchObject({ enabled: true, disabled_reason: null });
    let health = await db
      .selectFrom("webhook_endpoints")
      .select(["failing_since", "last_failure_at"])
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(health).toEqual({ failing_since: at.toISOString(), last_failure_at: at.toISOString() });

    // Failing since six days with the latest failure 20 hours ago: no break, so it is disabled.
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: days(6), last_failure_at: days(20 / 24) })
      .where("id", "=", endpoint.id)
      .execute();
    const second = await endedRun(ctx);
    await recordAttempt(db, {
      delivery: await claimedDelivery(second.event.id, "http://127.0.0.1:9/quiet"),
      owner: "o",
      result: fail(500),
      at,
      schedule: [0, 1, 1],
    });
    expect(await getWebhookEndpoint(ctx, { id: endpoint.id })).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(/5 days/),
    });

    // Enabling it again clears the record (as a success does).
    await updateWebhookEndpoint(ctx, { id: endpoint.id, body: { enabled: true } });
    health = await db
      .selectFrom("webhook_endpoints")
      .select(["failing_since", "last_failure_at"])
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(health).toEqual({ failing_since: null, last_failure_at: null });
  });

  it("resend makes new deliveries of the same event; purge removes old events with their deliveries", async () => {
    const ctx = await workspaceCtx();
    const endpoint = await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/a" });
    const { event } = await endedRun(ctx, "http://127.0.0.1:9/run");
    // A destination takes a resend once its delivery has ended (webhook-resend.test.ts).
    const delivered = () =>
      db
        .updateTable("webhook_deliveries")
        .set({ status: "succeeded", next_attempt_at: null })
        .where("event_id", "=", event.id)
        .execute();
    await delivered();
    const all = await resendEvent(ctx, { id: event.id, body: {} });
    expect(all.data.map((d) => d.url).sort()).toEqual(["http://127.0.0.1:9/a", "http://127.0.0.1:9/run"]);
    await delivered();
    const one = await resendEvent(ctx, { id: event.id, body: { webhook_id: endpoint.id } });
    expect(one.data).toEqual([
      expect.objectContaining({ event_id: event.id, webhook_id: endpoint.id, status: "pending", attempts: [] }),
    ]);
    expect(await deliveriesOf(event.id)).toHaveLength(5);
    const other = await workspaceCtx();
    expect((await errorOf(resendEvent(other, { id: event.id, body: {} }))).code).toBe("resource_not_found");

    await db
      .updateTable("events")
      .set({ created_at: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString() })
      .where("id", "=", event.id)
      .execute();
    const fresh = await endedRun(ctx);
    expect(await purgeEvents({ db })).toBeGreaterThanOrEqual(1);
    expect((await errorOf(getEvent(ctx, { id: event.id }))).code).toBe("resource_not_found");
    expect(await deliveriesOf(event.id)).toEqual([]);
    expect((await getEvent(ctx, { id: fresh.event.id })).id).toBe(fresh.event.id);
  });

  it("sends a signed delivery to a real receiver; the signature verifies with the published secret", async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(received.length === 1 ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const ctx = await workspaceCtx();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const { event } = await endedRun(ctx, url);
      const send = async () => {
        const owner = `o-${Math.random()}`;
        await db
          .updateTable("webhook_deliveries")
          .set({ next_attempt_at: new Date(0).toISOString() })
          .where("event_id", "=", event.id)
          .where("status", "=", "pending")
          .execute();
        const claimed = (await claimDueDeliveries(db, t.store.dialect, { owner, limit: 100 })).filter(
          (d) => d.event_id === event.id,
        );
        for (const d of claimed) await attemptDelivery(db, ctx.services, owner, d);
      };
      await send();
      await send();
      expect(received).toHaveLength(2);
      const { secret } = await getDefaultWebhookSecret(ctx);
      for (const r of received) {
        expect(r.headers["webhook-id"]).toBe(event.id);
        expect(new Webhook(secret).verify(r.body, r.headers)).toMatchObject({
          type: "generation.canceled",
          data: { status: "canceled" },
        });
      }
      expect((await deliveriesOf(event.id))[0]).toMatchObject({ status: "succeeded", attempt_count: 2 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
