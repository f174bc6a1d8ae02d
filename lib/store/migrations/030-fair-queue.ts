import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// The fair queue (issue 38): runs start by lane (0 interactive, 1 bulk), then by a fair tag, then
// in the order they were queued. The tag is start-time fair queuing's start tag: the later of the
// queue's virtual time (the lowest tag still queued) and its workspace's finish tag (its last
// run's start tag plus FAIR_STEP / the workspace's weight; kept in workspace_queue). A workspace
// that queues 200 runs takes tags 200 steps deep; one that queues 5 afterwards starts at the
// queue's head, so its runs start right after the head's and then alternate, not behind all 200.
// Tags are set by the store on insert (a trigger, as queue_order and queue_counts are), so every
// door that queues runs gets them, and the order never changes once set: a run given back to the
// queue keeps its place.
//
// queue_counts (migration 016) now counts runs per stretch of that order: bucket = lane ×
// 2^40 + fair_tag / FAIR_BUCKET. A queue position stays a sum over the stretches before the run
// plus a count within its own (lib/core/runs/queue-positions.ts).

/** A weight-1 workspace's step between two of its runs' tags. */
export const FAIR_STEP = 1024;
/** Tag units per row of queue_counts: 256 runs of one weight-1 workspace. */
export const FAIR_BUCKET = 256 * FAIR_STEP;
/** Buckets of lane 1 start past every bucket of lane 0. */
export const LANE_SPAN = 2 ** 40;

const bucketOf = (row: string) => `(${row}.lane * ${LANE_SPAN} + ${row}.fair_tag / ${FAIR_BUCKET})`;
const countIn = (row: string) =>
  `insert into queue_counts (bucket, queued) values (${bucketOf(row)}, 1) on conflict (bucket) do update set queued = queue_counts.queued + 1;`;
const countOut = (row: string) =>
  `update queue_counts set queued = queued - 1 where bucket = ${bucketOf(row)};
   delete from queue_counts where bucket = ${bucketOf(row)} and queued <= 0;`;

/** Stands for "no run queued in this lane" (SQLite's two-argument min() is null if either is). */
const NONE = "9000000000000000000";
/** A lane's lowest queued tag: one step into the queued runs' index (min() would scan the lane on PostgreSQL). */
const headOf = (lane: number) =>
  `(select q.fair_tag from generations q where q.status = 'queued' and q.lane = ${lane} and q.fair_tag is not null order by q.fair_tag limit 1)`;
/** The queue's virtual time: the lowest tag still queued, else the highest any workspace reached. */
const virtualTime = (least: string) => `coalesce(
  nullif(${least}(
    coalesce(${headOf(0)}, ${NONE}),
    coalesce(${headOf(1)}, ${NONE})
  ), ${NONE}),
  (select max(last_tag) from workspace_queue),
  0)`;
const lastTag = (workspace: string) =>
  `coalesce((select last_tag from workspace_queue where workspace_id = ${workspace}), 0)`;
const step = (workspace: string, greatest: string) =>
  `${greatest}(1, ${FAIR_STEP} / coalesce((select queue_weight from workspaces where id = ${workspace}), 1))`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table generations add column lane smallint not null default 1`.execute(db);
  await sql`alter table generations add column fair_tag bigint`.execute(db);
  await sql`alter table workspaces add column queue_weight integer not null default 1`.execute(db);
  await sql`alter table workspaces add column max_running integer`.execute(db);
  await db.schema
    .createTable("workspace_queue")
    .addColumn("workspace_id", "text", (c) => c.primaryKey())
    .addColumn("last_tag", "bigint", (c) => c.notNull())
    .execute();
  // Runs already queued keep their order: their tags follow it.
  await sql.raw(`update generations set fair_tag = queue_order * ${FAIR_STEP} where status = 'queued'`).execute(db);
  await sql`insert into workspace_queue (workspace_id, last_tag) select workspace_id, max(fair_tag) + ${sql.lit(FAIR_STEP)} from generations where fair_tag is not null group by workspace_id`.execute(
    db,
  );
  // Status first though the index holds queued runs only: SQLite's planner (no statistics) then
  // takes it for "status = 'queued' order by lane, fair_tag, queue_order" instead of the
  // (status, queue_order) index and a sort.
  await sql`create index generations_fair_queue on generations (status, lane, fair_tag, queue_order) where status = 'queued'`.execute(
    db,
  );

  if (onPostgres(db)) {
    await sql
      .raw(
        `create function atelier_fair_tag() returns trigger language plpgsql as $$
        begin
          new.fair_tag := greatest(${virtualTime("least")}, ${lastTag("new.workspace_id")});
          insert into workspace_queue (workspace_id, last_tag)
            values (new.workspace_id, new.fair_tag + ${step("new.workspace_id", "greatest")})
            on conflict (workspace_id) do update set last_tag = excluded.last_tag;
          return new;
        end $$`,
      )
      .execute(db);
    await sql`create trigger generations_fair_tag before insert on generations for each row when (new.status = 'queued' and new.fair_tag is null) execute function atelier_fair_tag()`.execute(
      db,
    );
    await sql
      .raw(
        `create or replace function atelier_queue_counts() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE' and old.status = 'queued' and new.status <> 'queued' then
            ${countOut("old")}
          end if;
          if new.status = 'queued' and (tg_op = 'INSERT' or old.status <> 'queued') then
            ${countIn("new")}
          end if;
          return null;
        end $$`,
      )
      .execute(db);
  } else {
    for (const name of [
      "generations_queue_order",
      "generations_queue_counts_insert",
      "generations_queue_counts_enter",
      "generations_queue_counts_leave",
    ])
      await sql.raw(`drop trigger if exists ${name}`).execute(db);
    // One insert trigger for the order, the tag and the count, in that order (SQLite does not
    // promise an order between triggers): the row is read back for each step after the first.
    const row = "(select * from generations where rowid = new.rowid)";
    await sql
      .raw(
        `create trigger generations_queued after insert on generations begin
          update generations set
            queue_order = coalesce(new.queue_order, new.rowid),
            fair_tag = case when new.status = 'queued' and new.fair_tag is null
              then max(${virtualTime("min")}, ${lastTag("new.workspace_id")})
              else new.fair_tag end
            where rowid = new.rowid;
          insert into workspace_queue (workspace_id, last_tag)
            select g.workspace_id, g.fair_tag + ${step("g.workspace_id", "max")} from ${row} g where g.status = 'queued'
            on conflict (workspace_id) do update set last_tag = excluded.last_tag;
          insert into queue_counts (bucket, queued)
            select ${bucketOf("g")}, 1 from ${row} g where g.status = 'queued'
            on conflict (bucket) do update set queued = queue_counts.queued + 1;
        end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger generations_queue_counts_enter after update of status on generations
          when new.status = 'queued' and old.status <> 'queued' begin ${countIn("new")} end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger generations_queue_counts_leave after update of status on generations
          when old.status = 'queued' and new.status <> 'queued' begin ${countOut("old")} end`,
      )
      .execute(db);
  }
  await recountQueue(db);
}

/** queue_counts made again from the queued runs, by the fair order's stretches. */
export async function recountQueue(db: Kysely<unknown>): Promise<void> {
  await sql`delete from queue_counts`.execute(db);
  await sql
    .raw(
      `insert into queue_counts (bucket, queued) select ${bucketOf("generations")}, count(*) from generations where status = 'queued' group by ${bucketOf("generations")}`,
    )
    .execute(db);
}
