import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// Budget alerts (lib/core/budgets/budget-alerts.ts): one row per (budget counter, threshold) the
// counter has reached, 50, 80 or 100 % of its cap. A trigger on the counter claims them in the
// very statement that moves it, so in the hold's transaction: the primary key lets two concurrent
// holds claim a threshold only once, and no create path had to learn about alerts. The webhook
// sender then turns each unannounced claim into a `budget.threshold_reached` event and sets
// `event_id`, in one transaction of its own; a claim is never lost to a crash in between.
const THRESHOLDS = "(select 50 as threshold union all select 80 union all select 100)";
// SQLite's "insert or ignore" in a trigger takes the conflict policy of the statement that fired
// it (the counter's upsert: abort), hence the "not exists"; its writers take turns (BEGIN
// IMMEDIATE), so that is exact there. PostgreSQL's concurrent holds rely on the key's conflict.
const claim = (conflict: string) => `insert into budget_alerts
    (workspace_id, scope, subject_id, period, period_start, threshold, spent_micros, cap_micros)
  select new.workspace_id, new.scope, new.subject_id, new.period, new.period_start, t.threshold,
    new.spent_micros, new.cap_micros
  from ${THRESHOLDS} t where new.spent_micros * 100 >= new.cap_micros * t.threshold
    and not exists (select 1 from budget_alerts a where a.workspace_id = new.workspace_id
      and a.scope = new.scope and a.subject_id = new.subject_id and a.period = new.period
      and a.period_start = new.period_start and a.threshold = t.threshold) ${conflict};`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("budget_alerts")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("subject_id", "text", (c) => c.notNull())
    .addColumn("period", "text", (c) => c.notNull())
    .addColumn("period_start", "text", (c) => c.notNull())
    .addColumn("threshold", "integer", (c) => c.notNull())
    .addColumn("spent_micros", "bigint", (c) => c.notNull())
    .addColumn("cap_micros", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text")
    .addPrimaryKeyConstraint("budget_alerts_pk", [
      "workspace_id",
      "scope",
      "subject_id",
      "period",
      "period_start",
      "threshold",
    ])
    .execute();
  // The sender's look for claims to announce reads only this (empty, nearly always) index.
  await sql`create index budget_alerts_unannounced on budget_alerts (workspace_id) where event_id is null`.execute(db);
  if (onPostgres(db)) {
    await sql
      .raw(
        `create function atelier_budget_alerts() returns trigger language plpgsql as $$
        begin
          if new.grew = 1 then ${claim("on conflict do nothing")} end if;
          return null;
        end $$`,
      )
      .execute(db);
    await sql`create trigger budget_spend_alerts after insert or update of spent_micros on budget_spend for each row execute function atelier_budget_alerts()`.execute(
      db,
    );
  } else {
    for (const [name, when] of [
      ["insert", "insert"],
      ["update", "update of spent_micros"],
    ] as const) {
      await sql
        .raw(
          `create trigger budget_spend_alerts_${name} after ${when} on budget_spend when new.grew = 1 begin ${claim("")} end`,
        )
        .execute(db);
    }
  }
}
