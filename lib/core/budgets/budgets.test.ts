// Budgets against the store, on both dialects: concurrent creates never pass a cap and the
// refused hold nothing; a batch that would cross starts none; released holds give their amount
// back; counters follow the day and month a run started in; bad input is a 400 naming the field.
import { describe, expect, it } from "vitest";
import { openSameStore, useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import type { ApiError } from "../../primitives/errors";
import { refusal } from "../testing/refusal";
import { readBalance, sumLedger } from "../credits/credits";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { createBatch } from "../runs/batches";
import { finishRun } from "../../engine/finish";
import { writeList } from "../../store/writes";
import { createWorkspace } from "../workspaces/workspaces";
import { createUser } from "../workspaces/users";
import { createApiKey } from "../keys/api-keys";
import { CLI_AUDIT } from "../audit/audit-writer";
import type { Ctx } from "../context";
import { clearBudget, listBudgets, setBudget, type BudgetsCtx } from "./budgets";
import { budgetReleaseWrite, budgetSpendWrite, isPastBudget } from "./budget-spend";
import { secondsUntilReset } from "./budget-periods";

const USD = 1_000_000;
/** atelier/gradient at its standard size: $0.002 a run. */
const RUN = 2_000;
const gradient = (prompt = "budget dusk") => ({ model: "atelier/gradient", input: { prompt } });

describe(`budgets (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  const cli = (workspaceId: string): BudgetsCtx => ({ db: s.db, workspaceId, ...CLI_AUDIT });

  async function team(creditMicros = 10 * USD) {
    const ws = await createWorkspace({ db: s.db }, { name: `budgets ${++n}`, creditMicros });
    const email = `maker-${n}@example.com`;
    const member = await createUser(
      { db: s.db },
      { email, password: "long enough", workspaceId: ws.id, role: "admin" },
    );
    const key = await createApiKey({ db: s.db }, { workspaceId: ws.id, prefix: "sk_test", createdBy: member.id });
    const asKey: Ctx = { ...testCtx(s.t, ws.id), actor: { kind: "api_key", id: key.id } };
    const asMember: Ctx = { ...testCtx(s.t, ws.id), actor: { kind: "user", id: member.id }, source: "studio" };
    return { ws: ws.id, email, member, key, asKey, asMember };
  }

  async function holdsOf(workspaceId: string) {
    const rows = await s.db
      .selectFrom("credit_holds")
      .select("status")
      .where("workspace_id", "=", workspaceId)
      .execute();
    return rows.length;
  }

  async function settled(promises: Promise<unknown>[]) {
    const results = await Promise.allSettled(promises);
    const refused = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
    return { started: results.length - refused.length, refused: refused as ApiError[] };
  }

  function checkRefusals(refused: ApiError[]) {
    for (const err of refused) {
      expect(err).toMatchObject({ code: "rate_limit_exceeded" });
      expect(err.message).toContain("the workspace's daily budget of $0.05 has $0.00 left today");
      expect(Number(err.headers["Retry-After"])).toBeGreaterThan(0);
      expect(Number(err.headers["Retry-After"])).toBeLessThanOrEqual(86_400);
    }
  }

  it("50 concurrent creates against a workspace cap: never past it, and the refused hold nothing", async () => {
    const { ws, asKey } = await team();
    await setBudget(cli(ws), { daily: "0.05" });
    // Half through a second connection, as another process would send them: each its own transactions.
    const other = openSameStore(s.t);
    try {
      const elsewhere: Ctx = { ...asKey, db: other.db };
      const creates = Array.from({ length: 50 }, (_, i) => createGeneration(i % 2 ? elsewhere : asKey, gradient()));
      const { started, refused } = await settled(creates);
      expect(started).toBe(25);
      expect(refused).toHaveLength(25);
      checkRefusals(refused);
    } finally {
      await other.close();
    }
    expect(await holdsOf(ws)).toBe(25);
    const balance = await readBalance(s.db, ws);
    expect(balance.heldMicros).toBe(25 * RUN);
    expect(await sumLedger(s.db, ws)).toEqual(balance);
    const [budget] = await listBudgets(cli(ws));
    expect(budget).toMatchObject({ scope: "workspace", daily_usd: "0.05", spent_today_usd: "0.05" });
  });

  it("a key's runs count for the key, for the member who made it and for the workspace", async () => {
    const { ws, email, key, asKey, asMember } = await team();
    await setBudget(cli(ws), { member: email, monthly: "0.01" });
    await setBudget(cli(ws), { key: key.id, daily: "0.006" });
    // Concurrently through the key and in the studio: the member's $0.01 is shared by both.
    const through = [...Array.from({ length: 10 }, () => createGeneration(asKey, gradient()))];
    const studio = [...Array.from({ length: 10 }, () => createGeneration(asMember, gradient()))];
    const { started, refused } = await settled([...through, ...studio]);
    expect(started).toBe(5);
    expect(refused.every((err) => err.code === "rate_limit_exceeded")).toBe(true);
    const [member, byKey] = await listBudgets(cli(ws));
    expect([member?.scope, member?.spent_today_usd, member?.spent_this_month_usd]).toEqual(["member", null, "0.01"]);
    const keyRuns = await s.db.selectFrom("generations").select("id").where("created_by", "=", key.id).execute();
    expect(keyRuns.length).toBeLessThanOrEqual(3);
    expect(byKey).toMatchObject({
      scope: "key",
      spent_today_usd: (keyRuns.length * 0.002).toFixed(3).replace(/0$/, ""),
    });
    const monthly = await refusal(createGeneration(asMember, gradient()));
    expect(monthly.message).toBe(
      `This needs $0.002 but member ${email}'s monthly budget of $0.01 has $0.00 left this month. Nothing was started; it resets on the 1st at midnight UTC.`,
    );
    // The member's budget stays apart from another member's runs.
    await setBudget(cli(ws), { member: email, monthly: "1" });
    expect((await createGeneration(asMember, gradient())).generation.status).toBe("queued");
  });

  it("a batch that would cross a cap starts none of its runs; one that fits starts all", async () => {
    const { ws, asKey } = await team();
    await setBudget(cli(ws), { key: asKey.actor.id, daily: "0.01" });
    const over = await refusal(createBatch(asKey, { requests: Array.from({ length: 6 }, () => gradient()) }));
    expect(over.code).toBe("rate_limit_exceeded");
    expect(over.message).toContain("These 6 runs need $0.012");
    expect(await holdsOf(ws)).toBe(0);
    expect(await s.db.selectFrom("batches").select("id").where("workspace_id", "=", ws).execute()).toEqual([]);
    const fits = await createBatch(asKey, { requests: Array.from({ length: 5 }, () => gradient()) });
    expect(fits.batch.data).toHaveLength(5);
    // Concurrent batches of 3 against what is left of a fresh cap: at most the cap, whole batches only.
    await clearBudget(cli(ws), { key: asKey.actor.id });
    await setBudget(cli(ws), { daily: "0.03" });
    const batches = Array.from({ length: 8 }, () =>
      createBatch(asKey, { requests: [gradient(), gradient(), gradient()] }),
    );
    const { started } = await settled(batches);
    // $0.01 already spent today: $0.02 left, three batches of $0.006.
    expect(started).toBe(3);
    expect((await readBalance(s.db, ws)).heldMicros).toBe(14 * RUN);
  });

  it("a canceled or failed run gives its amount back; a succeeded one keeps it", async () => {
    const { ws, asKey } = await team();
    await setBudget(cli(ws), { daily: "0.004", monthly: "0.1" });
    const first = await createGeneration(asKey, gradient());
    const second = await createGeneration(asKey, gradient());
    expect((await refusal(createGeneration(asKey, gradient()))).code).toBe("rate_limit_exceeded");
    await cancelGeneration(asKey, { id: first.generation.id });
    const third = await createGeneration(asKey, gradient());
    expect((await refusal(createGeneration(asKey, gradient()))).code).toBe("rate_limit_exceeded");
    // A failure, as a worker ends it.
    await s.db
      .updateTable("generations")
      .set({ status: "running", lease_owner: "w", lease_expires_at: new Date(Date.now() + 60_000).toISOString() })
      .where("id", "in", [second.generation.id, third.generation.id])
      .execute();
    await finishRun(s.db, asKey.services, {
      id: second.generation.id,
      owner: "w",
      outcome: { status: "failed", message: "x" },
    });
    expect((await listBudgets(cli(ws)))[0]).toMatchObject({ spent_today_usd: "0.002" });
    const blob = await asKey.services.blobs.put(Buffer.from("png"));
    const outputs = [{ type: "image" as const, blob, content_type: "image/png", bytes: 3, width: 1, height: 1 }];
    await finishRun(s.db, asKey.services, {
      id: third.generation.id,
      owner: "w",
      outcome: { status: "succeeded", outputs },
    });
    const [budget] = await listBudgets(cli(ws));
    expect(budget).toMatchObject({ spent_today_usd: "0.002", spent_this_month_usd: "0.002" });
    await createGeneration(asKey, gradient());
    expect((await refusal(createGeneration(asKey, gradient()))).code).toBe("rate_limit_exceeded");
  });

  it("a cap set mid-period counts the runs already started; 0 means nothing may be spent", async () => {
    const { ws, asKey } = await team();
    for (let i = 0; i < 3; i++) await createGeneration(asKey, gradient());
    const budget = await setBudget(cli(ws), { daily: "0.008" });
    expect(budget).toMatchObject({ daily_usd: "0.008", monthly_usd: null, spent_today_usd: "0.006" });
    await createGeneration(asKey, gradient());
    expect((await refusal(createGeneration(asKey, gradient()))).code).toBe("rate_limit_exceeded");
    // A cap below what is spent is kept; it refuses more, and gives back what is released.
    await setBudget(cli(ws), { daily: "0" });
    const zero = await refusal(createGeneration(asKey, gradient()));
    expect(zero.message).toContain("daily budget of $0.00 has $0.00 left today");
    // Clearing the daily cap lifts it.
    expect((await clearBudget(cli(ws), { daily: true })).left).toBeNull();
    expect((await createGeneration(asKey, gradient())).generation.status).toBe("queued");
  });

  it("counts each run in the day and month it started, across midnight and month ends", async () => {
    const { ws, key } = await team();
    const jan31 = new Date("2026-01-31T23:59:59.500Z");
    await setBudget(cli(ws), { key: key.id, daily: "0.004", monthly: "0.005" }, { now: jan31 });
    const spend = (at: string, amountMicros: number) =>
      writeList(s.db, [budgetSpendWrite(s.db, { workspaceId: ws, creatorId: key.id, amountMicros, at })]);
    await spend(jan31.toISOString(), 3_000);
    const past = await spend("2026-01-31T23:59:59.900Z", 2_000).catch((e: unknown) => e);
    expect(isPastBudget(past)).toBe(true);
    // The next day and month start empty.
    await spend("2026-02-01T00:00:00.000Z", 4_000);
    expect((await listBudgets(cli(ws), { now: new Date("2026-02-01T12:00:00Z") }))[0]).toMatchObject({
      spent_today_usd: "0.004",
      spent_this_month_usd: "0.004",
    });
    // The January run released in February gives back January's counters, not February's.
    await writeList(s.db, [
      budgetReleaseWrite(s.db, { workspaceId: ws, creatorId: key.id, amountMicros: 3_000, at: jan31.toISOString() }),
    ]);
    expect((await listBudgets(cli(ws), { now: jan31 }))[0]).toMatchObject({
      spent_today_usd: "0.00",
      spent_this_month_usd: "0.00",
    });
    expect((await listBudgets(cli(ws), { now: new Date("2026-02-01T12:00:00Z") }))[0]).toMatchObject({
      spent_today_usd: "0.004",
    });
    expect(secondsUntilReset("day", jan31)).toBe(1);
    expect(secondsUntilReset("month", new Date("2026-02-28T00:00:00Z"))).toBe(86_400);
  });

  it("bad input is a 400 naming the field, never a 500; every change is audited", async () => {
    const a = await team();
    const b = await team();
    const bad: [Record<string, unknown>, string][] = [
      [{ daily: "-1" }, "daily"],
      [{ daily: "abc" }, "daily"],
      [{ daily: "NaN" }, "daily"],
      [{ daily: Number.NaN }, "daily"],
      [{ monthly: Number.POSITIVE_INFINITY }, "monthly"],
      [{ daily: "1.0000001" }, "daily"],
      [{ daily: "1e3" }, "daily"],
      [{ monthly: "1000000000" }, "monthly"],
      [{ monthly: "99999999999999999999" }, "monthly"],
      [{ daily: "1\u0000" }, "daily"],
      [{ daily: true }, "daily"],
      [{}, "daily"],
      [{ daily: "1", member: "nobody@example.com" }, "member"],
      [{ daily: "1", member: `${a.email}\u0000` }, "member"],
      [{ daily: "1", member: b.email }, "member"],
      [{ daily: "1", key: b.key.id }, "key"],
      [{ daily: "1", key: "key_unknown" }, "key"],
      [{ daily: "1", key: "key_\u0000" }, "key"],
      [{ daily: "1", key: 42 }, "key"],
      [{ daily: "1", key: a.key.id, member: a.email }, "key"],
    ];
    for (const [input, param] of bad) {
      const err = await refusal(setBudget(cli(a.ws), input));
      expect([err.code, err.param], JSON.stringify(input)).toEqual(["invalid_parameter", param]);
    }
    expect(await listBudgets(cli(a.ws))).toEqual([]);
    expect((await refusal(clearBudget(cli(a.ws), { key: a.key.id }))).code).toBe("resource_not_found");
    // A creator sets no budget.
    const creator = { ...cli(a.ws), actor: { kind: "user" as const, id: a.member.id }, role: "creator" as const };
    expect((await refusal(setBudget(creator, { daily: "1" }))).code).toBe("permission_denied");
    await setBudget(cli(a.ws), { key: a.key.id, daily: "2.5" });
    await setBudget(cli(a.ws), { key: a.key.id, monthly: 40 });
    await clearBudget(cli(a.ws), { key: a.key.id });
    const events = await s.db
      .selectFrom("audit_events")
      .select(["action", "target_id", "changes_json"])
      .where("workspace_id", "=", a.ws)
      .where("action", "like", "budget.%")
      .execute();
    // Two events may share a millisecond, so their order is not asserted.
    expect(events).toHaveLength(3);
    expect(events.map((e) => [e.action, e.target_id, JSON.parse(e.changes_json)])).toEqual(
      expect.arrayContaining([
        [
          "budget.set",
          a.key.id,
          { scope: "key", daily_usd: { from: null, to: "2.50" }, monthly_usd: { from: null, to: null } },
        ],
        [
          "budget.set",
          a.key.id,
          { scope: "key", daily_usd: { from: "2.50", to: "2.50" }, monthly_usd: { from: null, to: "40.00" } },
        ],
        [
          "budget.cleared",
          a.key.id,
          { scope: "key", daily_usd: { from: "2.50", to: null }, monthly_usd: { from: "40.00", to: null } },
        ],
      ]),
    );
  });
});
