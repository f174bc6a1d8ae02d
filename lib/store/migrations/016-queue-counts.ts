import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

/** Queue orders per row of `queue_counts` (lib/core/runs/queue-positions.ts reads with the same size). */
export const QUEUE_BUCKET_SIZE = 256;

// How many runs are queued in each stretch of QUEUE_BUCKET_SIZE queue orders, kept by triggers on
// every change of a run's status (or its insert), so nothing that queues, claims, cancels or
// gives a run back can forget it. A queue position is then a sum over the stretches before the
// run plus a count within its own stretch (at most QUEUE_BUCKET_SIZE - 1 index entries), instead
// of a count of every queued run ahead, which grows with the queue and is paid on every create.
// A stretch without a queued run has no row.
//
// One row per stretch, not several stripes of it: a batch inserts its runs one statement at a
// time, in queue order, so its row locks (PostgreSQL) are taken in ascending order like every
// other writer's, which cannot deadlock; stripes would be taken out of order. The price is that
// on PostgreSQL two creates in the same stretch wait for each other's commit on that row, as two
// creates of one workspace already do on its balance.
/** SQL that counts a run whose queue order is `order` in (entering the queue) or out (leaving it). */
const countIn = (order: string) =>
  `insert into queue_counts (bucket, queued) values (${order} / ${QUEUE_BUCKET_SIZE}, 1) on conflict (bucket) do update set queued = queue_counts.queued + 1;`;
const countOut = (order: string) =>
  `update queue_counts set queued = queued - 1 where bucket = ${order} / ${QUEUE_BUCKET_SIZE};
   delete from queue_counts where bucket = ${order} / ${QUEUE_BUCKET_SIZE} and queued <= 0;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("queue_counts")
    .addColumn("bucket", "bigint", (c) => c.primaryKey())
    .addColumn("queued", "bigint", (c) => c.notNull())
    .execute();
  if (onPostgres(db)) {
    await sql
      .raw(
        `create function atelier_queue_counts() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE' and old.status = 'queued' and new.status <> 'queued' then
            ${countOut("old.queue_order")}
          end if;
          if new.status = 'queued' and (tg_op = 'INSERT' or old.status <> 'queued') then
            ${countIn("new.queue_order")}
          end if;
          return null;
        end $$`,
      )
      .execute(db);
    await sql`create trigger generations_queue_counts after insert or update of status on generations for each row execute function atelier_queue_counts()`.execute(
      db,
    );
  } else {
    const trigger = (name: string, when: string, body: string) =>
      sql.raw(`create trigger generations_queue_counts_${name} after ${when} begin ${body} end`).execute(db);
    // queue_order is still null when the insert trigger runs (the trigger of migration 011 sets it to the rowid next).
    await trigger(
      "insert",
      "insert on generations when new.status = 'queued'",
      countIn("coalesce(new.queue_order, new.rowid)"),
    );
    await trigger(
      "enter",
      "update of status on generations when new.status = 'queued' and old.status <> 'queued'",
      countIn("new.queue_order"),
    );
    await trigger(
      "leave",
      "update of status on generations when old.status = 'queued' and new.status <> 'queued'",
      countOut("old.queue_order"),
    );
  }
  await sql
    .raw(
      `insert into queue_counts (bucket, queued) select queue_order / ${QUEUE_BUCKET_SIZE}, count(*) from generations where status = 'queued' group by queue_order / ${QUEUE_BUCKET_SIZE}`,
    )
    .execute(db);
}
