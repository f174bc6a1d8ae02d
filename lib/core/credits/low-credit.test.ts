// The low-balance alert against the store, on both dialects: a crossing claims once, further holds
// and releases claim nothing, a grant back over the threshold re-arms it, setting a threshold the
// balance is under claims in the setting's transaction, concurrent holds on two connections and two
// announcers make one event delivered to the endpoints that take it, the webhook sender's turn
// sends it signed; bad input is a 400 naming the field, members below admin are refused.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { openSameStore, useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { refusal } from "../testing/refusal";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";
import { createUser } from "../workspaces/users";
import { createWebhookEndpoint } from "../webhooks/webhook-endpoints";
import { getDefaultWebhookSecret } from "../webhooks/webhook-secrets";
import { startWebhookSender } from "../../engine/webhook-sender";
import { CLI_AUDIT } from "../audit/audit-writer";
import type { Ctx } from "../context";
import { grantCredit, readBalance } from "./credits";
import { clearLowCreditAlert, readLowCreditAlert, setLowCreditAlert, type LowCreditCtx } from "./low-credit";
import { announceLowCreditAlerts } from "./low-credit-alerts";

/** atelier/gradient at its standard size: $0.002 a run. */
const RUN = 2_000;
const gradient = () => ({ model: "atelier/gradient", input: { prompt: "low tide" } });

