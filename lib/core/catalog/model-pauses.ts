// Ops verbs: take a catalog entry out of service for a while, and put it back
// (`npm run admin -- model pause|resume`); and which entries' queued runs must wait meanwhile.
import { allCatalogEntries, findCatalogEntry } from "./catalog";
import type { SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { activePauses, availabilityOf } from "./model-availability";
import { pausesChanged } from "./pause-cache";
import type { Db } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { recordAudit, type AuditBy } from "../audit/audit-writer";

/** Catalog ids whose queued runs must wait: paused or unable to run here now. */
export async function outOfServiceModelIds(db: Db): Promise<string[]> {
  const pauses = await activePauses(db);
  return allCatalogEntries()
    .filter((definition) => availabilityOf(definition, pauses).status !== "available")
    .map((definition) => definition.id);
}

/** Admin: takes an entry out of service until `until` (ISO 8601) or until resumed. */
export async function pauseModel(
  ctx: SystemCtx,
  input: {
    modelId: string;
    until: string | null;
    reason?: string;
    /** Who pauses it, for ops; never shown to API clients. */ by?: string;
    /** Who pauses it, for the audit log (the install's own event: a pause is every workspace's). */
    audit: AuditBy;
  },
): Promise<{ model: string; until: string | null; reason: string }> {
  const { definition } = findCatalogEntry(input.modelId, "model");
  if (input.until !== null) {
    const at = Date.parse(input.until);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(input.until) || Number.isNaN(at)) {
      throw new ApiError(
        "invalid_parameter",
        `--until must be an ISO 8601 time such as 2026-12-01T09:00:00Z; got "${input.until}".`,
        { param: "until" },
      );
    }
    if (at <= Date.now()) throw new ApiError("invalid_parameter", "--until must be in the future.", { param: "until" });
  }
  const until = input.until === null ? null : new Date(input.until).toISOString();
  const reason = input.reason?.trim() || "it was paused by the operators";
  const row = {
    model_id: definition.id,
    paused_until: until,
    reason,
    created_at: new Date().toISOString(),
    paused_by: input.by ?? null,
  };
  await withTransaction(ctx.db, async (trx) => {
    await trx
      .insertInto("model_pauses")
      .values(row)
      .onConflict((oc) =>
        oc
          .column("model_id")
          .doUpdateSet({ paused_until: until, reason, created_at: row.created_at, paused_by: row.paused_by }),
      )
      .execute();
    await recordAudit(trx, input.audit, {
      workspaceId: null,
      action: "model.paused",
      target: { type: "model", id: definition.id },
      changes: { until, reason },
    });
  });
  pausesChanged(ctx.db);
  return { model: definition.id, until, reason };
}

/** Admin: puts a paused entry back in service; resuming one that is not paused is fine. */
export async function resumeModel(
  ctx: SystemCtx,
  input: { modelId: string; audit: AuditBy },
): Promise<{ model: string; resumed: boolean }> {
  const { definition } = findCatalogEntry(input.modelId, "model");
  const resumed = await withTransaction(ctx.db, async (trx) => {
    const result = await trx.deleteFrom("model_pauses").where("model_id", "=", definition.id).executeTakeFirst();
    // Resuming an entry that was not paused changes nothing, and records nothing.
    if (result.numDeletedRows === 0n) return false;
    await recordAudit(trx, input.audit, {
      workspaceId: null,
      action: "model.resumed",
      target: { type: "model", id: definition.id },
    });
    return true;
  });
  pausesChanged(ctx.db);
  return { model: definition.id, resumed };
}
