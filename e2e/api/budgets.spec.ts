// Budgets, black-box on both stores: set with the admin CLI, a create past a cap answers 429
// rate_limit_exceeded with Retry-After and a message naming the budget, nothing held; a batch
// that would cross starts none; a cancel gives its amount back; bad CLI input names the field;
// GET /v1/budgets shows one workspace's budgets to its admins' and the CLI's keys only; the
// low-balance alert set with the CLI writes credits.low once per crossing, read over /v1/events.
import { expect, test } from "./fixtures";
import { admin, adminFailure, createKey } from "./admin";
import { expectError, expectOk, keyHeader } from "./helpers";
import { newTenant, PRICE, STORES, storeTitle, type Generation } from "./runs-helpers";
import type { ServerSpec } from "./servers";

interface Budget {
  object: "budget";
  scope: string;
  subject_id: string;
  daily_usd: string | null;
  monthly_usd: string | null;
  spent_today_usd: string | null;
  spent_this_month_usd: string | null;
  left_today_usd: string | null;
  left_this_month_usd: string | null;
}

const GRADIENT = { model: "atelier/gradient", input: { prompt: "budgets" } };

function budgetCli(spec: ServerSpec, args: string[]): Budget {
  return admin<Budget>(["budget", ...args], spec);
}

function cliError(spec: ServerSpec, args: string[]): { code: string; param: string | null; message: string } {
  const failed = adminFailure(["budget", ...args], spec);
  expect(failed.status, failed.stdout).toBe(1);
  return (JSON.parse(failed.stderr) as { error: { code: string; param: string | null; message: string } }).error;
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] budgets`, () => {
    test("a create past the workspace's daily cap is 429 with Retry-After; a cancel gives its amount back", async ({
      request,
    }) => {
      const spec = store.idle;
      const tenant = newTenant(request, spec, "1", "budgets");
      const ws = tenant.workspaceId;
      const { api } = tenant;
      expect(PRICE.gradientStandard).toBe(2_000);
      expect(budgetCli(spec, ["set", "--workspace", ws, "--daily", "0.004"])).toMatchObject({
        object: "budget",
        scope: "workspace",
        subject_id: ws,
        daily_usd: "0.004",
        monthly_usd: null,
        spent_today_usd: "0.00",
      });
      const first = await api.create(GRADIENT);
      await api.create(GRADIENT);
      const refused = await request.post(`${spec.baseURL}/v1/generations`, {
        headers: keyHeader(api.key),
        data: GRADIENT,
      });
      await expectError(refused, 429, "rate_limit_exceeded", {
        message:
          "This needs $0.002 but the workspace's daily budget of $0.004 has $0.00 left today. Nothing was started; it resets at midnight UTC.",
      });
      const retryAfter = Number(refused.headers()["retry-after"]);
      const untilMidnight = (Date.parse(new Date().toISOString().slice(0, 10)) + 86_400_000 - Date.now()) / 1000;
      expect(retryAfter).toBeGreaterThan(0);
      expect(Math.abs(retryAfter - untilMidnight)).toBeLessThan(30);
      // Nothing held for the refused one.
      expect(await api.credits()).toEqual({ available: 1_000_000 - 4_000, held: 4_000 });
      expect((await api.listAll()).length).toBe(2);

      await expectOk<Generation>(
        await request.post(`${spec.baseURL}/v1/generations/${first.gen.id}/cancel`, { headers: keyHeader(api.key) }),
      );
      const list = admin<{ data: Budget[] }>(["budget", "list", "--workspace", ws], spec);
      expect(list.data).toEqual([expect.objectContaining({ scope: "workspace", spent_today_usd: "0.002" })]);
      expect((await api.create(GRADIENT)).gen.status).toBe("queued");

      // A batch that would cross the monthly cap starts none of its runs.
      admin(["budget", "clear", "--workspace", ws, "--daily"], spec);
      expect(budgetCli(spec, ["set", "--workspace", ws, "--monthly", "0.006"])).toMatchObject({
        daily_usd: null,
        monthly_usd: "0.006",
        spent_this_month_usd: "0.004",
      });
      const batch = await request.post(`${spec.baseURL}/v1/batches`, {
        headers: keyHeader(api.key),
        data: { requests: [GRADIENT, GRADIENT] },
      });
      await expectError(batch, 429, "rate_limit_exceeded", {
        message:
          /These 2 runs need \$0\.004 but the workspace's monthly budget of \$0\.006 has \$0\.002 left this month/,
      });
      expect(Number(batch.headers()["retry-after"])).toBeGreaterThan(0);
      expect((await api.listAll()).length).toBe(3);
      expect(await api.credits()).toEqual({ available: 1_000_000 - 4_000, held: 4_000 });

      const cleared = admin<{ object: string; budget: Budget | null }>(["budget", "clear", "--workspace", ws], spec);
      expect(cleared).toMatchObject({ object: "budget_cleared", budget: null });
      expect(admin<{ data: Budget[] }>(["budget", "list", "--workspace", ws], spec).data).toEqual([]);
    });

    test("member and key budgets with the CLI; bad input names the field", async ({ request }) => {
      const spec = store.idle;
      const tenant = newTenant(request, spec, "1", "budgets");
      const other = newTenant(request, spec, "1", "budgets");
      const ws = tenant.workspaceId;
      const email = `budget-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
      admin(
        ["user", "create", "--email", email, "--password", "member-pass-1", "--workspace", ws, "--role", "creator"],
        spec,
      );
      const memberKey = admin<{ id: string; key: string }>(
        ["key", "create", "--workspace", ws, "--member", email],
        spec,
      );
      const plainKey = createKey(ws, {}, spec);
      const foreignKey = createKey(other.workspaceId, {}, spec);
      expect(budgetCli(spec, ["set", "--workspace", ws, "--member", email, "--daily", "0.002"])).toMatchObject({
        scope: "member",
        daily_usd: "0.002",
      });
      expect(budgetCli(spec, ["set", "--workspace", ws, "--key", plainKey.id, "--monthly", "0"])).toMatchObject({
        scope: "key",
        subject_id: plainKey.id,
        monthly_usd: "0.00",
      });
      // The member's key: one run, then its maker's budget is spent.
      const post = (key: string) =>
        request.post(`${spec.baseURL}/v1/generations`, { headers: keyHeader(key), data: GRADIENT });
      expect((await post(memberKey.key)).status()).toBe(201);
      await expectError(await post(memberKey.key), 429, "rate_limit_exceeded", {
        message: new RegExp(
          `member ${email.replace(/[.]/g, "\\.")}'s daily budget of \\$0\\.002 has \\$0\\.00 left today`,
        ),
      });
      // A cap of 0 on a key: nothing may be spent through it; the workspace's other key is free to.
      await expectError(await post(plainKey.key), 429, "rate_limit_exceeded", {
        message: /API key key_\w+'s monthly budget of \$0\.00 has \$0\.00 left this month/,
      });
      expect((await post(tenant.api.key)).status()).toBe(201);

      const bad: [string[], string, string][] = [
        [["--daily", "-1"], "invalid_parameter", "daily"],
        [["--daily", "abc"], "invalid_parameter", "daily"],
        [["--daily", "NaN"], "invalid_parameter", "daily"],
        [["--monthly", "1.0000001"], "invalid_parameter", "monthly"],
        [["--monthly", "1e9"], "invalid_parameter", "monthly"],
        [["--monthly", "99999999999999"], "invalid_parameter", "monthly"],
        [[], "invalid_parameter", "daily"],
        [["--daily", "1", "--member", "nobody@example.com"], "invalid_parameter", "member"],
        [["--daily", "1", "--key", foreignKey.id], "invalid_parameter", "key"],
        [["--daily", "1", "--key", "key_unknown"], "invalid_parameter", "key"],
        [["--daily", "1", "--key", plainKey.id, "--member", email], "invalid_parameter", "key"],
      ];
      for (const [args, code, param] of bad) {
        expect(cliError(spec, ["set", "--workspace", ws, ...args]), args.join(" ")).toMatchObject({ code, param });
      }
      expect(cliError(spec, ["set", "--workspace", "ws_unknown", "--daily", "1"])).toMatchObject({
        code: "resource_not_found",
        param: "workspace",
      });
      expect(cliError(spec, ["clear", "--workspace", other.workspaceId])).toMatchObject({ code: "resource_not_found" });

      // Every change is in the audit log.
      const audit = await expectOk<{ data: { action: string; target: { id: string } }[] }>(
        await request.get(`${spec.baseURL}/v1/audit-events?action=budget`, { headers: keyHeader(tenant.api.key) }),
      );
      expect(audit.data.map((e) => e.action).sort()).toEqual(["budget.set", "budget.set"]);
    });

    test("GET /v1/budgets: the key's workspace's budgets with spent and left; admins' keys only", async ({
      request,
    }) => {
      const spec = store.idle;
      const tenant = newTenant(request, spec, "1", "budgets");
      const other = newTenant(request, spec, "1", "budgets");
      const ws = tenant.workspaceId;
      const tag = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const member = (role: string) => {
        const email = `budget-${role}-${tag}@example.com`;
        admin(
          ["user", "create", "--email", email, "--password", "member-pass-1", "--workspace", ws, "--role", role],
          spec,
        );
        return {
          email,
          key: admin<{ id: string; key: string }>(["key", "create", "--workspace", ws, "--member", email], spec),
        };
      };
      const boss = member("admin");
      const creator = member("creator");
      const viewer = member("viewer");
      const list = async (key: string) =>
        expectOk<{ object: string; data: Budget[] }>(
          await request.get(`${spec.baseURL}/v1/budgets`, { headers: keyHeader(key) }),
        );
      expect(await list(tenant.api.key)).toEqual({ object: "list", data: [] });

      budgetCli(spec, ["set", "--workspace", ws, "--daily", "0.005", "--monthly", "1"]);
      budgetCli(spec, ["set", "--workspace", ws, "--member", creator.email, "--monthly", "0.5"]);
      budgetCli(spec, ["set", "--workspace", ws, "--key", boss.key.id, "--daily", "0"]);
      budgetCli(spec, ["set", "--workspace", other.workspaceId, "--daily", "7"]);
      await tenant.api.create(GRADIENT);

      // The workspace's, then the member's, then the key's; what is left never below 0.
      const mine = await list(boss.key.key);
      expect(mine.data).toEqual([
        expect.objectContaining({
          object: "budget",
          scope: "workspace",
          subject_id: ws,
          email: null,
          daily_usd: "0.005",
          monthly_usd: "1.00",
          spent_today_usd: "0.002",
          spent_this_month_usd: "0.002",
          left_today_usd: "0.003",
          left_this_month_usd: "0.998",
        }),
        expect.objectContaining({
          scope: "member",
          email: creator.email,
          daily_usd: null,
          spent_today_usd: null,
          left_today_usd: null,
          monthly_usd: "0.50",
          spent_this_month_usd: "0.00",
          left_this_month_usd: "0.50",
        }),
        expect.objectContaining({ scope: "key", subject_id: boss.key.id, daily_usd: "0.00", left_today_usd: "0.00" }),
      ]);
      // A key the admin CLI made reads them with its scope; the same list.
      expect(await list(tenant.api.key)).toEqual(mine);
      // Another workspace's key sees its own budget and nothing of this one.
      expect((await list(other.api.key)).data).toEqual([
        expect.objectContaining({ scope: "workspace", subject_id: other.workspaceId, daily_usd: "7.00" }),
      ]);

      // A creator's or a viewer's key: refused, naming the role.
      for (const [who, role] of [
        [creator, "creator"],
        [viewer, "viewer"],
      ] as const) {
        await expectError(
          await request.get(`${spec.baseURL}/v1/budgets`, { headers: keyHeader(who.key.key) }),
          403,
          "permission_denied",
          {
            message: `The member who made this API key is a ${role} in this workspace; to read budgets takes admin or owner.`,
          },
        );
      }
      // It takes no parameter; a NUL anywhere is named, never a 500.
      await expectError(
        await request.get(`${spec.baseURL}/v1/budgets?scope=key`, { headers: keyHeader(boss.key.key) }),
        400,
        "invalid_parameter",
        { param: "scope" },
      );
      await expectError(
        await request.get(`${spec.baseURL}/v1/budgets?x=%00`, { headers: keyHeader(boss.key.key) }),
        400,
        "invalid_parameter",
        { param: "x" },
      );
    });

    test("the low-balance alert with the CLI: credits.low once per crossing, again after a grant", async ({
      request,
    }) => {
      const spec = store.idle;
      const tenant = newTenant(request, spec, "1", "budgets");
      const ws = tenant.workspaceId;
      const lowCredit = (args: string[]) => admin<Record<string, unknown>>(["budget", "low-credit", ...args], spec);
      expect(lowCredit(["--workspace", ws, "--usd", "0.999"])).toEqual({
        object: "low_credit_alert",
        threshold_usd: "0.999",
        available_usd: "1.00",
        under: false,
      });
      const lowEvents = async () =>
        (
          await expectOk<{ data: { type: string; data: { available_usd: string; threshold_usd: string } }[] }>(
            await request.get(`${spec.baseURL}/v1/events?type=credits.low`, { headers: keyHeader(tenant.api.key) }),
          )
        ).data;
      // $1.00 → 0.998 crosses; 0.996 does not fire again.
      await tenant.api.create(GRADIENT);
      await expect.poll(async () => (await lowEvents()).map((e) => e.data.available_usd)).toEqual(["0.998"]);
      await tenant.api.create(GRADIENT);
      // A grant back to $1.00 re-arms it; the next run crosses again (0.998, never 0.996).
      tenant.topUp("0.004");
      await tenant.api.create(GRADIENT);
      await expect.poll(async () => (await lowEvents()).map((e) => e.data.available_usd)).toEqual(["0.998", "0.998"]);
      expect((await lowEvents())[0]).toMatchObject({
        type: "credits.low",
        data: { available_usd: "0.998", threshold_usd: "0.999" },
      });
      const listed = admin<{ low_credit_alert: Record<string, unknown> }>(["budget", "list", "--workspace", ws], spec);
      expect(listed.low_credit_alert).toEqual({
        object: "low_credit_alert",
        threshold_usd: "0.999",
        available_usd: "0.998",
        under: true,
      });

      const bad: [string[], string, string][] = [
        [["--usd", "0"], "invalid_parameter", "usd"],
        [["--usd", "-1"], "invalid_parameter", "usd"],
        [["--usd", "abc"], "invalid_parameter", "usd"],
        [["--usd", "1.0000001"], "invalid_parameter", "usd"],
        [["--usd", "99999999999999"], "invalid_parameter", "usd"],
        [[], "invalid_parameter", "usd"],
        [["--usd", "1", "--clear"], "invalid_parameter", "usd"],
      ];
      for (const [args, code, param] of bad) {
        expect(cliError(spec, ["low-credit", "--workspace", ws, ...args]), args.join(" ")).toMatchObject({
          code,
          param,
        });
      }
      expect(cliError(spec, ["low-credit", "--workspace", "ws_unknown", "--usd", "1"])).toMatchObject({
        code: "resource_not_found",
        param: "workspace",
      });
      expect(lowCredit(["--workspace", ws, "--clear"])).toMatchObject({ threshold_usd: null, under: false });
      expect(cliError(spec, ["low-credit", "--workspace", ws, "--clear"])).toMatchObject({
        code: "resource_not_found",
      });
      const audit = await expectOk<{ data: { action: string }[] }>(
        await request.get(`${spec.baseURL}/v1/audit-events?action=credit`, { headers: keyHeader(tenant.api.key) }),
      );
      expect(audit.data.map((e) => e.action).filter((a) => a.startsWith("credit.low"))).toEqual([
        "credit.low_threshold_cleared",
        "credit.low_threshold_set",
      ]);
    });
  });
}
