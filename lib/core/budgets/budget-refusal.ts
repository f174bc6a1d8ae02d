// The 429 a create gets when a budget refuses its hold: which budget, what it has left, and when
// its period resets (Retry-After). Read after the refused transaction rolled back, from the
// counters as they are then.
import { ApiError } from "../../primitives/errors";
import { formatUsd } from "../../primitives/money";
import type { BudgetScope, Db } from "../../store/database";
import { periodStarts, secondsUntilReset, type BudgetPeriod } from "./budget-periods";

export interface BudgetNeed {
  workspaceId: string;
  creatorId: string;
  /** When the refused runs would have started. */
  at: string;
  neededMicros: number;
  /** Starts the sentence: "This needs", "These 3 runs need". */
  needs: string;
}

interface Shortfall {
  scope: BudgetScope;
  subjectId: string;
  period: BudgetPeriod;
  capMicros: number;
  leftMicros: number;
}

const PERIOD_WORDS: Record<BudgetPeriod, { name: string; when: string; resets: string }> = {
  day: { name: "daily", when: "today", resets: "at midnight UTC" },
  month: { name: "monthly", when: "this month", resets: "on the 1st at midnight UTC" },
};

async function budgetName(db: Db, scope: BudgetScope, subjectId: string): Promise<string> {
  if (scope === "workspace") return "the workspace's";
  if (scope === "key") return `API key ${subjectId}'s`;
  const user = await db.selectFrom("users").select("email").where("id", "=", subjectId).executeTakeFirst();
  return `member ${user?.email ?? subjectId}'s`;
}

/** The covering budgets that cannot take `neededMicros` more now, the latest to reset first. */
async function shortfalls(db: Db, need: BudgetNeed): Promise<Shortfall[]> {
  const { day, month } = periodStarts(need.at);
  const key = await db.selectFrom("api_keys").select("created_by").where("id", "=", need.creatorId).executeTakeFirst();
  const members = [need.creatorId, ...(key?.created_by ? [key.created_by] : [])];
  const budgets = await db
    .selectFrom("budgets")
    .selectAll()
    .where("workspace_id", "=", need.workspaceId)
    .where((eb) =>
      eb.or([
        eb("scope", "=", "workspace"),
        eb.and([eb("scope", "=", "key"), eb("subject_id", "=", need.creatorId)]),
        eb.and([eb("scope", "=", "member"), eb("subject_id", "in", members)]),
      ]),
    )
    .execute();
  const spend = await db
    .selectFrom("budget_spend")
    .select(["scope", "subject_id", "period", "spent_micros"])
    .where("workspace_id", "=", need.workspaceId)
    .where((eb) =>
      eb.or([
        eb.and([eb("period", "=", "day"), eb("period_start", "=", day)]),
        eb.and([eb("period", "=", "month"), eb("period_start", "=", month)]),
      ]),
    )
    .execute();
  const found: Shortfall[] = [];
  for (const budget of budgets) {
    for (const period of ["month", "day"] as const) {
      const cap = period === "day" ? budget.daily_micros : budget.monthly_micros;
      if (cap === null) continue;
      const row = spend.find(
        (s) => s.scope === budget.scope && s.subject_id === budget.subject_id && s.period === period,
      );
      const left = Math.max(0, Number(cap) - Number(row?.spent_micros ?? 0));
      if (need.neededMicros > left) {
        found.push({
          scope: budget.scope,
          subjectId: budget.subject_id,
          period,
          capMicros: Number(cap),
          leftMicros: left,
        });
      }
    }
  }
  // A month's shortfall first: retrying at midnight would not help it.
  return found.sort((a, b) => (a.period === b.period ? 0 : a.period === "month" ? -1 : 1));
}

/** rate_limit_exceeded naming the budget and what it has left, Retry-After its period's reset. */
export async function budgetRefusal(db: Db, need: BudgetNeed): Promise<ApiError> {
  const at = new Date(need.at);
  const [first] = await shortfalls(db, need);
  if (!first) {
    // Given back between the refusal and this read: worth trying again at once.
    return new ApiError("rate_limit_exceeded", "A budget of this workspace refused this spend just now; try again.", {
      headers: { "Retry-After": "1" },
    });
  }
  const words = PERIOD_WORDS[first.period];
  const name = await budgetName(db, first.scope, first.subjectId);
  return new ApiError(
    "rate_limit_exceeded",
    `${need.needs} $${formatUsd(need.neededMicros)} but ${name} ${words.name} budget of $${formatUsd(first.capMicros)} ` +
      `has $${formatUsd(first.leftMicros)} left ${words.when}. Nothing was started; it resets ${words.resets}.`,
    { headers: { "Retry-After": String(secondsUntilReset(first.period, at)) } },
  );
}
