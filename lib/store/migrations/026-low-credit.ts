import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// The low-balance alert (lib/core/credits/low-credit.ts, low-credit-alerts.ts): a workspace may
// set a threshold (low_credit_micros; null: no alert), and when its available balance drops under
// it the trigger below claims a `credits.low` into credit_alerts in the very statement that moves
// the balance, so in the hold's transaction: no create path learns about alerts. The claim
// disarms the balance row (low_credit_armed = 0), so it fires once per crossing; the row is locked
// by the update, so two concurrent holds claim once. A grant (granted_micros grows) that brings
// available back to the threshold or above re-arms it; releases do not (they give back what a hold
// took, and a run's retry would fire again). Setting the threshold arms it, and when available is
// already under it, the same statement claims. The webhook sender then turns each unannounced
// claim into its event and deliveries, as for budget alerts (migration 025).
const NOW_PG = `to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const NOW_SQLITE = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
const claim = (now: string) => `insert into credit_alerts (workspace_id, available_micros, threshold_micros, created_at)
  values (new.workspace_id, new.available_micros, new.low_credit_micros, ${now});`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = onPostgres(db);
  await db.schema.alterTable("credit_balances").addColumn("low_credit_micros", "bigint").execute();
  await db.schema
    .alterTable("credit_balances")
    .addColumn("low_credit_armed", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable("credit_alerts")
    // The claims' numbers: an identity on PostgreSQL, the rowid on SQLite.
    .addColumn("id", postgres ? "bigint" : "integer", (c) =>
      postgres ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey(),
    )
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("available_micros", "bigint", (c) => c.notNull())
    .addColumn("threshold_micros", "bigint", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("event_id", "text")
    .execute();
  // The sender's look for claims to announce reads only this (empty, nearly always) index.
  await sql`create index credit_alerts_unannounced on credit_alerts (workspace_id) where event_id is null`.execute(db);

  if (postgres) {
    // The trigger's WHEN is checked by the executor itself: a balance with no threshold (every hold
    // of every workspace that set none) never enters plpgsql.
    await sql
      .raw(
        `create function atelier_low_credit() returns trigger language plpgsql as $$
        begin
          if new.available_micros < new.low_credit_micros then
            if new.low_credit_armed = 1 then
              ${claim(NOW_PG)}
              new.low_credit_armed := 0;
            end if;
          elsif new.granted_micros > old.granted_micros then
            new.low_credit_armed := 1;
          end if;
          return new;
        end $$`,
      )
      .execute(db);
    await sql`create trigger credit_balances_low_credit before update on credit_balances for each row
      when (new.low_credit_micros is not null) execute function atelier_low_credit()`.execute(db);
    return;
  }
  // SQLite: after-update triggers (only on these columns, and only when their `when` holds) whose
  // nested update sets the flag; it names no column they watch, and recursive_triggers is off.
  // The bound's before-update triggers (migration 017) run on it too and pass.
  await sql
    .raw(
      `create trigger credit_balances_low_credit_claim
       after update of available_micros, granted_micros, low_credit_micros on credit_balances
       when new.low_credit_micros is not null and new.low_credit_armed = 1
         and new.available_micros < new.low_credit_micros
       begin
         ${claim(NOW_SQLITE)}
         update credit_balances set low_credit_armed = 0 where workspace_id = new.workspace_id;
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger credit_balances_low_credit_rearm
       after update of granted_micros on credit_balances
       when new.low_credit_micros is not null and new.low_credit_armed = 0
         and new.granted_micros > old.granted_micros and new.available_micros >= new.low_credit_micros
       begin
         update credit_balances set low_credit_armed = 1 where workspace_id = new.workspace_id;
       end`,
    )
    .execute(db);
}
