import { sql, type Kysely } from "kysely";

// Budgets (lib/core/budgets/): a daily and/or monthly cap in micro-dollars on a workspace, one of
// its members or one of its API keys; `subject_id` is the workspace's, the user's or the key's ID.
// Their spend is a counter per (budget, period), moved in the same statement list as the hold,
// release or charge, keyed by the UTC day or month the run started in (period_start "YYYY-MM-DD",
// a month's first day). The CHECK refuses a counter that grows past its cap; a counter that
// shrinks (a hold released) or is reseeded never fails it, even when a cap was lowered below it.
// The cap is copied onto the counter by each increment so the CHECK can see it in the same row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("budgets")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("subject_id", "text", (c) => c.notNull())
    .addColumn("daily_micros", "bigint")
    .addColumn("monthly_micros", "bigint")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("budgets_pk", ["workspace_id", "scope", "subject_id"])
    .addCheckConstraint("budgets_scope", sql`scope in ('workspace', 'member', 'key')`)
    .addCheckConstraint("budgets_daily_nonnegative", sql`daily_micros is null or daily_micros >= 0`)
    .addCheckConstraint("budgets_monthly_nonnegative", sql`monthly_micros is null or monthly_micros >= 0`)
    .execute();
  await db.schema
    .createTable("budget_spend")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("subject_id", "text", (c) => c.notNull())
    .addColumn("period", "text", (c) => c.notNull())
    .addColumn("period_start", "text", (c) => c.notNull())
    .addColumn("spent_micros", "bigint", (c) => c.notNull())
    .addColumn("cap_micros", "bigint", (c) => c.notNull())
    // 1 when the last change added spend (then the cap holds), 0 when it gave some back or reseeded.
    .addColumn("grew", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("budget_spend_pk", ["workspace_id", "scope", "subject_id", "period", "period_start"])
    .addCheckConstraint("budget_spend_period", sql`period in ('day', 'month')`)
    .addCheckConstraint("budget_spend_within_cap", sql`grew = 0 or spent_micros <= cap_micros`)
    .execute();
}
