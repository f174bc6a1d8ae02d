// Budgets: a daily and/or monthly cap on what a workspace, one of its members or one of its API
// keys may spend (UTC periods). Owners and admins set and clear them (the admin CLI acts without a
// role); every change is audited in its transaction. What a budget counts is kept by counters
// moved with each hold and release (budget-spend.ts); setting a cap where a period has no counter
// yet starts it from the runs already started in that period, so a budget set at noon counts the
// morning too.
import { sql } from "kysely";
import { ApiError } from "../../primitives/errors";
import { formatUsd, type Micros } from "../../primitives/money";
import type { BudgetsTable, Db } from "../../store/database";
import { onPostgres } from "../../store/dialects";
import { withTransaction } from "../../store/writes";
import type { Actor } from "../context";
import { fromTo, recordAudit } from "../audit/audit-writer";
import { requireRole, type MemberRole } from "../workspaces/roles";
import { periodEnd, periodStarts, BUDGET_PERIODS, type BudgetPeriod } from "./budget-periods";
import { findSubject, parseCap, type BudgetSubject } from "./budget-input";
import type { Budget } from "./budget-shape";

/** Who manages budgets: a member acting in the studio (role set) or the admin CLI (no role). */
export interface BudgetsCtx {
  db: Db;
  workspaceId: string;
  actor: Actor;
  role?: MemberRole;
  ip?: string;
}

export type { Budget };

type Subject = { member?: unknown; key?: unknown };
/** `now` is for tests of the periods; the doors never pass it. */
export type When = { now?: Date };

const capOf = (row: Pick<BudgetsTable, "daily_micros" | "monthly_micros">, period: BudgetPeriod) =>
  period === "day" ? row.daily_micros : row.monthly_micros;
const usd = (micros: number | null) => (micros === null ? null : formatUsd(Number(micros)));

/** The workspace's budgets, the workspace's first, with what each has spent in the current periods. */
export async function listBudgets(ctx: Pick<BudgetsCtx, "db" | "workspaceId">, when: When = {}): Promise<Budget[]> {
  const { day, month } = periodStarts(when.now ?? new Date());
  const rows = await ctx.db
    .selectFrom("budgets")
    .leftJoin("users", (join) => join.onRef("users.id", "=", "budgets.subject_id").on("budgets.scope", "=", "member"))
    .selectAll("budgets")
    .select("users.email")
    .where("budgets.workspace_id", "=", ctx.workspaceId)
    // workspace, member, key
    .orderBy("budgets.scope", "desc")
    .orderBy("budgets.subject_id")
    .execute();
  const spend = await ctx.db
    .selectFrom("budget_spend")
    .select(["scope", "subject_id", "period", "spent_micros"])
    .where("workspace_id", "=", ctx.workspaceId)
    .where((eb) =>
      eb.or([
        eb.and([eb("period", "=", "day"), eb("period_start", "=", day)]),
        eb.and([eb("period", "=", "month"), eb("period_start", "=", month)]),
      ]),
    )
    .execute();
  /** Spent and left in a period, in micro-dollars; null without a cap. */
  const period = (row: BudgetsTable, period: BudgetPeriod) => {
    const cap = capOf(row, period);
    if (cap === null) return { spent: null, left: null };
    const found = spend.find((s) => s.scope === row.scope && s.subject_id === row.subject_id && s.period === period);
    const spent = Number(found?.spent_micros ?? 0);
    // A cap set below what was already spent leaves nothing, not a negative amount.
    return { spent, left: Math.max(0, Number(cap) - spent) };
  };
  return rows.map((row) => {
    const day = period(row, "day");
    const month = period(row, "month");
    return {
      object: "budget",
      scope: row.scope,
      subject_id: row.subject_id,
      email: row.email ?? null,
      daily_usd: usd(row.daily_micros),
      monthly_usd: usd(row.monthly_micros),
      spent_today_usd: usd(day.spent),
      spent_this_month_usd: usd(month.spent),
      left_today_usd: usd(day.left),
      left_this_month_usd: usd(month.left),
      updated_at: row.updated_at,
    };
  });
}

/**
 * On PostgreSQL, waits for the workspace's creates in flight and keeps new ones out until this
 * commits: each create moves the balance before its budget counters (budget-spend.ts), so a run
 * is counted either by the seed below or by its own increment, never by neither.
 */
