// The audit log's only delete: events older than AUDIT_RETENTION_DAYS (365 by default) go, on the
// schedule every process shares (lib/engine/audit-retention.ts).
import type { SystemCtx } from "../context";
import { LIMITS } from "../../primitives/limits";

export const AUDIT_RETENTION_DAYS = LIMITS.auditRetentionDays;

/** Deletes events older than `olderThanDays` days; answers how many. */
export async function purgeAuditEvents(
  ctx: SystemCtx,
  input: { olderThanDays?: number; now?: number } = {},
): Promise<number> {
  const days = input.olderThanDays ?? AUDIT_RETENTION_DAYS;
  const before = new Date((input.now ?? Date.now()) - days * 86_400_000).toISOString();
  const result = await ctx.db.deleteFrom("audit_events").where("created_at", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
