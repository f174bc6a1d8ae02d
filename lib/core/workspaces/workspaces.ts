import { withTransaction } from "../../store/writes";
import { requireScope, nowIso, type Ctx, type SystemCtx } from "../context";
import { grantCredit } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { newId } from "../../primitives/ids";
import type { Micros } from "../../primitives/money";
import type { Workspace } from "./workspace-shape";
import { recordAudit, type AuditBy } from "../audit/audit-writer";

export type { Workspace };

function present(row: { id: string; name: string; created_at: string }): Workspace {
  return { id: row.id, object: "workspace", name: row.name, created_at: row.created_at };
}

export function validateWorkspaceName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new ApiError("invalid_parameter", "A workspace name is 1 to 100 characters long.", { param: "name" });
  }
  return trimmed;
}

/**
 * A new workspace with its balance row, and its opening credit when given, in one transaction.
 * `audit` names who makes it (absent: the first start's demo workspace, lib/boot/boot.ts, not audited).
 */
export async function createWorkspace(
  ctx: SystemCtx,
  input: { name: string; creditMicros?: Micros; audit?: AuditBy },
): Promise<Workspace> {
  const name = validateWorkspaceName(input.name);
  const row = { id: newId("workspace"), name, created_at: nowIso() };
  await withTransaction(ctx.db, async (trx) => {
    await trx.insertInto("workspaces").values(row).execute();
    await trx
      .insertInto("credit_balances")
      .values({ workspace_id: row.id, available_micros: 0, held_micros: 0, granted_micros: 0, charged_micros: 0 })
      .execute();
    if (input.audit)
      await recordAudit(trx, input.audit, {
        workspaceId: row.id,
        action: "workspace.created",
        target: { type: "workspace", id: row.id },
        changes: { name },
      });
    if (input.creditMicros) {
      await grantCredit(
        { db: trx },
        { workspaceId: row.id, amountMicros: input.creditMicros, note: "opening credit", audit: input.audit ?? null },
      );
    }
  });
  return present(row);
}

export async function listWorkspaces(ctx: SystemCtx): Promise<Workspace[]> {
  const rows = await ctx.db.selectFrom("workspaces").selectAll().orderBy("created_at", "asc").orderBy("id").execute();
  return rows.map(present);
}

export async function countWorkspaces(ctx: SystemCtx): Promise<number> {
  const row = await ctx.db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findWorkspace(ctx: SystemCtx, id: string): Promise<Workspace | null> {
  const row = await ctx.db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? present(row) : null;
}

/** GET /v1/workspace: the workspace the caller belongs to. */
export async function getWorkspace(ctx: Ctx): Promise<Workspace> {
  requireScope(ctx, "workspace:read");
  const workspace = await findWorkspace(ctx, ctx.workspaceId);
  if (!workspace) throw new ApiError("resource_not_found", "This workspace no longer exists.");
  return workspace;
}
