// The ops margins on both stores: runs of several workspaces over a few days, some with a provider
// cost, some without, read back per model and provider; the charges are exactly the ledger's for
// the runs created in the range, the margin counts only runs whose cost is known, the range is
// checked as usage's is, and nobody but an operator reaches it.
import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { finishRun } from "../../engine/finish";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { Ctx, SystemCtx } from "../context";
import { cancelGeneration, createGeneration } from "../runs/generations";
import { refusal } from "../testing/refusal";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";
import { opsMargins } from "./margins";
import { opsPrincipal, type OpsCtx } from "./ops-principal";

/**
 * Never called: what must not compile. A workspace's context, or a bare { db }, is no operator:
 * `tsc --noEmit` fails on an expect-error line that compiles.
 */
export function withoutThePrincipal(system: SystemCtx, studio: Ctx): void {
  // @ts-expect-error a bare { db } is no principal
  void opsMargins(system, {});
  // @ts-expect-error nor is a signed-in member's Ctx, though it has a db
  void opsMargins(studio, {});
}

type End = { status: "succeeded"; cost: number | null } | { status: "failed" | "canceled" | "queued" };

describe(`ops margins (${testDialect()})`, () => {
  const s = useTestStore();
  afterEach(() => {
    vi.useRealTimers();
  });

  async function operator(): Promise<OpsCtx> {
    const home = await createWorkspace({ db: s.db }, { name: "operators" });
    const user = await createUser(
      { db: s.db },
      { email: `ops-${Math.random()}@example.com`, password: "long enough", workspaceId: home.id, role: "owner", ops: true }, // prettier-ignore
    );
    return opsPrincipal(s.db, user.id);
  }

  /** Creates a run at `at` and ends it as a worker would, with `provider` and, when it succeeds, its cost. */
  async function runAt(ctx: Ctx, at: string, model: string, provider: string, end: End): Promise<string> {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(at));
    const { generation } = await createGeneration(ctx, { model, input: { prompt: `run at ${at}` } });
    if (end.status === "canceled") await cancelGeneration(ctx, { id: generation.id });
    if (end.status === "succeeded" || end.status === "failed") {
      const owner = "margins-test";
      await s.db
        .updateTable("generations")
        .set({ status: "running", provider, started_at: at, lease_owner: owner, attempts: 1 })
        .where("id", "=", generation.id)
        .execute();
      const outcome =
        end.status === "succeeded"
          ? { status: "succeeded" as const, outputs: [], providerCostMicros: end.cost }
          : { status: "failed" as const, message: "it broke" };
      expect(await finishRun(s.db, ctx.services, { id: generation.id, owner, outcome })).toMatchObject({
        status: end.status,
      });
    }
    vi.useRealTimers();
    return generation.id;
  }

  /** The ledger's charges for the runs created in the range, per model and provider, read on their own. */
  async function ledgerCharges(from: string, to: string): Promise<Map<string, number>> {
    const rows = await s.db
      .selectFrom("ledger_entries as l")
      .innerJoin("generations as g", "g.hold_id", "l.hold_id")
      .select(["g.model", "g.provider", sql<number | string>`sum(l.amount_micros)`.as("total")])
      .where("l.kind", "=", "charge")
      .where("g.created_at", ">=", `${from}T00:00:00.000Z`)
      .where("g.created_at", "<=", `${to}T23:59:59.999Z`)
      .groupBy(["g.model", "g.provider"])
      .execute();
    return new Map(rows.map((r) => [`${r.model} ${r.provider}`, Number(r.total)]));
  }

  it("adds up runs per model and provider: charges as the ledger's, costs where known, the margin over those", async () => {
    const ops = await operator();
    const a = testCtx(s.t, (await createWorkspace({ db: s.db }, { name: "alpha", creditMicros: 10_000_000 })).id);
    const b = testCtx(s.t, (await createWorkspace({ db: s.db }, { name: "beta", creditMicros: 10_000_000 })).id);
    const price = async (model: string) =>
      Number(
        (
          await s.db
            .selectFrom("generations")
            .select("price_micros")
            .where("model", "=", model)
            .executeTakeFirstOrThrow()
        ).price_micros,
      );
    // Gradient stands in for a remote entry of provider "rep" with a cost; artwork is a built-in without.
    await runAt(a, "2026-04-01T08:00:00.000Z", "atelier/gradient", "rep", { status: "succeeded", cost: 1_000 });
    await runAt(b, "2026-04-01T09:00:00.000Z", "atelier/gradient", "rep", { status: "succeeded", cost: 500 });
    await runAt(a, "2026-04-02T10:00:00.000Z", "atelier/gradient", "rep", { status: "succeeded", cost: null });
    await runAt(a, "2026-04-02T11:00:00.000Z", "atelier/gradient", "rep", { status: "failed" });
    await runAt(b, "2026-04-02T12:00:00.000Z", "atelier/artwork", "atelier", { status: "succeeded", cost: null });
    await runAt(b, "2026-04-02T13:00:00.000Z", "atelier/artwork", "atelier", { status: "canceled" });
    await runAt(a, "2026-04-03T23:59:59.999Z", "atelier/artwork", "atelier", { status: "queued" });
    // Outside the range: counted in neither.
    await runAt(a, "2026-03-31T23:59:59.999Z", "atelier/gradient", "rep", { status: "succeeded", cost: 9_999 });
    await runAt(b, "2026-04-04T00:00:00.000Z", "atelier/gradient", "rep", { status: "succeeded", cost: 9_999 });
    const gradient = await price("atelier/gradient");
    const artwork = await price("atelier/artwork");

    const margins = await opsMargins(ops, { from: "2026-04-01", to: "2026-04-03" });
    expect(margins).toMatchObject({ from: "2026-04-01", to: "2026-04-03" });
    const gradientMargin = 2 * gradient - 1_500;
    expect(margins.data).toEqual(
      [
        {
          model: "atelier/gradient",
          provider: "rep",
          runs: 4,
          succeeded: 3,
          chargedMicros: 3 * gradient,
          costedRuns: 2,
          costMicros: 1_500,
          costedChargedMicros: 2 * gradient,
          marginMicros: gradientMargin,
          marginPercent: Math.round((1000 * gradientMargin) / (2 * gradient)) / 10,
        },
        {
          // The canceled and the queued run never started: they count for the entry's provider, "atelier".
          model: "atelier/artwork",
          provider: "atelier",
          runs: 3,
          succeeded: 1,
          chargedMicros: artwork,
          costedRuns: 0,
          costMicros: 0,
          costedChargedMicros: 0,
          marginMicros: null,
          marginPercent: null,
        },
      ].sort((x, y) => y.chargedMicros - x.chargedMicros),
    );
    expect(margins.total).toEqual({
      runs: 7,
      succeeded: 4,
      chargedMicros: 3 * gradient + artwork,
      costedRuns: 2,
      costMicros: 1_500,
      costedChargedMicros: 2 * gradient,
      marginMicros: gradientMargin,
      marginPercent: Math.round((1000 * gradientMargin) / (2 * gradient)) / 10,
    });
    // What the margins say was charged is what the ledger charged, row by row and in all.
    const ledger = await ledgerCharges("2026-04-01", "2026-04-03");
    for (const row of margins.data) expect(row.chargedMicros).toBe(ledger.get(`${row.model} ${row.provider}`) ?? 0);
    expect(margins.total.chargedMicros).toBe([...ledger.values()].reduce((x, y) => x + y, 0));

    // A cost above the charge is a loss, told as one.
    const lossy = await opsMargins(ops, { from: "2026-03-31", to: "2026-03-31" });
    expect(lossy.data).toEqual([expect.objectContaining({ model: "atelier/gradient", marginMicros: gradient - 9_999 })]); // prettier-ignore
    expect(lossy.total.marginPercent).toBeLessThan(0);
    // One model only; a day with no runs.
    expect((await opsMargins(ops, { from: "2026-04-01", to: "2026-04-03", model: "atelier/artwork" })).data).toHaveLength(1); // prettier-ignore
    expect(await opsMargins(ops, { from: "2026-05-01", to: "2026-05-01" })).toMatchObject({
      data: [],
      total: { runs: 0, chargedMicros: 0, costedRuns: 0, marginMicros: null, marginPercent: null },
    });
  });

  it("checks the range as usage does: a bad day, a reversed or too long range, a bad model is a 400 naming it", async () => {
    const ops = await operator();
    for (const [query, param] of [
      [{ from: "2026-13-01" }, "from"],
      [{ from: "2026-04-01\u0000" }, "from"],
      [{ to: "constructor" }, "to"],
      [{ from: "2026-04-02", to: "2026-04-01" }, "from"],
      [{ from: "2020-01-01", to: "2026-01-01" }, "to"],
      [{ from: "2026-04-01", to: "2026-04-02", model: "Not A Model" }, "model"],
      [{ model: "x".repeat(5_000) }, "model"],
    ] as const) {
      expect(await refusal(opsMargins(ops, query))).toMatchObject({ code: "invalid_parameter", param });
    }
  });

  it("is for operators only: a member of any role has no principal to read it with", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "not ops" });
    for (const role of ["owner", "admin", "creator", "viewer"] as const) {
      const user = await createUser(
        { db: s.db },
        { email: `${role}-${Math.random()}@example.com`, password: "long enough", workspaceId: ws.id, role },
      );
      expect(await refusal(opsPrincipal(s.db, user.id))).toMatchObject({ code: "resource_not_found" });
    }
  });
});
