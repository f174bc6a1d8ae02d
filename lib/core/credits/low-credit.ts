// The low-balance alert: a threshold in US dollars under which the workspace's available balance
// writes one `credits.low` event (low-credit-alerts.ts). The balance's trigger (migration 026)
// claims it in the statement that moves the balance, once per crossing: a grant that brings
// available back to the threshold re-arms it, as does setting the threshold again, and setting one
// the balance is already under claims it in the setting's own statement. Owners and admins set and
// clear it (the admin CLI acts without a role); each change is audited in its transaction. The
// threshold is more than 0: available is never below 0, so a threshold of 0 could never fire, and
// "no alert" is clearing it.
import { ApiError } from "../../primitives/errors";
import { formatUsd, parseUsd, type Micros } from "../../primitives/money";
import type { Db } from "../../store/database";
import { onPostgres } from "../../store/dialects";
import { withTransaction } from "../../store/writes";
import type { Actor } from "../context";
import { fromTo, recordAudit } from "../audit/audit-writer";
import { requireRole, type MemberRole } from "../workspaces/roles";
import { shown } from "../budgets/budget-input";
import type { LowCreditAlert } from "./credits-shape";

export type { LowCreditAlert };

/** Who manages the alert: a member acting in the studio (role set) or the admin CLI (no role). */
export interface LowCreditCtx {
  db: Db;
  workspaceId: string;
  actor: Actor;
  role?: MemberRole;
  ip?: string;
}

const usd = (micros: Micros | null) => (micros === null ? null : formatUsd(micros));

/**
 * The threshold from any door: text or a number of US dollars, more than 0 and at most
 * 999,999,999.999999, at most 6 decimals, no sign or exponent.
 */
export function parseLowCreditThreshold(value: unknown, param = "usd"): Micros {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : null;
  const micros = text === null ? null : parseUsd(text);
  if (micros === null || micros === 0) {
    throw new ApiError(
      "invalid_parameter",
      `${param} must be an amount in US dollars such as 5 or 12.50: more than 0 and at most 999999999.999999, at most 6 decimals, no sign` +
        `${micros === 0 ? " (to turn the alert off, clear it)" : ""}; got ${value === undefined ? "nothing" : shown(value)}.`,
      { param },
    );
  }
  return micros;
}

/** The threshold as the store gives it (a bigint may come back as text). */
const thresholdOf = (row: { low_credit_micros: number | string | null }) =>
  row.low_credit_micros === null ? null : Number(row.low_credit_micros);

/** The balance's threshold, its row locked until the transaction ends (PostgreSQL; SQLite's writers take turns). */
async function lockedThreshold(trx: Db, workspaceId: string): Promise<Micros | null> {
  const query = trx.selectFrom("credit_balances").select("low_credit_micros").where("workspace_id", "=", workspaceId);
  const row = await (onPostgres(trx) ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No workspace ${workspaceId}.`, { param: "workspace" });
  return thresholdOf(row);
}

/**
 * The workspace's threshold and whether its available balance is under it (the studio's banner,
 * the Budgets page, the admin CLI's `budget list`). Like the balance itself, every member may read
 * it: the doors pass the workspace of the signed-in member or the CLI's.
 */
export async function readLowCreditAlert(ctx: Pick<LowCreditCtx, "db" | "workspaceId">): Promise<LowCreditAlert> {
  const row = await ctx.db
    .selectFrom("credit_balances")
    .select(["available_micros", "low_credit_micros"])
    .where("workspace_id", "=", ctx.workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No workspace ${ctx.workspaceId}.`, { param: "workspace" });
  const available = Number(row.available_micros);
  const threshold = thresholdOf(row);
  return {
    object: "low_credit_alert",
    threshold_usd: usd(threshold),
    available_usd: formatUsd(available),
    under: threshold !== null && available < threshold,
  };
}

/** Writes the threshold (null: none) armed, audited as set or cleared; answers the alert as it is now. */
async function writeThreshold(
  trx: Db,
  ctx: LowCreditCtx,
  change: { before: number | null; after: number | null },
): Promise<LowCreditAlert> {
  await trx
    .updateTable("credit_balances")
    .set({ low_credit_micros: change.after, low_credit_armed: 1 })
    .where("workspace_id", "=", ctx.workspaceId)
    .execute();
  await recordAudit(trx, ctx, {
    workspaceId: ctx.workspaceId,
    action: change.after === null ? "credit.low_threshold_cleared" : "credit.low_threshold_set",
    target: { type: "workspace", id: ctx.workspaceId },
    changes: { threshold_usd: fromTo(usd(change.before), usd(change.after)) },
  });
  return readLowCreditAlert({ db: trx, workspaceId: ctx.workspaceId });
}

/**
 * Sets the threshold and arms the alert: when the available balance is already under it, this
 * statement claims the alert (its event follows on the webhook sender's next turn), even when the
 * same threshold had fired before.
 */
export async function setLowCreditAlert(ctx: LowCreditCtx, input: { usd?: unknown }): Promise<LowCreditAlert> {
  requireRole(ctx, "admin", "set the low-balance alert");
  const given = input !== null && typeof input === "object" && Object.hasOwn(input, "usd") ? input.usd : undefined;
  const threshold = parseLowCreditThreshold(given);
  return withTransaction(ctx.db, async (trx) => {
    const before = await lockedThreshold(trx, ctx.workspaceId);
    return writeThreshold(trx, ctx, { before, after: threshold });
  });
}

/** Clears the threshold: no more alerts. A claim made before is still announced. */
export async function clearLowCreditAlert(ctx: LowCreditCtx): Promise<LowCreditAlert> {
  requireRole(ctx, "admin", "clear the low-balance alert");
  return withTransaction(ctx.db, async (trx) => {
    const before = await lockedThreshold(trx, ctx.workspaceId);
    if (before === null) {
      throw new ApiError("resource_not_found", "This workspace has no low-balance alert to clear.", {
        param: "workspace",
      });
    }
    return writeThreshold(trx, ctx, { before, after: null });
  });
}
