// The queue by workspace, for the ops page (issue 38): each workspace with runs waiting or
// running, its weight and cap (migration 030), what it runs now and its share of everything
// running, and what waits in each lane. One grouped read over the queued and running runs only.
import { sql } from "kysely";
import type { OpsCtx } from "./ops-principal";

export interface QueueShare {
  workspace_id: string;
  workspace_name: string;
  weight: number;
  /** null: no cap. */
  max_running: number | null;
  running: number;
  /** Its running runs over all running runs, 0 to 1 (0 when nothing runs). */
  share: number;
  waiting_interactive: number;
  waiting_bulk: number;
}

export async function opsQueueShares(ctx: OpsCtx): Promise<QueueShare[]> {
  const reads = ctx.reads ?? ctx.db;
  const rows = await reads
    .selectFrom("generations as g")
    .innerJoin("workspaces as w", "w.id", "g.workspace_id")
    .select([
      "g.workspace_id",
      "w.name",
      "w.queue_weight",
      "w.max_running",
      sql<number>`sum(case when g.status = 'running' then 1 else 0 end)`.as("running"),
      sql<number>`sum(case when g.status = 'queued' and g.lane = 0 then 1 else 0 end)`.as("interactive"),
      sql<number>`sum(case when g.status = 'queued' and g.lane <> 0 then 1 else 0 end)`.as("bulk"),
    ])
    .where("g.status", "in", ["queued", "running"])
    .groupBy(["g.workspace_id", "w.name", "w.queue_weight", "w.max_running"])
    .execute();
  const allRunning = rows.reduce((sum, r) => sum + Number(r.running), 0);
  return rows
    .map((r) => ({
      workspace_id: r.workspace_id,
      workspace_name: r.name,
      weight: Number(r.queue_weight),
      max_running: r.max_running === null ? null : Number(r.max_running),
      running: Number(r.running),
      share: allRunning === 0 ? 0 : Number(r.running) / allRunning,
      waiting_interactive: Number(r.interactive),
      waiting_bulk: Number(r.bulk),
    }))
    .sort(
      (a, b) =>
        b.waiting_interactive + b.waiting_bulk - (a.waiting_interactive + a.waiting_bulk) ||
        b.running - a.running ||
        a.workspace_name.localeCompare(b.workspace_name),
    );
}
