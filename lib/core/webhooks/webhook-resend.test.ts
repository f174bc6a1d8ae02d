// Resending an event queues at most one pending delivery per event and destination: a resend
// while one is pending skips that destination, and answers 409 conflict when every destination
// already has one, even for 20 resends at once (on PostgreSQL over several connections).
import { describe, expect, it } from "vitest";
import type { WebhookDeliveriesTable } from "../../store/database";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { resendEvent } from "./webhook-deliveries";
import { createWebhookEndpoint } from "./webhook-endpoints";
import { createWorkspace } from "../workspaces/workspaces";

describe(`webhook resend, one pending per destination (${testDialect()})`, () => {
  const s = useTestStore();

  /** A workspace with four endpoints and an ended run whose own webhook is a fifth destination; its first deliveries done. */
  async function eventWithFiveDestinations(): Promise<{ ctx: Ctx; eventId: string; endpointIds: string[] }> {
    const ctx = testCtx(
      s.t,
      (await createWorkspace({ db: s.db }, { name: "resend test", creditMicros: 1_000_000 })).id,
    );
    const endpointIds: string[] = [];
    for (let i = 0; i < 4; i++)
      endpointIds.push((await createWebhookEndpoint(ctx, { url: `http://127.0.0.1:9/e${i}` })).id);
    const { generation } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "x" },
      webhook: "http://127.0.0.1:9/run",
    });
    await cancelGeneration(ctx, { id: generation.id });
    const event = await s.db
      .selectFrom("events")
      .select("id")
      .where("generation_id", "=", generation.id)
      .executeTakeFirstOrThrow();
    await finishPending(event.id);
    return { ctx, eventId: event.id, endpointIds };
  }

  const finishPending = (eventId: string) =>
    s.db
      .updateTable("webhook_deliveries")
      .set({ status: "succeeded", next_attempt_at: null })
      .where("event_id", "=", eventId)
      .where("status", "=", "pending")
      .execute();

  const pendingOf = (eventId: string): Promise<WebhookDeliveriesTable[]> =>
    s.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("event_id", "=", eventId)
      .where("status", "=", "pending")
      .orderBy("url")
      .execute();

  it("20 resends at once make one delivery per destination; the other 19 answer 409 conflict", async () => {
    const { ctx, eventId } = await eventWithFiveDestinations();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => resendEvent(ctx, { id: eventId, body: {} })),
    );
    const sent = results.filter((r) => r.status === "fulfilled");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.value.data).toHaveLength(5);
    for (const r of results) {
      if (r.status === "rejected") {
        expect(r.reason).toBeInstanceOf(ApiError);
        expect((r.reason as ApiError).code).toBe("conflict");
        expect((r.reason as ApiError).message).toBe(
          `Event ${eventId} is already queued for delivery to each of its 5 destinations; it can be sent again once that delivery has succeeded or failed.`,
        );
      }
    }
    expect((await pendingOf(eventId)).map((d) => d.url.split("/").pop())).toEqual(["e0", "e1", "e2", "e3", "run"]);
  });

  it("20 resends at once to one endpoint make one delivery", async () => {
    const { ctx, eventId, endpointIds } = await eventWithFiveDestinations();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => resendEvent(ctx, { id: eventId, body: { webhook_id: endpointIds[2] } })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((refused.reason as ApiError).message).toMatch(/already queued for delivery to its destination/);
    expect((await pendingOf(eventId)).map((d) => d.webhook_id)).toEqual([endpointIds[2]]);
  });

  it("a resend skips only the destinations with a delivery pending, and sends again once it has ended", async () => {
    const { ctx, eventId, endpointIds } = await eventWithFiveDestinations();
    await resendEvent(ctx, { id: eventId, body: { webhook_id: endpointIds[0] } });
    const rest = await resendEvent(ctx, { id: eventId, body: {} });
    expect(rest.data.map((d) => d.url.split("/").pop()).sort()).toEqual(["e1", "e2", "e3", "run"]);
    expect(await pendingOf(eventId)).toHaveLength(5);
    await finishPending(eventId);
    expect((await resendEvent(ctx, { id: eventId, body: { webhook_id: endpointIds[0] } })).data).toHaveLength(1);
  });
});
