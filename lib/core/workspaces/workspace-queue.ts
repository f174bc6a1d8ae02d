// A workspace's share of the queue (issue 38; migration 030): its weight against other
// workspaces' in the fair order (2 starts about twice as many runs as 1 while both have runs
// waiting) and an optional cap on its runs running at once. Set by ops (the admin CLI, the ops
// page); audited.
import { ApiError } from "../../primitives/errors";
import { withTransaction } from "../../store/writes";
import type { SystemCtx } from "../context";
import { recordAudit, type AuditBy } from "../audit/audit-writer";

export const QUEUE_WEIGHT = { min: 1, max: 100 } as const;
export const MAX_RUNNING = { min: 1, max: 10_000 } as const;

export interface QueueSettings {
  workspace_id: string;
  weight: number;
  /** null: no cap. */
  max_running: number | null;
}

function wholeNumber(value: unknown, param: string, range: { min: number; max: number }): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < range.min || value > range.max)
    throw new ApiError(
      "invalid_parameter",
      `${param} must be a whole number from ${range.min} to ${range.max}; got ${JSON.stringify(value) ?? String(value)}.`,
      { param },
    );
  return value;
}

export async function readQueueSettings(ctx: SystemCtx, workspaceId: string): Promise<QueueSettings> {
  const row = await ctx.db
    .selectFrom("workspaces")
    .select(["id", "queue_weight", "max_running"])
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No workspace ${workspaceId}.`, { param: "workspace" });
  return {
    workspace_id: row.id,
    weight: Number(row.queue_weight),
    max_running: row.max_running === null ? null : Number(row.max_running),
  };
}

/** Changes what is given: `weight`, and `maxRunning` (null removes the cap). */
export async function setQueueSettings(
  ctx: SystemCtx,
  input: { workspaceId: string; weight?: unknown; maxRunning?: unknown; audit: AuditBy },
): Promise<QueueSettings> {
  const weight = input.weight === undefined ? undefined : wholeNumber(input.weight, "weight", QUEUE_WEIGHT);
  const maxRunning =
    input.maxRunning === undefined || input.maxRunning === null
      ? input.maxRunning
      : wholeNumber(input.maxRunning, "max_running", MAX_RUNNING);
  if (weight === undefined && maxRunning === undefined)
    throw new ApiError("invalid_parameter", "Give the weight, the cap (max_running), or both.", { param: "weight" });
  return withTransaction(ctx.db, async (trx) => {
    const before = await readQueueSettings({ db: trx }, input.workspaceId);
    await trx
      .updateTable("workspaces")
      .set({
        ...(weight !== undefined ? { queue_weight: weight } : {}),
        ...(maxRunning !== undefined ? { max_running: maxRunning } : {}),
      })
      .where("id", "=", input.workspaceId)
      .execute();
    const after = await readQueueSettings({ db: trx }, input.workspaceId);
    await recordAudit(trx, input.audit, {
      workspaceId: input.workspaceId,
      action: "workspace.queue_changed",
      target: { type: "workspace", id: input.workspaceId },
      changes: {
        weight: { from: before.weight, to: after.weight },
        max_running: { from: before.max_running, to: after.max_running },
      },
    });
    return after;
  });
}
