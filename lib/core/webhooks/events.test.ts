// Finding the event a run produced (the studio's run page shows it with its deliveries): none
// while the run is unfinished, the one its ending wrote afterwards, and only in its workspace.
import { describe, expect, it } from "vitest";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { findRunEvent, getEvent } from "./events";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { listEventDeliveries } from "./webhook-deliveries";
import { createWebhookEndpoint } from "./webhook-endpoints";
import { createWorkspace } from "../workspaces/workspaces";

describe(`findRunEvent (${testDialect()})`, () => {
  const store = useTestStore();

  async function workspaceCtx(): Promise<Ctx> {
    return testCtx(
      store.t,
      (await createWorkspace({ db: store.db }, { name: "events test", creditMicros: 1_000_000 })).id,
    );
  }

  it("is null while the run is unfinished, then the event its ending wrote, with that event's deliveries", async () => {
    const ctx = await workspaceCtx();
    await createWebhookEndpoint(ctx, { url: "http://127.0.0.1:9/hook" });
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "x" } });
    expect(await findRunEvent(ctx, generation.id)).toBeNull();

    await cancelGeneration(ctx, { id: generation.id });
    const event = await findRunEvent(ctx, generation.id);
    expect(event).toMatchObject({
      object: "event",
      type: "generation.canceled",
      data: { id: generation.id, status: "canceled" },
    });
    expect(event).toEqual(await getEvent(ctx, { id: event!.id }));
    const deliveries = await listEventDeliveries(ctx, { id: event!.id, query: {} });
    expect(deliveries.data.map((d) => [d.url, d.status])).toEqual([["http://127.0.0.1:9/hook", "pending"]]);

    // Another run's event is not this one's.
    const { generation: other } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "y" } });
    await cancelGeneration(ctx, { id: other.id });
    expect((await findRunEvent(ctx, other.id))!.id).not.toBe(event!.id);
    expect((await findRunEvent(ctx, generation.id))!.id).toBe(event!.id);
  });

  it("sees only the workspace's own runs, and needs generations:read", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "x" } });
    await cancelGeneration(ctx, { id: generation.id });
    expect(await findRunEvent(ctx, generation.id)).not.toBeNull();

    const stranger = await workspaceCtx();
    expect(await findRunEvent(stranger, generation.id)).toBeNull();
    expect(await findRunEvent(ctx, "gen_does_not_exist")).toBeNull();

    const writeOnly = testCtx(store.t, ctx.workspaceId, { scopes: ["generations:write"] });
    const err = await findRunEvent(writeOnly, generation.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("permission_denied");
  });
});
