// The operator's view across every workspace: the latest runs, the queue depth and the recent
// throughput. Only the studio's ops page calls it, after checking the user's role.
import type { GenerationStatus } from "../store/database";
import type { SystemCtx } from "./context";

export interface OpsRun {
  id: string;
  workspace_id: string;
  workspace_name: string;
  model: string;
  status: GenerationStatus;
  error_message: string | null;
  created_at: string;
}

export interface OpsOverview {
  runs: OpsRun[];
  queued: number;
  running: number;
  created_last_minute: number;
}

/** Narrows the runs list; the queue figures always count every workspace. */
export interface OpsRunFilter {
  workspaceId?: string;
  status?: GenerationStatus;
  model?: string;
}

export async function opsOverview(ctx: SystemCtx, options: { limit?: number; now?: Date; filter?: OpsRunFilter } = {}): Promise<OpsOverview> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const since = new Date((options.now ?? new Date()).getTime() - 60_000).toISOString();
  const filter = options.filter ?? {};
  const [runs, counts, recent] = await Promise.all([
    ctx.db
      .selectFrom("generations")
      .$if(!!filter.workspaceId, (q) => q.where("generations.workspace_id", "=", filter.workspaceId!))
      .$if(!!filter.status, (q) => q.where("generations.status", "=", filter.status!))
      .$if(!!filter.model, (q) => q.where("generations.model", "=", filter.model!))
      .innerJoin("workspaces", "workspaces.id", "generations.workspace_id")
      .select([
        "generations.id",
        "generations.workspace_id",
        "workspaces.name as workspace_name",
        "generations.model",
        "generations.status",
        "generations.error_message",
        "generations.created_at",
      ])
      .orderBy("generations.created_at", "desc")
      .orderBy("generations.id", "desc")
      .limit(limit)
      .execute(),
    ctx.db
      .selectFrom("generations")
      .select((eb) => ["status", eb.fn.countAll<number>().as("n")])
      .where("status", "in", ["queued", "running"])
      .groupBy("status")
      .execute(),
    ctx.db
      .selectFrom("generations")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("created_at", ">=", since)
      .executeTakeFirstOrThrow(),
  ]);
  const count = (status: GenerationStatus) => Number(counts.find((c) => c.status === status)?.n ?? 0);
  return { runs, queued: count("queued"), running: count("running"), created_last_minute: Number(recent.n) };
}

export interface FailureReason {
  /** The failed runs' error message, word for word; null when a run failed without one. */
  message: string | null;
  count: number;
  /** How many workspaces saw it: one workspace's bad input, or everyone's outage? */
  workspaces: number;
  last_failed_at: string;
}

/** The last day, unless the caller says otherwise. */
export const FAILURE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Failed runs grouped by error message, most frequent first, for runs that failed within the
 * window and match the runs filter (a status filter other than "failed" matches none).
 */
export async function opsFailureReasons(
  ctx: SystemCtx,
  options: { filter?: OpsRunFilter; now?: Date; windowMs?: number; limit?: number } = {},
): Promise<FailureReason[]> {
  const filter = options.filter ?? {};
  if (filter.status && filter.status !== "failed") return [];
  const since = new Date((options.now ?? new Date()).getTime() - (options.windowMs ?? FAILURE_WINDOW_MS)).toISOString();
  const limit = Math.min(Math.max(options.limit ?? 20, 1), 100);
  const rows = await ctx.db
    .selectFrom("generations")
    .where("status", "=", "failed")
    .where("completed_at", ">=", since)
    .$if(!!filter.workspaceId, (q) => q.where("workspace_id", "=", filter.workspaceId!))
    .$if(!!filter.model, (q) => q.where("model", "=", filter.model!))
    .select((eb) => [
      "error_message",
      eb.fn.countAll<number | string>().as("n"),
      eb.fn.count<number | string>("workspace_id").distinct().as("workspaces"),
      eb.fn.max("completed_at").as("last"),
    ])
    .groupBy("error_message")
    .orderBy("n", "desc")
    .orderBy("last", "desc")
    .orderBy("error_message")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ message: r.error_message, count: Number(r.n), workspaces: Number(r.workspaces), last_failed_at: String(r.last) }));
}
