// A workspace's members: who belongs, with which role. Owners and admins manage them (the studio's
// Members page, the admin CLI), under rules kept here: an admin manages members below owner, only
// an owner makes or unmakes owners, and a workspace always keeps at least one owner. Removing a
// member or changing their role ends every studio session of theirs in the same transaction (the
// caller then signals `sessions_ended`, so every process's caches forget them); a removed member's
// keys in that workspace are revoked with it. Each change writes its audit event in its transaction.
import type { Db, MembershipsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import { nowIso, type Actor } from "../context";
import { endUserStudioSessions } from "./studio-sessions";
import { parseMemberRole, requireRole, type MemberRole } from "./roles";
import { normalEmail } from "./emails";
import { fromTo, recordAudit, type AuditBy } from "../audit/audit-writer";

/** Who manages the members: a member acting in the studio (role set) or the admin CLI (no role). */
export interface MembersCtx {
  db: Db;
  workspaceId: string;
  actor: Actor;
  role?: MemberRole;
  /** Where the change comes from, for its audit event (Ctx.ip). */
  ip?: string;
}

export interface Member {
  object: "member";
  user_id: string;
  email: string;
  role: MemberRole;
  joined_at: string;
  last_seen_at: string | null;
}

function present(row: MembershipsTable & { email: string }): Member {
  return {
    object: "member",
    user_id: row.user_id,
    email: row.email,
    role: row.role,
    joined_at: row.created_at,
    last_seen_at: row.last_seen_at,
  };
}

function membershipRows(db: Db, workspaceId: string) {
  return db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .selectAll("memberships")
    .select("users.email")
    .where("memberships.workspace_id", "=", workspaceId);
}

/** The workspace's members, owners first, then by when they joined. */
export async function listMembers(ctx: MembersCtx): Promise<Member[]> {
  requireRole(ctx, "admin", "see the members");
  const rows = await membershipRows(ctx.db, ctx.workspaceId).orderBy("memberships.created_at").execute();
  const order: Record<MemberRole, number> = { owner: 0, admin: 1, creator: 2, viewer: 3 };
  return rows.map(present).sort((a, b) => order[a.role] - order[b.role]);
}

/** One member, found by user ID or email; another workspace's member is not found. */
export async function memberRow(db: Db, workspaceId: string, who: { userId?: string; email?: string }) {
  let query = membershipRows(db, workspaceId);
  if (who.userId !== undefined) {
    if (!isPossibleId(who.userId) || !hasIdPrefix("user", who.userId)) return undefined;
    query = query.where("memberships.user_id", "=", who.userId);
  } else {
    const email = normalEmail(who.email ?? "");
    if (email === null) return undefined;
    query = query.where("users.email", "=", email);
  }
  return query.executeTakeFirst();
}

function notAMember(who: { userId?: string; email?: string }): ApiError {
  return new ApiError("resource_not_found", `No member ${who.email ?? who.userId} in this workspace.`, {
    param: who.email !== undefined ? "email" : "user_id",
  });
}

/** An admin changes members below owner; owners, and making someone an owner, take an owner. */
export function checkMayChange(ctx: MembersCtx, currentRole: MemberRole | null, newRole: MemberRole | null): void {
  requireRole(ctx, "admin", "manage members");
  if (currentRole === "owner") requireRole(ctx, "owner", "change or remove an owner");
  if (newRole === "owner") requireRole(ctx, "owner", "make someone an owner");
}

export async function ownerCount(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom("memberships")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_id", "=", workspaceId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function lastOwner(): ApiError {
  return new ApiError(
    "conflict",
    "A workspace keeps at least one owner: make another member an owner first, then change this one.",
  );
}

/** Adds an existing user to the workspace (the admin CLI; the studio invites instead). */
export async function addMember(ctx: MembersCtx, input: { email: string; role: unknown }): Promise<Member> {
  const role = parseMemberRole(input.role);
  checkMayChange(ctx, null, role);
  const email = normalEmail(input.email);
  const user =
    email === null
      ? undefined
      : await ctx.db.selectFrom("users").select(["id", "email"]).where("email", "=", email).executeTakeFirst();
  if (!user)
    throw new ApiError("resource_not_found", `No user with the email ${input.email}. Invite them instead.`, {
      param: "email",
    });
  const row: MembershipsTable = {
    workspace_id: ctx.workspaceId,
    user_id: user.id,
    role,
    created_at: nowIso(),
    last_seen_at: null,
  };
  await withTransaction(ctx.db, async (trx) => {
    const existing = await trx
      .selectFrom("memberships")
      .select("role")
      .where("workspace_id", "=", ctx.workspaceId)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (existing)
      throw new ApiError("conflict", `${user.email} is already a member (${existing.role}).`, { param: "email" });
    await trx.insertInto("memberships").values(row).execute();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "member.added",
      target: { type: "user", id: user.id },
      changes: { email: user.email, role: fromTo(null, role) },
    });
  });
  return present({ ...row, email: user.email });
}

