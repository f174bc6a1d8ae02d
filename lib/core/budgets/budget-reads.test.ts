// Reading budgets through a Ctx (GET /v1/budgets, the studio's page), on both stores: owners and
// admins only (a key reads with its maker's role, a CLI key with its scope), one workspace's
// budgets and never another's, and what is left never below 0.
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { refusal } from "../testing/refusal";
import { createGeneration } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";
import type { Ctx } from "../context";
import type { MemberRole } from "../workspaces/roles";
import { setBudget, type BudgetsCtx } from "./budgets";
import { readBudgets } from "./budget-reads";

describe(`reading budgets (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  const cli = (workspaceId: string): BudgetsCtx => ({ db: s.db, workspaceId, ...CLI_AUDIT });

  async function workspace() {
    const ws = await createWorkspace({ db: s.db }, { name: `budget reads ${++n}`, creditMicros: 10_000_000 });
    // A key a member made acts with that member's role now (the API's keyCtx).
    const member = (role: MemberRole): Ctx => ({
      ...testCtx(s.t, ws.id),
      actor: { kind: "api_key", id: "key_made_by_member" },
      role,
    });
    return { ws: ws.id, member };
  }

  it("answers owners and admins and a CLI key with its scope; refuses creators, viewers and a key without the scope", async () => {
    const { ws, member } = await workspace();
    await setBudget(cli(ws), { daily: "1" });
    for (const role of ["owner", "admin"] as const) {
      expect((await readBudgets(member(role))).data.map((b) => b.scope)).toEqual(["workspace"]);
    }
    for (const role of ["creator", "viewer"] as const) {
      const err = await refusal(readBudgets(member(role)));
      expect([err.code, err.message]).toEqual([
        "permission_denied",
        `The member who made this API key is a ${role} in this workspace; to read budgets takes admin or owner.`,
      ]);
    }
    expect((await readBudgets(testCtx(s.t, ws))).object).toBe("list");
    const narrow = await refusal(readBudgets(testCtx(s.t, ws, { scopes: ["generations:read"] })));
    expect([narrow.code, narrow.message]).toEqual([
      "permission_denied",
      'This API key lacks the "workspace:read" scope, which this request needs. Create a key with that scope.',
    ]);
  });

  it("lists one workspace's budgets with what is spent and left; never another's", async () => {
    const a = await workspace();
    const b = await workspace();
    await setBudget(cli(a.ws), { daily: "0.005", monthly: "10" });
    await setBudget(cli(b.ws), { monthly: "3" });
    await createGeneration(testCtx(s.t, a.ws), { model: "atelier/gradient", input: { prompt: "left" } });
    const { data } = await readBudgets(testCtx(s.t, a.ws));
    expect(data).toEqual([
      {
        object: "budget",
        scope: "workspace",
        subject_id: a.ws,
        email: null,
        daily_usd: "0.005",
        monthly_usd: "10.00",
        spent_today_usd: "0.002",
        spent_this_month_usd: "0.002",
        left_today_usd: "0.003",
        left_this_month_usd: "9.998",
        updated_at: expect.any(String) as string,
      },
    ]);
    expect((await readBudgets(testCtx(s.t, b.ws))).data).toEqual([
      expect.objectContaining({ subject_id: b.ws, daily_usd: null, spent_today_usd: null, left_today_usd: null }),
    ]);
    // A cap lowered below what is spent leaves nothing, not a negative amount.
    await setBudget(cli(a.ws), { daily: "0.001" });
    expect((await readBudgets(testCtx(s.t, a.ws))).data[0]).toMatchObject({
      daily_usd: "0.001",
      spent_today_usd: "0.002",
      left_today_usd: "0.00",
    });
  });
});
