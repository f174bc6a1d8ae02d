import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// Migration 025's PostgreSQL trigger called its plpgsql function for every counter row a hold
// moved, to find nearly always that the counter is under half its cap. A WHEN clause on the
// trigger itself is checked without calling the function or queueing an after-trigger event, so
// holds far from every threshold (the usual case) pay nothing for alerts. The function still
// checks each threshold; 50 % is the lowest. SQLite's triggers already test in their own WHEN.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!onPostgres(db)) return;
  await sql`drop trigger budget_spend_alerts on budget_spend`.execute(db);
  await sql`create trigger budget_spend_alerts after insert or update of spent_micros on budget_spend
    for each row when (new.grew = 1 and new.spent_micros * 2 >= new.cap_micros)
    execute function atelier_budget_alerts()`.execute(db);
}
