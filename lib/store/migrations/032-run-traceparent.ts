import { sql, type Kysely } from "kysely";

// Traces (issue 39): a run created inside a traced request keeps the create's W3C trace context
// (`traceparent`, 55 characters), and the worker that claims it, in whichever process, runs it
// in a span continuing that trace. Null: created while tracing was off, or by the studio.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table generations add column traceparent text`.execute(db);
}