async function lockWorkspaceSpend(trx: Db, workspaceId: string): Promise<void> {
  const balance = trx.selectFrom("credit_balances").select("workspace_id").where("workspace_id", "=", workspaceId);
  const row = await (onPostgres(trx) ? balance.forUpdate() : balance).executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No workspace ${workspaceId}.`, { param: "workspace" });
}

/** What the runs a budget covers, started in the period holding `at`, hold and were charged. */
async function spentSince(trx: Db, workspaceId: string, subject: BudgetSubject, period: BudgetPeriod, at: Date) {
  const starts = periodStarts(at);
  const from = `${period === "day" ? starts.day : starts.month}T00:00:00.000Z`;
  let query = trx
    .selectFrom("generations as g")
    .innerJoin("credit_holds as h", "h.id", "g.hold_id")
    .select(sql<number | string | null>`sum(h.amount_micros)`.as("total"))
    .where("g.workspace_id", "=", workspaceId)
    .where("g.created_at", ">=", from)
    .where("g.created_at", "<", periodEnd(period, at).toISOString())
    .where("h.status", "in", ["held", "charged"]);
  if (subject.scope === "key") query = query.where("g.created_by", "=", subject.subjectId);
  if (subject.scope === "member") {
    query = query.where((eb) =>
      eb.or([
        eb("g.created_by", "=", subject.subjectId),
        eb(
          "g.created_by",
          "in",
          eb
            .selectFrom("api_keys")
            .select("api_keys.id")
            .where("api_keys.workspace_id", "=", workspaceId)
            .where("api_keys.created_by", "=", subject.subjectId),
        ),
      ]),
    );
  }
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}

function spendRows(trx: Db, workspaceId: string, subject: BudgetSubject) {
  return trx
    .deleteFrom("budget_spend")
    .where("workspace_id", "=", workspaceId)
    .where("scope", "=", subject.scope)
    .where("subject_id", "=", subject.subjectId);
}

/** Keeps the counters in step with the caps: a period's counter starts with its cap and ends without it. */
async function alignCounters(trx: Db, workspaceId: string, subject: BudgetSubject, caps: Caps, at: Date) {
  const starts = periodStarts(at);
  for (const period of BUDGET_PERIODS) {
    const cap = period === "day" ? caps.daily : caps.monthly;
    if (cap === null) {
      await spendRows(trx, workspaceId, subject).where("period", "=", period).execute();
      continue;
    }
    const periodStart = period === "day" ? starts.day : starts.month;
    const spent = await spentSince(trx, workspaceId, subject, period, at);
    // grew = 0: a cap set below what is already spent is kept; it refuses only more spend.
    await trx
      .insertInto("budget_spend")
      .values({
        workspace_id: workspaceId,
        scope: subject.scope,
        subject_id: subject.subjectId,
        period,
        period_start: periodStart,
        spent_micros: spent,
        cap_micros: cap,
        grew: 0,
      })
      .onConflict((oc) =>
        oc
          .columns(["workspace_id", "scope", "subject_id", "period", "period_start"])
          .doUpdateSet({ cap_micros: cap, grew: 0 }),
      )
      .execute();
  }
}

type Caps = { daily: Micros | null; monthly: Micros | null };

async function currentBudget(trx: Db, workspaceId: string, subject: BudgetSubject) {
  return trx
    .selectFrom("budgets")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("scope", "=", subject.scope)
    .where("subject_id", "=", subject.subjectId)
    .executeTakeFirst();
}

async function presentOne(ctx: BudgetsCtx, subject: BudgetSubject, when: When): Promise<Budget | null> {
  const all = await listBudgets(ctx, when);
  return all.find((b) => b.scope === subject.scope && b.subject_id === subject.subjectId) ?? null;
}

/**
 * Sets a budget's caps: those given change, the other stays as it was. A budget on a member
 * covers their studio runs and the runs of the keys they made; on a key, the key's runs.
 */
export async function setBudget(
  ctx: BudgetsCtx,
  input: Subject & { daily?: unknown; monthly?: unknown },
  when: When = {},
): Promise<Budget> {
  requireRole(ctx, "admin", "set budgets");
  const daily = parseCap(input.daily, "daily");
  const monthly = parseCap(input.monthly, "monthly");
  if (daily === undefined && monthly === undefined) {
    throw new ApiError("invalid_parameter", "Give a daily cap, a monthly cap or both, in US dollars.", {
      param: "daily",
    });
  }
  const at = when.now ?? new Date();
  const subject = await withTransaction(ctx.db, async (trx) => {
    await lockWorkspaceSpend(trx, ctx.workspaceId);
    const subject = await findSubject(trx, ctx.workspaceId, input, { live: true });
    const before = await currentBudget(trx, ctx.workspaceId, subject);
    const was: Caps = {
      daily: before?.daily_micros == null ? null : Number(before.daily_micros),
      monthly: before?.monthly_micros == null ? null : Number(before.monthly_micros),
    };
    const caps: Caps = { daily: daily ?? was.daily, monthly: monthly ?? was.monthly };
    const row = { daily_micros: caps.daily, monthly_micros: caps.monthly, updated_at: at.toISOString() };
    await trx
      .insertInto("budgets")
      .values({ workspace_id: ctx.workspaceId, scope: subject.scope, subject_id: subject.subjectId, ...row })
      .onConflict((oc) => oc.columns(["workspace_id", "scope", "subject_id"]).doUpdateSet(row))
      .execute();
    await alignCounters(trx, ctx.workspaceId, subject, caps, at);
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "budget.set",
      target: subject.target,
      changes: {
        scope: subject.scope,
        ...(subject.email ? { email: subject.email } : {}),
        daily_usd: fromTo(usd(was.daily), usd(caps.daily)),
        monthly_usd: fromTo(usd(was.monthly), usd(caps.monthly)),
      },
    });
    return subject;
  });
  return (await presentOne(ctx, subject, when))!;
}

/**
 * Clears a budget's caps: the daily one, the monthly one, or (neither named) both, and with them
 * the budget. Answers the budget as it is left, or null once it has no cap.
 */
export async function clearBudget(
  ctx: BudgetsCtx,
  input: Subject & { daily?: boolean; monthly?: boolean },
  when: When = {},
): Promise<{ cleared: Budget; left: Budget | null }> {
  requireRole(ctx, "admin", "clear budgets");
  const at = when.now ?? new Date();
  const whole = !input.daily && !input.monthly;
  const { subject, cleared } = await withTransaction(ctx.db, async (trx) => {
    await lockWorkspaceSpend(trx, ctx.workspaceId);
    const subject = await findSubject(trx, ctx.workspaceId, input, { live: false });
    const cleared = await presentOne({ ...ctx, db: trx }, subject, when);
    const before = await currentBudget(trx, ctx.workspaceId, subject);
    if (!before || !cleared) {
      throw new ApiError("resource_not_found", `There is no budget on ${describe(subject)}.`, {
        param: subject.scope === "workspace" ? "workspace" : subject.scope,
      });
    }
    const caps: Caps = {
      daily: whole || input.daily || before.daily_micros === null ? null : Number(before.daily_micros),
      monthly: whole || input.monthly || before.monthly_micros === null ? null : Number(before.monthly_micros),
    };
    const thisBudget = { workspace_id: ctx.workspaceId, scope: subject.scope, subject_id: subject.subjectId };
    if (caps.daily === null && caps.monthly === null) {
      await trx
        .deleteFrom("budgets")
        .where((eb) => eb.and(thisBudget))
        .execute();
      await spendRows(trx, ctx.workspaceId, subject).execute();
    } else {
      await trx
        .updateTable("budgets")
        .set({ daily_micros: caps.daily, monthly_micros: caps.monthly, updated_at: at.toISOString() })
        .where((eb) => eb.and(thisBudget))
        .execute();
      await alignCounters(trx, ctx.workspaceId, subject, caps, at);
    }
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "budget.cleared",
      target: subject.target,
      changes: {
        scope: subject.scope,
        ...(subject.email ? { email: subject.email } : {}),
        daily_usd: fromTo(cleared.daily_usd, usd(caps.daily)),
        monthly_usd: fromTo(cleared.monthly_usd, usd(caps.monthly)),
      },
    });
    return { subject, cleared };
  });
  return { cleared, left: await presentOne(ctx, subject, when) };
}

function describe(subject: BudgetSubject): string {
  if (subject.scope === "workspace") return "this workspace";
  return subject.scope === "member" ? `member ${subject.email}` : `API key ${subject.subjectId}`;
}
