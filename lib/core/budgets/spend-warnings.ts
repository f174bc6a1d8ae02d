// What the studio's banner warns a workspace's owners and admins of: a budget at 80 % or more of
// its cap in the current period (100 %: nothing more starts under it until it resets), and an
// available balance under the workspace's low-balance alert (credits.low). Read with
// the reader's Ctx like every verb: anyone below admin gets no warnings, since what the workspace
// may spend is not theirs to see (the Budgets page and GET /v1/budgets refuse them the same way).
import { formatUsd, parseUsd } from "../../primitives/money";
import type { Ctx } from "../context";
import { roleAtLeast } from "../workspaces/roles";
import { readLowCreditAlert } from "../credits/low-credit";
import { listBudgets, type When } from "./budgets";
import type { Budget } from "./budget-shape";
import type { BudgetPeriod } from "./budget-periods";

/** A budget is worth a warning from this share of its cap. */
export const WARN_AT_PERCENT = 80;

export interface SpendWarning {
  /** "danger" when nothing more can start under it; "warning" otherwise. */
  tone: "warning" | "danger";
  message: string;
  /** Where to act on it. */
  href: string;
}

function whose(budget: Budget): string {
  if (budget.scope === "workspace") return "The workspace's";
  if (budget.scope === "member") return `${budget.email ?? budget.subject_id}'s`;
  return `API key ${budget.subject_id}'s`;
}

function warningOf(budget: Budget, period: BudgetPeriod): SpendWarning | null {
  const [cap, spent] =
    period === "day" ? [budget.daily_usd, budget.spent_today_usd] : [budget.monthly_usd, budget.spent_this_month_usd];
  if (cap === null || spent === null) return null;
  const capMicros = parseUsd(cap) ?? 0;
  const spentMicros = parseUsd(spent) ?? 0;
  if (capMicros > 0 && spentMicros * 100 < capMicros * WARN_AT_PERCENT) return null;
  const full = spentMicros >= capMicros;
  const name = `${whose(budget)} ${period === "day" ? "daily" : "monthly"} budget`;
  const resets = period === "day" ? "at midnight UTC" : "on the 1st, UTC";
  const percent = capMicros === 0 ? 100 : Math.floor((spentMicros * 100) / capMicros);
  return {
    tone: full ? "danger" : "warning",
    message: full
      ? `${name} of $${formatUsd(capMicros)} is spent: new runs under it are refused until it resets ${resets}.`
      : `${name} is ${percent} % spent ($${formatUsd(spentMicros)} of $${formatUsd(capMicros)}); it resets ${resets}.`,
    href: "/budgets",
  };
}

/** The warnings for the workspace of `ctx`, most urgent first; none for a reader below admin. */
export async function spendWarnings(ctx: Ctx, when: When = {}): Promise<SpendWarning[]> {
  if (ctx.role !== undefined && !roleAtLeast(ctx.role, "admin")) return [];
  const [budgets, lowCredit] = await Promise.all([listBudgets(ctx, when), readLowCreditAlert(ctx)]);
  const warnings: SpendWarning[] = [];
  if (lowCredit.under)
    warnings.push({
      tone: "warning",
      message: `The available balance, $${lowCredit.available_usd}, is under the low-balance alert of $${lowCredit.threshold_usd}.`,
      href: "/budgets",
    });
  for (const budget of budgets) {
    for (const period of ["day", "month"] as const) {
      const warning = warningOf(budget, period);
      if (warning) warnings.push(warning);
    }
  }
  return warnings.sort((a, b) => (a.tone === b.tone ? 0 : a.tone === "danger" ? -1 : 1));
}
