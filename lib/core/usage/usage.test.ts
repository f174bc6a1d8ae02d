// GET /v1/usage's verb on both stores: a mixed load of runs (keys, members, sources, models, days,
// every end) read back in each grouping, and the identity it rests on: what it says was charged
// is exactly what the ledger charged for the runs created in the range.
import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { finishRun } from "../../engine/finish";
import { parseUsd } from "../../primitives/money";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { Ctx, Source } from "../context";
import { sumLedger } from "../credits/credits";
import { createApiKey } from "../keys/api-keys";
import { createBatch } from "../runs/batches";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { quoteRun } from "../runs/quotes";
import { refusal } from "../testing/refusal";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";
import { usageCsv } from "./usage-csv";
import { getUsage } from "./usage";
import { getDailyUsage } from "./usage-daily";
import { getDailyUsageForOps, getUsageForOps } from "./usage-ops";
import { opsPrincipal } from "../ops/ops-principal";
import type { UsageGroup } from "./usage-shape";

type End = "succeeded" | "failed" | "canceled" | "queued";
interface Done {
  day: string;
  model: string;
  key: string | null;
  member: string | null;
  source: Source;
  end: End;
  micros: number;
}

const gradient = (prompt: string, extra: Record<string, unknown> = {}) => ({
  model: "atelier/gradient",
  input: { prompt, ...extra },
});
const artwork = (prompt: string) => ({ model: "atelier/artwork", input: { prompt } });

