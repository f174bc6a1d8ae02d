// The admin CLI's budgets: a daily and/or monthly cap in US dollars on a workspace, one of its
// members (by email) or one of its API keys; set, list, clear; and the workspace's low-balance
// alert (credits.low). The same core verbs as every other door, acting as the CLI (no role), each
// change audited with the actor `cli`.
import type { Command } from "commander";
import { ApiError } from "../lib/primitives/errors";
import { findWorkspace } from "../lib/core/workspaces/workspaces";
import { clearBudget, listBudgets, setBudget, type Budget, type BudgetsCtx } from "../lib/core/budgets/budgets";
import {
  clearLowCreditAlert,
  readLowCreditAlert,
  setLowCreditAlert,
  type LowCreditAlert,
} from "../lib/core/credits/low-credit";
import { CLI_AUDIT } from "../lib/core/audit/audit-writer";
import type { Store } from "../lib/store/store";
import { print, printsJson, withStore } from "./admin-io";

async function cliBudgets(store: Store, workspaceId: string): Promise<BudgetsCtx> {
  if (!(await findWorkspace({ db: store.db }, workspaceId))) {
    throw new ApiError("resource_not_found", `No workspace ${workspaceId}. "workspace list" shows them.`, {
      param: "workspace",
    });
  }
  return { db: store.db, workspaceId, ...CLI_AUDIT };
}

const row = (b: Budget): Record<string, unknown> => ({
  scope: b.scope,
  on: b.email ?? b.subject_id,
  daily_usd: b.daily_usd,
  spent_today_usd: b.spent_today_usd,
  monthly_usd: b.monthly_usd,
  spent_this_month_usd: b.spent_this_month_usd,
});

type Whom = { workspace: string; member?: string; key?: string };

/** The low-balance alert in words, for the tables. */
const alertLine = (a: LowCreditAlert) =>
  a.threshold_usd === null
    ? `Low balance alert: none (available $${a.available_usd}).`
    : `Low balance alert: under $${a.threshold_usd} (available $${a.available_usd}${a.under ? ", under it now" : ""}).`;

export function addBudgetCommands(program: Command): void {
  const budget = program
    .command("budget")
    .description("spending caps per UTC day and month on a workspace, a member or an API key");
  const whom = (command: Command) =>
    command
      .requiredOption("--workspace <id>", "workspace ID (ws_…); alone: the workspace's own budget")
      .option("--member <email>", "a member's budget: their studio runs and the runs of the keys they made")
      .option("--key <id>", "an API key's budget (key_…): the runs it starts");
  whom(budget.command("set"))
    .description("set the daily and/or monthly cap in US dollars (0: nothing may be spent); the other stays")
    .option("--daily <usd>", "cap per UTC day, e.g. 25 or 12.50")
    .option("--monthly <usd>", "cap per UTC calendar month")
    .action((options: Whom & { daily?: string; monthly?: string }) =>
      withStore(async (store) => {
        const set = await setBudget(await cliBudgets(store, options.workspace), options);
        print(set, [row(set)]);
      }),
    );
  budget
    .command("list")
    .description("a workspace's budgets, with what each has spent today and this month")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .action((options: { workspace: string }) =>
      withStore(async (store) => {
        const ctx = await cliBudgets(store, options.workspace);
        const [budgets, lowCredit] = await Promise.all([listBudgets(ctx), readLowCreditAlert(ctx)]);
        print({ object: "list", data: budgets, low_credit_alert: lowCredit }, budgets.map(row));
        if (!printsJson()) console.log(alertLine(lowCredit));
      }),
    );
  budget
    .command("low-credit")
    .description(
      "the low-balance alert: a credits.low event when the available balance drops under --usd (once per crossing; a grant back over it re-arms it)",
    )
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .option("--usd <usd>", "the threshold in US dollars, more than 0, e.g. 5 or 12.50; under it already: fires at once")
    .option("--clear", "remove the alert")
    .action((options: { workspace: string; usd?: string; clear?: boolean }) =>
      withStore(async (store) => {
        if ((options.usd === undefined) === !options.clear) {
          throw new ApiError("invalid_parameter", "Give --usd <amount> to set the alert, or --clear to remove it.", {
            param: "usd",
          });
        }
        const ctx = await cliBudgets(store, options.workspace);
        const alert = options.clear
          ? await clearLowCreditAlert(ctx)
          : await setLowCreditAlert(ctx, { usd: options.usd });
        print(alert, [
          { threshold_usd: alert.threshold_usd ?? "none", available_usd: alert.available_usd, under: alert.under },
        ]);
      }),
    );
  whom(budget.command("clear"))
    .description("remove a budget, or only its daily or monthly cap")
    .option("--daily", "only the daily cap")
    .option("--monthly", "only the monthly cap")
    .action((options: Whom & { daily?: boolean; monthly?: boolean }) =>
      withStore(async (store) => {
        const { cleared, left } = await clearBudget(await cliBudgets(store, options.workspace), options);
        print({ object: "budget_cleared", cleared, budget: left }, [{ ...row(cleared), cleared: true }]);
      }),
    );
}
