// The studio banner's warnings, on both stores: a budget at 80 % of its cap warns, at 100 % it is
// the first and most urgent; readers below admin and other workspaces see none of it.
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createGeneration } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";
import { setBudget } from "./budgets";
import { spendWarnings } from "./spend-warnings";
import { setLowCreditAlert } from "../credits/low-credit";

describe(`spend warnings (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  const gradient = { model: "atelier/gradient", input: { prompt: "warn" } };

  async function workspace() {
    const ws = await createWorkspace({ db: s.db }, { name: `spend warnings ${++n}`, creditMicros: 10_000_000 });
    return ws.id;
  }

  it("warns at 80 % of a cap and puts a spent cap first; nothing under 80 %", async () => {
    const ws = await workspace();
    await setBudget({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { daily: "0.004", monthly: "0.0025" });
    const ctx = testCtx(s.t, ws);
    expect(await spendWarnings(ctx)).toEqual([]);
    await createGeneration(ctx, gradient);
    expect(await spendWarnings(ctx)).toEqual([
      {
        tone: "warning",
        message: "The workspace's monthly budget is 80 % spent ($0.002 of $0.0025); it resets on the 1st, UTC.",
        href: "/budgets",
      },
    ]);
    await setBudget({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { daily: "0.004", monthly: "1" });
    await createGeneration(ctx, gradient);
    expect(await spendWarnings(ctx)).toEqual([
      {
        tone: "danger",
        message:
          "The workspace's daily budget of $0.004 is spent: new runs under it are refused until it resets at midnight UTC.",
        href: "/budgets",
      },
    ]);
  });

  it("answers nothing to creators and viewers, and nothing of another workspace", async () => {
    const ws = await workspace();
    const other = await workspace();
    await setBudget({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { daily: "0" });
    for (const role of ["creator", "viewer"] as const)
      expect(await spendWarnings({ ...testCtx(s.t, ws), role })).toEqual([]);
    expect((await spendWarnings({ ...testCtx(s.t, ws), role: "admin" })).map((w) => w.tone)).toEqual(["danger"]);
    expect(await spendWarnings({ ...testCtx(s.t, other), role: "owner" })).toEqual([]);
  });

  it("warns while the available balance is under the low-balance alert, first among equals", async () => {
    const ws = await workspace();
    const ctx = testCtx(s.t, ws);
    await setLowCreditAlert({ db: s.db, workspaceId: ws, ...CLI_AUDIT }, { usd: "9.999" });
    expect(await spendWarnings(ctx)).toEqual([]);
    await createGeneration(ctx, gradient);
    expect(await spendWarnings(ctx)).toEqual([
      {
        tone: "warning",
        message: "The available balance, $9.998, is under the low-balance alert of $9.999.",
        href: "/budgets",
      },
    ]);
    expect(await spendWarnings({ ...ctx, role: "creator" })).toEqual([]);
  });
});
