// The operator principal: the one key to the readers and verbs that cross workspaces from the
// studio (lib/core/ops/ops.ts). A studio Ctx has a `db` too, so a plain `{ db }` parameter would take
// any signed-in user's context; OpsCtx carries a brand that only opsPrincipal() (a user who operates
// the install, `users.is_ops` read from the store now) can put on it. A page that forgets to ask for it does
// not compile. (The admin CLI holds the database itself and uses the SystemCtx verbs.)
import type { Db } from "../../store/database";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";

/** Never exported: nothing outside this file can name the brand, so nothing else can make one. */
declare const opsBrand: unique symbol;

export type OpsCtx = {
  readonly db: Db;
  /** Where the ops page's long reads go (Services.historyReads); absent: to `db`. */
  readonly reads?: Db;
  /** Who acts: the ops user's email, kept with a pause and written in a credit note. */
  readonly operator: string;
  /** The ops user's ID, and the address they act from: the audit events of their changes. */
  readonly operatorId: string;
  readonly ip?: string;
} & { readonly [opsBrand]: "ops" };

/** The same answer for a creator, a user that no longer exists and a malformed ID: there is no such page. */
function notFound(): ApiError {
  return new ApiError("resource_not_found", "Nothing here.");
}

/**
 * The OpsCtx of a signed-in studio user, from the user's row as the store has it now (a role
 * changed or a user deleted since sign-in counts at once). Anyone but an ops user gets
 * resource_not_found, so the studio answers 404 as for any page that is not theirs.
 */
export async function opsPrincipal(db: Db, userId: string, reads?: Db, ip?: string): Promise<OpsCtx> {
  if (!isPossibleId(userId) || !hasIdPrefix("user", userId)) throw notFound();
  const user = await db.selectFrom("users").select(["is_ops", "email"]).where("id", "=", userId).executeTakeFirst();
  if (user?.is_ops !== 1) throw notFound();
  return { db, reads, operator: user.email, operatorId: userId, ip } as OpsCtx;
}

/** Who acts, for the audit events of an ops change: the ops user, from their address. */
export function opsAuditBy(ctx: OpsCtx): { actor: { kind: "user"; id: string }; ip?: string } {
  return { actor: { kind: "user", id: ctx.operatorId }, ...(ctx.ip !== undefined && { ip: ctx.ip }) };
}