describe(`low-balance alert (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  const cli = (workspaceId: string): LowCreditCtx => ({ db: s.db, workspaceId, ...CLI_AUDIT });

  async function workspace(creditMicros: number) {
    const ws = await createWorkspace({ db: s.db }, { name: `low credit ${++n}`, creditMicros });
    return { ws: ws.id, ctx: testCtx(s.t, ws.id) };
  }

  const claims = (workspaceId: string) =>
    s.db
      .selectFrom("credit_alerts")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .orderBy("id")
      .execute()
      .then((rows) => rows.map((r) => [Number(r.available_micros), Number(r.threshold_micros)]));

  const eventsOf = (workspaceId: string) =>
    s.db
      .selectFrom("events")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("type", "=", "credits.low")
      .execute();

  it("fires once per crossing; releases and small grants do not re-arm it, a grant back over it does", async () => {
    const { ws, ctx } = await workspace(5 * RUN);
    const alert = await setLowCreditAlert(cli(ws), { usd: "0.007" });
    expect(alert).toEqual({ object: "low_credit_alert", threshold_usd: "0.007", available_usd: "0.01", under: false });
    const run = () => createGeneration(ctx, gradient());
    await run(); // 0.008
    expect(await claims(ws)).toEqual([]);
    const crossing = await run(); // 0.006: under
    expect(await claims(ws)).toEqual([[6_000, 7_000]]);
    await run(); // 0.004
    // A release gives back what a hold took: still under the alert that fired, not re-armed.
    await cancelGeneration(ctx, { id: crossing.generation.id }); // 0.006
    await run(); // 0.004
    // A grant that leaves available under the threshold does not re-arm it either.
    await grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: 1_000, audit: CLI_AUDIT }); // 0.005
    await run(); // 0.003
    expect(await claims(ws)).toEqual([[6_000, 7_000]]);
    expect(await readLowCreditAlert(cli(ws))).toMatchObject({ available_usd: "0.003", under: true });
    // Back to the threshold or over it by a grant: armed again; exactly at it is not under.
    await grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: 10_000, audit: CLI_AUDIT }); // 0.013
    for (let i = 0; i < 3; i++) await run(); // 0.007
    expect(await claims(ws)).toEqual([[6_000, 7_000]]);
    await run(); // 0.005
    expect(await claims(ws)).toEqual([
      [6_000, 7_000],
      [5_000, 7_000],
    ]);
    expect(await announceLowCreditAlerts(s.db)).toBe(2);
    const data = (await eventsOf(ws)).map((e) => JSON.parse(e.payload_json) as { type: string; data: unknown });
    expect(data).toEqual(
      expect.arrayContaining([
        {
          type: "credits.low",
          timestamp: expect.any(String),
          data: { available_usd: "0.006", threshold_usd: "0.007" },
        },
        {
          type: "credits.low",
          timestamp: expect.any(String),
          data: { available_usd: "0.005", threshold_usd: "0.007" },
        },
      ]),
    );
    expect(data).toHaveLength(2);
    expect(await announceLowCreditAlerts(s.db)).toBe(0);
  });

  it("a threshold set over the balance fires in the setting's transaction; set again, again; cleared, never", async () => {
    const { ws, ctx } = await workspace(10 * RUN);
    const set = await setLowCreditAlert(cli(ws), { usd: 5 });
    // The claim is there as the verb answers: written by the setting's own statement.
    expect(set).toMatchObject({ threshold_usd: "5.00", available_usd: "0.02", under: true });
    expect(await claims(ws)).toEqual([[20_000, 5_000_000]]);
    await createGeneration(ctx, gradient());
    expect(await claims(ws)).toHaveLength(1);
    // Setting it again re-arms it, and the balance is under it: a claim at once.
    await setLowCreditAlert(cli(ws), { usd: "5" });
    expect(await claims(ws)).toEqual([
      [20_000, 5_000_000],
      [18_000, 5_000_000],
    ]);
    // A lower threshold the balance is over: armed, no claim.
    expect(await setLowCreditAlert(cli(ws), { usd: "0.01" })).toMatchObject({ under: false });
    expect(await claims(ws)).toHaveLength(2);
    expect(await clearLowCreditAlert(cli(ws))).toMatchObject({ threshold_usd: null, under: false });
    for (let i = 0; i < 5; i++) await createGeneration(ctx, gradient()); // 0.008
    expect(await claims(ws)).toHaveLength(2);
    expect((await refusal(clearLowCreditAlert(cli(ws)))).code).toBe("resource_not_found");
    expect((await readBalance(s.db, ws)).availableMicros).toBe(4 * RUN);
  });

  it("concurrent holds on two connections claim once; two announcers write one event, delivered to its takers", async () => {
    const { ws, ctx } = await workspace(25 * RUN);
    await announceLowCreditAlerts(s.db); // the earlier tests' claims: the count below is this one's
    await setLowCreditAlert(cli(ws), { usd: "0.03" });
    const takesIt = await createWebhookEndpoint(ctx, { url: "https://example.com/low", event_types: ["credits.low"] });
    const takesAll = await createWebhookEndpoint(ctx, { url: "https://example.com/all", event_types: [] });
    await createWebhookEndpoint(ctx, { url: "https://example.com/runs", event_types: ["generation.succeeded"] });
    const other = openSameStore(s.t);
    try {
      const elsewhere: Ctx = { ...ctx, db: other.db };
      const creates = Array.from({ length: 20 }, (_, i) => createGeneration(i % 2 ? elsewhere : ctx, gradient()));
      const results = await Promise.allSettled(creates);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(20);
      expect(await claims(ws)).toHaveLength(1);
      const [mine, theirs] = await Promise.all([announceLowCreditAlerts(s.db), announceLowCreditAlerts(other.db)]);
      expect(mine + theirs).toBe(1);
    } finally {
      await other.close();
    }
    const [event, ...more] = await eventsOf(ws);
    expect(more).toEqual([]);
    const [claim] = await s.db.selectFrom("credit_alerts").selectAll().where("workspace_id", "=", ws).execute();
    expect(claim?.event_id).toBe(event!.id);
    // The crossing hold's statement claimed: available under 0.03 for the first time.
    expect(JSON.parse(event!.payload_json)).toMatchObject({
      data: { available_usd: "0.028", threshold_usd: "0.03" },
    });
    const deliveries = await s.db
      .selectFrom("webhook_deliveries")
      .select(["event_id", "webhook_id"])
      .where("workspace_id", "=", ws)
      .execute();
    expect(deliveries.map((d) => d.webhook_id).sort()).toEqual([takesIt.id, takesAll.id].sort());
    expect(deliveries.every((d) => d.event_id === event!.id)).toBe(true);
  });

  it("bad input is a 400 naming the field; only owners, admins and the CLI change it; every change is audited", async () => {
    const { ws } = await workspace(RUN);
    const bad: unknown[] = [
      "-1",
      "0",
      0,
      "0.000000",
      "abc",
      "NaN",
      Number.NaN,
      Number.POSITIVE_INFINITY,
      "1.0000001",
      0.1 + 0.2,
      "1e3",
      "1000000000",
      "99999999999999999999",
      1e21,
      "1\u0000",
      "\u0000",
      "",
      true,
      null,
      {},
      ["5"],
      "constructor",
      "__proto__",
      undefined,
    ];
    for (const usd of bad) {
      const err = await refusal(setLowCreditAlert(cli(ws), { usd }));
      expect([err.code, err.param], String(usd)).toEqual(["invalid_parameter", "usd"]);
    }
    // Prototype names as fields: no own `usd`, so nothing given.
    for (const input of [JSON.parse('{"__proto__": {"usd": "5"}}'), { constructor: "5" }, Object.create({ usd: "5" })])
      expect((await refusal(setLowCreditAlert(cli(ws), input as { usd?: unknown }))).param).toBe("usd");
    expect((await refusal(setLowCreditAlert(cli(ws), { usd: "0" }))).message).toContain("clear it");
    expect(await readLowCreditAlert(cli(ws))).toMatchObject({ threshold_usd: null });

    // Members below admin are refused; admins and owners may; an unknown workspace is not found.
    const as = async (role: "owner" | "admin" | "creator" | "viewer") => {
      const user = await createUser(
        { db: s.db },
        { email: `${role}-${n}@example.com`, password: "long enough", workspaceId: ws, role },
      );
      return { ...cli(ws), actor: { kind: "user" as const, id: user.id }, role };
    };
    for (const role of ["creator", "viewer"] as const) {
      const member = await as(role);
      expect((await refusal(setLowCreditAlert(member, { usd: "1" }))).code).toBe("permission_denied");
      expect((await refusal(clearLowCreditAlert(member))).code).toBe("permission_denied");
    }
    const admin = await as("admin");
    const owner = await as("owner");
    await setLowCreditAlert(admin, { usd: "2.5" });
    await setLowCreditAlert(owner, { usd: 40 });
    await clearLowCreditAlert(cli(ws));
    const unknown = { ...cli(ws), workspaceId: "ws_0000000000000000000000" };
    expect((await refusal(setLowCreditAlert(unknown, { usd: "1" }))).code).toBe("resource_not_found");
    expect((await refusal(readLowCreditAlert(unknown))).code).toBe("resource_not_found");
    // Another workspace's alert is its own.
    const { ws: otherWs } = await workspace(RUN);
    await setLowCreditAlert(cli(otherWs), { usd: "1" });
    expect(await readLowCreditAlert(cli(ws))).toMatchObject({ threshold_usd: null });

    const events = await s.db
      .selectFrom("audit_events")
      .select(["action", "actor_id", "target_id", "changes_json"])
      .where("workspace_id", "=", ws)
      .where("action", "like", "credit.low%")
      .execute();
    // Two events may share a millisecond, so their order is not asserted.
    expect(events.map((e) => [e.action, e.actor_id, e.target_id, JSON.parse(e.changes_json)])).toEqual(
      expect.arrayContaining([
        ["credit.low_threshold_set", admin.actor.id, ws, { threshold_usd: { from: null, to: "2.50" } }],
        ["credit.low_threshold_set", owner.actor.id, ws, { threshold_usd: { from: "2.50", to: "40.00" } }],
        ["credit.low_threshold_cleared", "cli", ws, { threshold_usd: { from: "40.00", to: null } }],
      ]),
    );
    expect(events).toHaveLength(3);
  });
});

describe(`low-balance alert through the webhook sender (${testDialect()})`, () => {
  const s = useTestStore();

  it("the sender's turn announces the claim and sends it signed (Standard Webhooks)", async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const ws = await createWorkspace({ db: s.db }, { name: "low credit sender", creditMicros: 3 * RUN });
    const ctx = testCtx(s.t, ws.id);
    const sender = startWebhookSender({
      db: s.db,
      dialect: s.t.store.dialect,
      services: ctx.services,
      logger: pino({ level: "silent" }),
      pollMs: 20,
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/low`;
      await createWebhookEndpoint(ctx, { url, event_types: ["credits.low"] });
      await setLowCreditAlert({ db: s.db, workspaceId: ws.id, ...CLI_AUDIT }, { usd: "0.005" });
      await createGeneration(ctx, gradient());
      await expect.poll(() => received.length, { timeout: 5_000 }).toBe(1);
      const { secret } = await getDefaultWebhookSecret(ctx);
      const [event] = await s.db.selectFrom("events").selectAll().where("workspace_id", "=", ws.id).execute();
      expect(received[0]!.headers["webhook-id"]).toBe(event!.id);
      expect(new Webhook(secret).verify(received[0]!.body, received[0]!.headers)).toMatchObject({
        type: "credits.low",
        data: { available_usd: "0.004", threshold_usd: "0.005" },
      });
    } finally {
      await sender.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
