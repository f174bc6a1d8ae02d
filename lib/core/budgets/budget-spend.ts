// Budget spend counters, moved in the same statement list as the money they count. A hold adds
// its amount to the counter of every budget that covers the run, for the day and the month it
// started in; the counter's CHECK (migration 024) refuses growth past the cap, and with it the
// whole list: nothing is held, nothing starts. A released hold takes its amount off the same
// counters; a charge is what was held (lib/core/credits/credits.ts), so it moves nothing.
//
// Which budgets cover a run: the workspace's; the key's that started it; the member's who started
// it in the studio or who made that key. Each statement comes after the balance move in its list,
// so on PostgreSQL the balance row is always the first of these rows a transaction locks (setting
// a budget locks it first too, budgets.ts), and a run from a key made by the CLI has no member.
import { sql, type Compilable, type RawBuilder } from "kysely";
import type { Db } from "../../store/database";
import { planOnce } from "../../store/dialects";
import { addingFirstParameter } from "../../store/writes";
import { periodStarts } from "./budget-periods";

/** The budgets of `creator` (a user's or a key's ID), as a condition on alias `b` (or no alias). */
function coveringBudgets(creator: string, alias: string) {
  const c = (column: string) => sql.ref(alias ? `${alias}.${column}` : column);
  return sql`(${c("scope")} = 'workspace'
    or (${c("scope")} = 'key' and ${c("subject_id")} = ${creator})
    or (${c("scope")} = 'member' and (${c("subject_id")} = ${creator}
      or ${c("subject_id")} = (select k.created_by from api_keys k where k.id = ${creator}))))`;
}

function compilable(db: Db, query: RawBuilder<unknown>): Compilable {
  return { compile: () => query.compile(db) };
}

export interface SpendInput {
  workspaceId: string;
  /** Who started the run(s): the user's or the API key's ID (the runs' created_by). */
  creatorId: string;
  amountMicros: number;
  /** When the run(s) started: picks the day and the month. */
  at: string;
}

/**
 * Adds a hold to every covering budget's counters, refused by the CHECK past a cap (isPastBudget).
 * The amount is the statement's first parameter, so a group of creates by one key sends it once
 * with their amounts added (lib/store/merged-inserts.ts).
 */
export function budgetSpendWrite(db: Db, input: SpendInput): Compilable {
  const { day, month } = periodStarts(input.at);
  const cap = sql`case when p.period = 'day' then b.daily_micros else b.monthly_micros end`;
  const query = sql`insert into budget_spend (spent_micros, workspace_id, scope, subject_id, period, period_start, cap_micros, grew)
      select cast(${input.amountMicros} as bigint), b.workspace_id, b.scope, b.subject_id, p.period,
        case when p.period = 'day' then cast(${day} as text) else cast(${month} as text) end, ${cap}, 1
      from budgets b cross join (select 'day' as period union all select 'month' as period) p
      where b.workspace_id = ${input.workspaceId} and ${coveringBudgets(input.creatorId, "b")} and ${cap} is not null
      on conflict (workspace_id, scope, subject_id, period, period_start) do update set
        spent_micros = budget_spend.spent_micros + excluded.spent_micros, cap_micros = excluded.cap_micros, grew = 1`;
  // Planned once per connection: it finds its rows by primary key, whatever the values.
  return { compile: () => planOnce(addingFirstParameter(query.compile(db))) };
}

/** Gives a released hold back to the counters it was added to (those of the run's own day and month). */
export function budgetReleaseWrite(db: Db, input: SpendInput): Compilable {
  const { day, month } = periodStarts(input.at);
  return compilable(
    db,
    sql`update budget_spend set spent_micros = spent_micros - ${input.amountMicros}, grew = 0
      where workspace_id = ${input.workspaceId}
        and ((period = 'day' and period_start = ${day}) or (period = 'month' and period_start = ${month}))
        and ${coveringBudgets(input.creatorId, "")}`,
  );
}

const WITHIN_CAP = "budget_spend_within_cap";

/** True when err is a budget counter refusing to grow past its cap. */
export function isPastBudget(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (e?.code === "23514") return e.constraint === WITHIN_CAP;
  return e?.code === "SQLITE_CONSTRAINT_CHECK" && typeof e.message === "string" && e.message.includes(WITHIN_CAP);
}