/** Joins a user to a workspace inside the caller's transaction (an accepted invitation, a new user). */
export async function insertMembership(db: Db, input: { workspaceId: string; userId: string; role: MemberRole }) {
  await db
    .insertInto("memberships")
    .values({
      workspace_id: input.workspaceId,
      user_id: input.userId,
      role: input.role,
      created_at: nowIso(),
      last_seen_at: null,
    })
    .execute();
}

/** Gives a member another role; their sessions end, so every page they have open asks again. */
export async function setMemberRole(
  ctx: MembersCtx,
  input: { userId?: string; email?: string; role: unknown },
): Promise<Member> {
  const role = parseMemberRole(input.role);
  return withTransaction(ctx.db, async (trx) => {
    const row = await memberRow(trx, ctx.workspaceId, input);
    if (!row) throw notAMember(input);
    checkMayChange(ctx, row.role, role);
    if (row.role === "owner" && role !== "owner" && (await ownerCount(trx, ctx.workspaceId)) <= 1) throw lastOwner();
    await trx
      .updateTable("memberships")
      .set({ role })
      .where("workspace_id", "=", ctx.workspaceId)
      .where("user_id", "=", row.user_id)
      .execute();
    await endUserStudioSessions({ db: trx }, row.user_id);
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "member.role_changed",
      target: { type: "user", id: row.user_id },
      changes: { email: row.email, role: fromTo<MemberRole>(row.role, role), sessions_ended: true },
    });
    return present({ ...row, role });
  });
}

/**
 * Removes a member: their sessions end and the keys they made here are revoked, in one
 * transaction. Their runs, files and share links stay with the workspace. Answers the keys revoked,
 * so the caller can tell every process's key cache.
 */
export async function removeMember(
  ctx: MembersCtx,
  input: { userId?: string; email?: string },
): Promise<{ member: Member; revokedKeys: string[] }> {
  return withTransaction(ctx.db, async (trx) => {
    const row = await memberRow(trx, ctx.workspaceId, input);
    if (!row) throw notAMember(input);
    checkMayChange(ctx, row.role, null);
    if (row.role === "owner" && (await ownerCount(trx, ctx.workspaceId)) <= 1) throw lastOwner();
    await trx
      .deleteFrom("memberships")
      .where("workspace_id", "=", ctx.workspaceId)
      .where("user_id", "=", row.user_id)
      .execute();
    await endUserStudioSessions({ db: trx }, row.user_id);
    const revokedKeys = await memberLeft(trx, ctx, {
      workspaceId: ctx.workspaceId,
      userId: row.user_id,
      email: row.email,
      role: row.role,
    });
    return { member: present(row), revokedKeys };
  });
}

