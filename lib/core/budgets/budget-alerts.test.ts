// budget.threshold_reached against the store, on both dialects: concurrent creates on two
// connections claim each threshold once, two announcers write one event per claim with its
// delivery to a subscribed endpoint, and a new period announces again.
import { describe, expect, it } from "vitest";
import { openSameStore, useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createGeneration } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";
import { createWebhookEndpoint } from "../webhooks/webhook-endpoints";
import { writeList } from "../../store/writes";
import { CLI_AUDIT } from "../audit/audit-writer";
import type { Ctx } from "../context";
import { setBudget } from "./budgets";
import { budgetSpendWrite } from "./budget-spend";
import { announceBudgetAlerts } from "./budget-alerts";

const USD = 1_000_000;
const gradient = () => ({ model: "atelier/gradient", input: { prompt: "threshold dusk" } });

describe(`budget alerts (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;

  async function workspace() {
    const ws = await createWorkspace({ db: s.db }, { name: `alerts ${++n}`, creditMicros: 10 * USD });
    return { ws: ws.id, ctx: testCtx(s.t, ws.id) };
  }

  async function eventsOf(workspaceId: string) {
    return s.db
      .selectFrom("events")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("type", "=", "budget.threshold_reached")
      .execute();
  }

  it("20 concurrent creates announce 50, 80 and 100 % once each, delivered to a subscriber", async () => {
    const { ws, ctx } = await workspace();
    // $0.02 a day: a few runs fill it, the rest are refused.
    await setBudget({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { daily: "0.02" });
    const subscribed = await createWebhookEndpoint(ctx, {
      url: "https://example.com/budget",
      event_types: ["budget.threshold_reached"],
    });
    await createWebhookEndpoint(ctx, { url: "https://example.com/runs", event_types: ["generation.succeeded"] });
    const other = openSameStore(s.t);
    try {
      const elsewhere: Ctx = { ...ctx, db: other.db };
      const creates = Array.from({ length: 20 }, (_, i) => createGeneration(i % 2 ? elsewhere : ctx, gradient()));
      const results = await Promise.allSettled(creates);
      const started = results.filter((r) => r.status === "fulfilled").length;
      expect([started > 0, started < 20]).toEqual([true, true]);
      // Two processes' senders at once: still one event per claim.
      await Promise.all([announceBudgetAlerts(s.db), announceBudgetAlerts(other.db)]);
    } finally {
      await other.close();
    }
    const events = await eventsOf(ws);
    const payloads = events.map((e) => JSON.parse(e.payload_json) as { data: { threshold: number } });
    expect(payloads.map((p) => p.data.threshold).sort((a, b) => a - b)).toEqual([50, 80, 100]);
    const hundred = payloads.find((p) => p.data.threshold === 100);
    expect(hundred).toMatchObject({
      type: "budget.threshold_reached",
      data: {
        budget: { scope: "workspace", subject_id: ws, period: "day", cap_usd: "0.02" },
        threshold: 100,
        spent_usd: "0.02",
      },
    });
    const deliveries = await s.db
      .selectFrom("webhook_deliveries")
      .select(["event_id", "webhook_id"])
      .where("workspace_id", "=", ws)
      .execute();
    expect(deliveries.map((d) => d.webhook_id)).toEqual([subscribed.id, subscribed.id, subscribed.id]);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.id)));
    expect(await announceBudgetAlerts(s.db)).toBe(0);
  });

  it("a new period announces again; a counter under 50 % announces nothing", async () => {
    const { ws } = await workspace();
    await setBudget({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { daily: "1", monthly: "100" });
    const spend = (at: string, usd: number) =>
      writeList(s.db, [budgetSpendWrite(s.db, { workspaceId: ws, creatorId: "key_x", amountMicros: usd * USD, at })]);
    await spend("2026-03-04T10:00:00Z", 0.4);
    expect(await announceBudgetAlerts(s.db)).toBe(0);
    await spend("2026-03-04T11:00:00Z", 0.45);
    await spend("2026-03-05T09:00:00Z", 0.6);
    expect(await announceBudgetAlerts(s.db)).toBe(3);
    const reached = (await eventsOf(ws)).map((e) => {
      const { data } = JSON.parse(e.payload_json) as { data: { budget: { period_start: string }; threshold: number } };
      return `${data.budget.period_start} ${data.threshold}`;
    });
    expect(reached.sort()).toEqual(["2026-03-04 50", "2026-03-04 80", "2026-03-05 50"]);
  });
});