describe(`usage (${testDialect()})`, () => {
  const s = useTestStore();
  afterEach(() => {
    vi.useRealTimers();
  });
  let n = 0;

  /** A workspace with two members, a key one of them made and a key the CLI made; `reader` reads as the CLI's key. */
  async function team() {
    const ws = await createWorkspace({ db: s.db }, { name: `usage ${++n}`, creditMicros: 10_000_000 });
    const base = testCtx(s.t, ws.id);
    const alice = await createUser({ db: s.db }, { email: `alice-${n}@example.com`, password: "long enough", workspaceId: ws.id, role: "admin" }); // prettier-ignore
    const bob = await createUser({ db: s.db }, { email: `bob-${n}@example.com`, password: "long enough", workspaceId: ws.id, role: "creator" }); // prettier-ignore
    const alicesKey = await createApiKey({ db: s.db }, { workspaceId: ws.id, prefix: "at", name: "alice, \"ci\"", createdBy: alice.id }); // prettier-ignore
    const cliKey = await createApiKey({ db: s.db }, { workspaceId: ws.id, prefix: "at", name: "=cli" });
    const studio = (id: string, role: "admin" | "creator"): Ctx => ({
      ...base,
      actor: { kind: "user", id },
      role,
      source: "studio",
    });
    return {
      ws,
      alice,
      bob,
      alicesKey,
      cliKey,
      reader: base,
      actors: {
        alice: studio(alice.id, "admin"),
        bob: studio(bob.id, "creator"),
        alicesKey: { ...base, actor: { kind: "api_key", id: alicesKey.id }, role: "admin", source: "api" } as Ctx,
        cliKey: { ...base, actor: { kind: "api_key", id: cliKey.id }, source: "mcp" } as Ctx,
      },
    };
  }

  async function end(ctx: Ctx, id: string, how: End): Promise<void> {
    if (how === "queued") return;
    if (how === "canceled") {
      await cancelGeneration(ctx, { id });
      return;
    }
    const owner = "usage-test";
    await s.db
      .updateTable("generations")
      .set({
        status: "running",
        provider: "atelier",
        started_at: new Date().toISOString(),
        lease_owner: owner,
        lease_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        attempts: 1,
      })
      .where("id", "=", id)
      .execute();
    const outcome =
      how === "succeeded"
        ? { status: "succeeded" as const, outputs: [] }
        : { status: "failed" as const, message: "it broke" };
    expect(await finishRun(s.db, ctx.services, { id, owner, outcome })).toMatchObject({ status: how });
  }

  /** The runs of a team over three days (one created a moment before midnight and ended after it). */
  async function mixedLoad(t: Awaited<ReturnType<typeof team>>): Promise<Done[]> {
    vi.useFakeTimers({ toFake: ["Date"] });
    const done: Done[] = [];
    const who = (name: keyof typeof t.actors) =>
      name === "alice" || name === "bob"
        ? { key: null, member: (name === "alice" ? t.alice : t.bob).id }
        : name === "alicesKey"
          ? { key: t.alicesKey.id, member: t.alice.id }
          : { key: t.cliKey.id, member: null };
    const plan: Array<[string, keyof typeof t.actors, ReturnType<typeof gradient>, End]> = [
      ["2026-03-01T08:00:00.000Z", "alice", gradient("a", { num_images: 2 }), "succeeded"],
      ["2026-03-01T09:00:00.000Z", "bob", artwork("b"), "succeeded"],
      ["2026-03-01T10:00:00.000Z", "alicesKey", gradient("c"), "failed"],
      ["2026-03-01T11:00:00.000Z", "cliKey", artwork("d"), "canceled"],
      ["2026-03-02T00:00:00.000Z", "cliKey", gradient("e", { resolution: "hd" }), "succeeded"],
      ["2026-03-02T12:00:00.000Z", "bob", gradient("f"), "queued"],
      ["2026-03-02T23:59:59.999Z", "alicesKey", artwork("g"), "succeeded"],
      ["2026-03-04T06:00:00.000Z", "alice", artwork("h"), "failed"],
      ["2026-03-04T07:00:00.000Z", "alicesKey", gradient("i", { num_images: 3 }), "succeeded"],
    ];
    for (const [at, actor, body, how] of plan) {
      vi.setSystemTime(new Date(at));
      const ctx = t.actors[actor];
      const { generation } = await createGeneration(ctx, body);
      // The one before midnight ends the next day: it still counts on the day it started.
      if (at.endsWith("23:59:59.999Z")) vi.setSystemTime(new Date("2026-03-03T00:00:01.000Z"));
      await end(ctx, generation.id, how);
      const price = parseUsd((await quoteRun(ctx, body)).quote.cost_usd)!;
      done.push({
        day: at.slice(0, 10),
        model: body.model,
        source: ctx.source,
        end: how,
        micros: price,
        ...who(actor),
      });
    }
    // A batch from the CLI's key on the last day: two runs, one succeeds.
    vi.setSystemTime(new Date("2026-03-04T12:00:00.000Z"));
    const batch = await createBatch(t.actors.cliKey, { requests: [gradient("j"), artwork("k")] });
    await end(t.actors.cliKey, batch.batch.data[0]!.id, "succeeded");
    await end(t.actors.cliKey, batch.batch.data[1]!.id, "canceled");
    for (const [i, body] of [gradient("j"), artwork("k")].entries()) {
      const price = parseUsd((await quoteRun(t.actors.cliKey, body)).quote.cost_usd)!;
      done.push({ day: "2026-03-04", model: body.model, source: "mcp", end: i === 0 ? "succeeded" : "canceled", micros: price, ...who("cliKey") }); // prettier-ignore
    }
    vi.useRealTimers();
    return done;
  }

  /** What the answer's rows should be, from what the test did. */
  function expected(done: Done[], groupBy: UsageGroup) {
    const groups = new Map<string | null, { runs: number; succeeded: number; failed: number; canceled: number; micros: number }>(); // prettier-ignore
    for (const d of done) {
      const id = d[groupBy];
      const g = groups.get(id) ?? { runs: 0, succeeded: 0, failed: 0, canceled: 0, micros: 0 };
      g.runs++;
      if (d.end !== "queued") g[d.end]++;
      if (d.end === "succeeded") g.micros += d.micros;
      groups.set(id, g);
    }
    return groups;
  }

  /** The ledger's charges for the workspace's runs created in the range, read on their own. */
  async function ledgerCharges(workspaceId: string, from: string, to: string): Promise<number> {
    const row = await s.db
      .selectFrom("ledger_entries as l")
      .innerJoin("generations as g", "g.hold_id", "l.hold_id")
      .select(sql<number | string | null>`sum(l.amount_micros)`.as("total"))
      .where("l.workspace_id", "=", workspaceId)
      .where("l.kind", "=", "charge")
      .where("g.created_at", ">=", `${from}T00:00:00.000Z`)
      .where("g.created_at", "<=", `${to}T23:59:59.999Z`)
      .executeTakeFirstOrThrow();
    return Number(row.total ?? 0);
  }

  it("adds up a mixed load in every grouping, and its charges are exactly the ledger's", async () => {
    const t = await team();
    const other = await team();
    const done = await mixedLoad(t);
    await mixedLoad(other);
    const range = { from: "2026-03-01", to: "2026-03-04" };

    for (const groupBy of ["day", "model", "key", "member", "source"] as const) {
      const usage = await getUsage(t.reader, { ...range, group_by: groupBy });
      expect(usage).toMatchObject({ object: "usage", ...range, group_by: groupBy });
      const want = expected(done, groupBy);
      expect(usage.data.map((r) => (r as Record<string, unknown>)[groupBy])).toHaveLength(want.size);
      for (const r of usage.data) {
        const w = want.get((r as Record<string, unknown>)[groupBy] as string | null)!;
        expect(w, `${groupBy} ${JSON.stringify(r)}`).toBeDefined();
        expect(r).toMatchObject({ runs: w.runs, succeeded: w.succeeded, failed: w.failed, canceled: w.canceled });
        expect(parseUsd(r.cost_usd)).toBe(w.micros);
      }
      // The identity: every charge of the ledger (all the runs are in the range), and no other.
      expect(usage.total.runs).toBe(done.length);
      expect(parseUsd(usage.total.cost_usd)).toBe((await sumLedger(s.db, t.ws.id)).chargedMicros);
      expect(parseUsd(usage.total.cost_usd)).toBe(await ledgerCharges(t.ws.id, range.from, range.to));
    }

    // Days in order, only those with runs; a day holds its first and last millisecond, and the run that
    // ended after midnight counts on the day it started.
    const byDay = await getUsage(t.reader, range);
    expect(byDay.data.map((r) => (r as { day: string }).day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-04"]);
    const secondDay = await getUsage(t.reader, { from: "2026-03-02", to: "2026-03-02" });
    expect(parseUsd(secondDay.total.cost_usd)).toBe(await ledgerCharges(t.ws.id, "2026-03-02", "2026-03-02"));
    expect(secondDay.total.runs).toBe(3);

    // Others by cost, most first; the names come along; keys' runs count for the member who made the key.
    const byKey = await getUsage(t.reader, { ...range, group_by: "key" });
    const costs = byKey.data.map((r) => parseUsd(r.cost_usd)!);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    expect(byKey.data).toContainEqual(expect.objectContaining({ key: t.alicesKey.id, name: 'alice, "ci"' }));
    expect(byKey.data).toContainEqual(expect.objectContaining({ key: null, name: null, runs: 4 }));
    const byMember = await getUsage(t.reader, { ...range, group_by: "member" });
    expect(byMember.data).toContainEqual(
      expect.objectContaining({ member: t.alice.id, email: t.alice.email, runs: 5 }),
    );
    expect(byMember.data).toContainEqual(expect.objectContaining({ member: null, email: null, runs: 4 }));

    // The model filter: every version without @, and the identity within it.
    const gradients = await getUsage(t.reader, { ...range, group_by: "source", model: "atelier/gradient" });
    const gradientDone = done.filter((d) => d.model === "atelier/gradient");
    expect(gradients.total.runs).toBe(gradientDone.length);
    expect(parseUsd(gradients.total.cost_usd)).toBe(
      gradientDone.filter((d) => d.end === "succeeded").reduce((sum, d) => sum + d.micros, 0),
    );
    expect((await getUsage(t.reader, { ...range, model: "atelier/none" })).data).toEqual([]);

    // CSV: the same rows, a header first, quoted where needed, the formula-like name defused.
    const csv = usageCsv(byKey).split("\r\n");
    expect(csv[0]).toBe("key,name,runs,succeeded,failed,canceled,cost_usd");
    expect(csv).toHaveLength(byKey.data.length + 2);
    expect(csv).toContain(`${t.alicesKey.id},"alice, ""ci""",3,2,1,0,${byKey.data.find((r) => "key" in r && r.key === t.alicesKey.id)!.cost_usd}`); // prettier-ignore
    expect(csv.some((line) => line.startsWith(`${t.cliKey.id},'=cli,`))).toBe(true);
  });

  it("splits the same runs per day and model for the charts; ops read one workspace or all", async () => {
    const t = await team();
    const other = await team();
    const done = await mixedLoad(t);
    await mixedLoad(other);
    const range = { from: "2026-03-01", to: "2026-03-04" };
    const daily = await getDailyUsage(t.reader, range);
    const want = new Map<string, { runs: number; failed: number; micros: number }>();
    for (const d of done) {
      const w = want.get(`${d.day} ${d.model}`) ?? { runs: 0, failed: 0, micros: 0 };
      w.runs++;
      if (d.end === "failed") w.failed++;
      if (d.end === "succeeded") w.micros += d.micros;
      want.set(`${d.day} ${d.model}`, w);
    }
    expect(daily.data.map((r) => `${r.day} ${r.model}`)).toEqual([...want.keys()].sort());
    for (const r of daily.data) {
      const w = want.get(`${r.day} ${r.model}`)!;
      expect(r).toMatchObject({ runs: w.runs, failed: w.failed, costMicros: w.micros });
    }
    const usage = await getUsage(t.reader, range);
    expect(daily.total).toEqual({ runs: usage.total.runs, costMicros: parseUsd(usage.total.cost_usd) });
    expect(daily.total.costMicros).toBe(await ledgerCharges(t.ws.id, range.from, range.to));
    for (const role of ["creator", "viewer"] as const)
      expect((await refusal(getDailyUsage({ ...t.actors.bob, role }, range))).code).toBe("permission_denied");
    expect((await refusal(getDailyUsage(t.reader, { from: "2026-03-05", to: "2026-03-04" }))).param).toBe("from");

    // Ops: one workspace reads as its own admins read it; all of them add up every workspace's.
    const operator = await createUser({ db: s.db }, { email: `ops-${n}@example.com`, password: "long enough", workspaceId: t.ws.id, role: "viewer", ops: true }); // prettier-ignore
    const ops = await opsPrincipal(s.db, operator.id);
    expect(await getDailyUsageForOps(ops, { ...range, workspace: other.ws.id })).toEqual(
      await getDailyUsage(other.reader, range),
    );
    expect(await getUsageForOps(ops, { ...range, group_by: "key", workspace: t.ws.id })).toEqual(
      await getUsage(t.reader, { ...range, group_by: "key" }),
    );
    const all = await getDailyUsageForOps(ops, range);
    const workspaces = await s.db.selectFrom("workspaces").select("id").execute();
    let runs = 0;
    for (const w of workspaces) runs += (await getUsageForOps(ops, { ...range, workspace: w.id })).total.runs;
    expect(all.total.runs).toBe(runs);
    expect(all.total.runs).toBeGreaterThanOrEqual(2 * done.length);
    const members = await getUsageForOps(ops, { ...range, group_by: "member" });
    expect(members.data).toContainEqual(expect.objectContaining({ member: other.alice.id, email: other.alice.email }));
    for (const workspace of ["constructor", "ws_\u0000", "install", t.alicesKey.id])
      expect((await refusal(getUsageForOps(ops, { ...range, workspace }))).param).toBe("workspace");
  });

  it("shows another workspace nothing, and spend to owners, admins and the CLI's keys only", async () => {
    const t = await team();
    const other = await team();
    await mixedLoad(other);
    const range = { from: "2026-03-01", to: "2026-03-04" };
    expect(await getUsage(t.reader, range)).toMatchObject({ data: [], total: { runs: 0, cost_usd: "0.00" } });
    expect((await getUsage(t.actors.alice, range)).total.runs).toBe(0);
    for (const role of ["creator", "viewer"] as const) {
      const denied = await refusal(getUsage({ ...t.actors.bob, role }, range));
      expect(denied.code).toBe("permission_denied");
    }
    const keyOfCreator = { ...t.actors.alicesKey, role: "creator" as const };
    expect((await refusal(getUsage(keyOfCreator, range))).message).toContain("The member who made this API key");
    expect((await refusal(getUsage({ ...t.reader, scopes: ["generations:read"] }, range))).code).toBe(
      "permission_denied",
    );
  });

  it("defaults to the last 30 days, and refuses bad input with a 400 naming the field", async () => {
    const t = await team();
    const now = new Date("2026-03-04T15:00:00.000Z");
    expect(await getUsage(t.reader, {}, now)).toMatchObject({ from: "2026-02-03", to: "2026-03-04", group_by: "day" });
    expect(await getUsage(t.reader, { from: "2025-03-03", to: "2026-03-04" })).toMatchObject({ from: "2025-03-03" });
    const bad: Array<[Record<string, string>, string]> = [
      [{ from: "2026-03-05", to: "2026-03-04" }, "from"],
      [{ from: "2025-03-02", to: "2026-03-04" }, "to"],
      [{ from: "2024-01-01" }, "from"],
      [{ group_by: "week" }, "group_by"],
      [{ group_by: "constructor" }, "group_by"],
      [{ group_by: "__proto__" }, "group_by"],
      [{ group_by: "toString" }, "group_by"],
      [{ group_by: "day\u0000" }, "group_by"],
      [{ group_by: "x".repeat(100_000) }, "group_by"],
      [{ from: "2026-02-30" }, "from"],
      [{ from: "2026-3-1" }, "from"],
      [{ to: "20260301" }, "to"],
      [{ to: "2026-03-01T00:00:00Z" }, "to"],
      [{ to: "0000-01-01" }, "to"],
      [{ to: "2026-03-01\u0000" }, "to"],
      [{ from: "constructor" }, "from"],
      [{ from: "9".repeat(100_000) }, "from"],
      [{ model: "constructor" }, "model"],
      [{ model: "atelier/gradient\u0000" }, "model"],
      [{ model: `atelier/${"x".repeat(100_000)}` }, "model"],
    ];
    for (const [query, param] of bad) {
      const err = await refusal(getUsage(t.reader, query, now));
      expect(err, JSON.stringify(query).slice(0, 80)).toMatchObject({ code: "invalid_parameter", param });
      expect(err.message.length).toBeLessThan(300);
      expect(err.message).not.toContain("\u0000");
    }
  });
});
