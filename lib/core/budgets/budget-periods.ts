// A budget's periods are UTC calendar days and months. A run's spend belongs to the period it
// started in (its created_at), whenever it is charged or released: a run held at 23:59 on the
// 31st and charged after midnight counts for the 31st and for that month.
export type BudgetPeriod = "day" | "month";

export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["day", "month"];

/** The keys of the periods an instant falls in: "YYYY-MM-DD" for its day, the month's first day for its month. */
export function periodStarts(at: string | Date): { day: string; month: string } {
  const day = (typeof at === "string" ? new Date(at) : at).toISOString().slice(0, 10);
  return { day, month: `${day.slice(0, 8)}01` };
}

/** When the period holding `at` ends (the next one starts), UTC. */
export function periodEnd(period: BudgetPeriod, at: Date): Date {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  return period === "day" ? new Date(Date.UTC(y, m, at.getUTCDate() + 1)) : new Date(Date.UTC(y, m + 1, 1));
}

/** Whole seconds from `at` until its period resets (at least 1), for Retry-After. */
export function secondsUntilReset(period: BudgetPeriod, at: Date): number {
  return Math.max(1, Math.ceil((periodEnd(period, at).getTime() - at.getTime()) / 1000));
}