/**
 * What leaving a workspace does besides the membership row (removeMember; removeUser, for each
 * workspace): the keys the member made there are revoked, and the audit event says so. Answers the
 * revoked keys' IDs. The caller has ended the user's sessions in the same transaction.
 */
export async function memberLeft(
  trx: Db,
  by: AuditBy,
  member: { workspaceId: string; userId: string; email: string; role: MemberRole; userRemoved?: boolean },
): Promise<string[]> {
  const revokedKeys = await revokeKeysMadeBy(trx, member.userId, member.workspaceId);
  await recordAudit(trx, by, {
    workspaceId: member.workspaceId,
    action: "member.removed",
    target: { type: "user", id: member.userId },
    changes: {
      email: member.email,
      role: fromTo<MemberRole | null>(member.role, null),
      keys_revoked: revokedKeys,
      sessions_ended: true,
      ...(member.userRemoved && { user_removed: true }),
    },
  });
  return revokedKeys;
}

/** Revokes the live keys a user made (in one workspace, or everywhere), inside the caller's transaction. */
export async function revokeKeysMadeBy(db: Db, userId: string, workspaceId?: string): Promise<string[]> {
  let update = db
    .updateTable("api_keys")
    .set({ revoked_at: nowIso() })
    .where("created_by", "=", userId)
    .where("revoked_at", "is", null);
  if (workspaceId !== undefined) update = update.where("workspace_id", "=", workspaceId);
  return (await update.returning("id").execute()).map((key) => key.id);
}

/** A user's role in a workspace, read now; null when they are not a member. */
export async function memberRole(db: Db, workspaceId: string, userId: string): Promise<MemberRole | null> {
  const row = await db
    .selectFrom("memberships")
    .select("role")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

export interface UserWorkspace {
  id: string;
  name: string;
  role: MemberRole;
}

/** The workspaces a user belongs to, by name: the studio's workspace switcher. */
export async function listUserWorkspaces(db: Db, userId: string): Promise<UserWorkspace[]> {
  return db
    .selectFrom("memberships")
    .innerJoin("workspaces", "workspaces.id", "memberships.workspace_id")
    .select(["workspaces.id", "workspaces.name", "memberships.role"])
    .where("memberships.user_id", "=", userId)
    .orderBy("workspaces.name")
    .orderBy("workspaces.id")
    .execute();
}

/** Whether creators may make API keys of their own here. */
export async function creatorKeysAllowed(db: Db, workspaceId: string): Promise<boolean> {
  const row = await db.selectFrom("workspaces").select("creator_keys").where("id", "=", workspaceId).executeTakeFirst();
  return row?.creator_keys === 1;
}

/** Lets creators make API keys of their own, or no longer (owners and admins). */
export async function setCreatorKeys(ctx: MembersCtx, input: { allowed: unknown }): Promise<boolean> {
  requireRole(ctx, "admin", "decide who makes API keys");
  if (typeof input.allowed !== "boolean")
    throw new ApiError("invalid_parameter", "allowed is true or false.", { param: "allowed" });
  const allowed = input.allowed;
  await withTransaction(ctx.db, async (trx) => {
    const before = await creatorKeysAllowed(trx, ctx.workspaceId);
    await trx
      .updateTable("workspaces")
      .set({ creator_keys: allowed ? 1 : 0 })
      .where("id", "=", ctx.workspaceId)
      .execute();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "workspace.creator_keys_changed",
      target: { type: "workspace", id: ctx.workspaceId },
      changes: { creator_keys: fromTo(before, allowed) },
    });
  });
  return allowed;
}

/** Who is in the workspace, for the filters any member uses (runs started by…): IDs and emails only. */
export async function memberDirectory(
  ctx: Pick<MembersCtx, "db" | "workspaceId">,
): Promise<{ id: string; email: string }[]> {
  return ctx.db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .select(["users.id", "users.email"])
    .where("memberships.workspace_id", "=", ctx.workspaceId)
    .orderBy("users.email")
    .execute();
}
