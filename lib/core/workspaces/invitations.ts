// Invitations: how a person joins a workspace. An owner or admin (or the admin CLI, or ops making a
// workspace) invites an email with a role; the link is shown once to the inviter and, with SMTP_URL
// set, mailed. The token is 32 random bytes kept only as its SHA-256 hash; it is single-use (the
// accepting update claims it), revocable and expires after INVITATION_DAYS. Accepting as a new
// person sets a name and a password; a signed-in person must be signed in with the invited email.
// A used, revoked, expired or unknown link reads the same: one plain message.
import { createHash, randomBytes } from "node:crypto";
import type { Db, InvitationsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId, newId } from "../../primitives/ids";
import { parseEmail } from "./emails";
import { checkMayChange, insertMembership, type MembersCtx } from "./members";
import { parseMemberRole, requireRole, type MemberRole } from "./roles";
import { checkPassword, hashPassword } from "./users";
import { fromTo, recordAudit } from "../audit/audit-writer";

export const INVITATION_DAYS = 7;
/** 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const NAME_MAX = 100;

export interface Invitation {
  id: string;
  object: "invitation";
  workspace_id: string;
  email: string;
  role: MemberRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export type CreatedInvitation = Invitation & { token: string; path: string };

function present(row: InvitationsTable): Invitation {
  return {
    id: row.id,
    object: "invitation",
    workspace_id: row.workspace_id,
    email: row.email,
    role: row.role,
    invited_by: row.invited_by,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The studio path that accepts a token. */
export function invitationPath(token: string): string {
  return `/invite/${token}`;
}

/**
 * Invites an email to the workspace with a role: admins invite below owner, owners anyone. A new
 * invitation for the same email replaces a pending one; a member already there is a conflict.
 */
export async function createInvitation(
  ctx: MembersCtx,
  input: { email: unknown; role: unknown },
  now = new Date(),
): Promise<CreatedInvitation> {
  const email = parseEmail(input.email);
  const role = parseMemberRole(input.role);
  checkMayChange(ctx, null, role);
  const token = randomBytes(32).toString("base64url");
  const row: InvitationsTable = {
    id: newId("invitation"),
    workspace_id: ctx.workspaceId,
    email,
    role,
    token_hash: tokenHash(token),
    invited_by: ctx.actor.kind === "user" ? ctx.actor.id : null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_DAYS * 86_400_000).toISOString(),
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
  };
  await withTransaction(ctx.db, async (trx) => {
    const member = await trx
      .selectFrom("memberships")
      .innerJoin("users", "users.id", "memberships.user_id")
      .select("memberships.role")
      .where("memberships.workspace_id", "=", ctx.workspaceId)
      .where("users.email", "=", email)
      .executeTakeFirst();
    if (member) throw new ApiError("conflict", `${email} is already a member (${member.role}).`, { param: "email" });
    await pendingOf(trx, ctx.workspaceId, now).where("email", "=", email).set({ revoked_at: row.created_at }).execute();
    await trx.insertInto("invitations").values(row).execute();
    // The token is never recorded; the invitation's ID says which one.
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "member.invited",
      target: { type: "invitation", id: row.id },
      changes: { email, role },
    });
  });
  return { ...present(row), token, path: invitationPath(token) };
}

function pendingOf(db: Db, workspaceId: string, now: Date) {
  return db
    .updateTable("invitations")
    .where("workspace_id", "=", workspaceId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now.toISOString());
}

/** The workspace's pending invitations, newest first (owners and admins). */
export async function listInvitations(ctx: MembersCtx, now = new Date()): Promise<Invitation[]> {
  requireRole(ctx, "admin", "see invitations");
  const rows = await ctx.db
    .selectFrom("invitations")
    .selectAll()
    .where("workspace_id", "=", ctx.workspaceId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now.toISOString())
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(200)
    .execute();
  return rows.map(present);
}

/** Revokes a pending invitation; another workspace's, or one no longer pending, is not found. */
export async function revokeInvitation(ctx: MembersCtx, input: { id: unknown }, now = new Date()): Promise<Invitation> {
  requireRole(ctx, "admin", "revoke invitations");
  const id = input.id;
  const notFound = () => new ApiError("resource_not_found", "No pending invitation with this id.", { param: "id" });
  if (typeof id !== "string" || !isPossibleId(id) || !hasIdPrefix("invitation", id)) throw notFound();
  // Checked before anything changes: an admin cannot revoke an owner's invitation.
  return withTransaction(ctx.db, async (trx) => {
    const pending = await trx
      .selectFrom("invitations")
      .select(["role", "email"])
      .where("id", "=", id)
      .where("workspace_id", "=", ctx.workspaceId)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
    if (!pending) throw notFound();
    checkMayChange(ctx, pending.role, null);
    const row = await pendingOf(trx, ctx.workspaceId, now)
      .where("id", "=", id)
      .set({ revoked_at: now.toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "member.invitation_revoked",
      target: { type: "invitation", id },
      changes: { email: pending.email, role: pending.role },
    });
    return present(row);
  });
}

/** What the accept page shows of a live invitation. */
export interface InvitationView {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
  /** Whether a user with this email exists already (they sign in to accept, rather than sign up). */
  userExists: boolean;
}

/** The one answer for a token that leads nowhere: used, revoked, expired, unknown or malformed. */
export function deadInvitation(): ApiError {
  return new ApiError(
    "gone",
    "This invitation can no longer be used: it was used, revoked or has expired. Ask for a new one.",
  );
}

/** The live invitation a token opens, or the one plain refusal. */
export async function readInvitation(db: Db, token: unknown, now = new Date()): Promise<InvitationView> {
  if (typeof token !== "string" || !TOKEN.test(token)) throw deadInvitation();
  const row = await db
    .selectFrom("invitations")
    .innerJoin("workspaces", "workspaces.id", "invitations.workspace_id")
    .selectAll("invitations")
    .select("workspaces.name as workspace_name")
    .where("token_hash", "=", tokenHash(token))
    .executeTakeFirst();
  if (!row || row.accepted_at !== null || row.revoked_at !== null || row.expires_at <= now.toISOString())
    throw deadInvitation();
  const user = await db.selectFrom("users").select("id").where("email", "=", row.email).executeTakeFirst();
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    email: row.email,
    role: row.role,
    expiresAt: row.expires_at,
    userExists: user !== undefined,
  };
}

/**
 * Accepts an invitation, once. A signed-in user (`signedIn`) joins with the role when signed in
 * with the invited email; anyone else is refused. Without a sign-in, a new person gives a name and
 * a password and becomes a user; an email that has an account already must sign in first.
 * Answers the user who joined.
 */
export async function acceptInvitation(
  db: Db,
  input: {
    token: unknown;
    signedIn?: { userId: string; email: string } | null;
    newUser?: { name: unknown; password: unknown } | null;
    /** Where the person accepts from, for the audit event. */
    ip?: string;
  },
  now = new Date(),
): Promise<{ userId: string; workspaceId: string; email: string; role: MemberRole }> {
  const view = await readInvitation(db, input.token, now);
  if (input.signedIn && input.signedIn.email !== view.email) {
    throw new ApiError(
      "permission_denied",
      `This invitation is for ${view.email}; you are signed in as ${input.signedIn.email}. Sign out, then open the link again.`,
    );
  }
  let created: { id: string; passwordHash: string; name: string } | null = null;
  if (!input.signedIn) {
    if (view.userExists)
      throw new ApiError(
        "conflict",
        `${view.email} has an account already: sign in with it, then open the link again.`,
      );
    const name = typeof input.newUser?.name === "string" ? input.newUser.name.trim() : "";
    if (name.length < 1 || name.length > NAME_MAX || /\p{Cc}/u.test(name))
      throw new ApiError("invalid_parameter", `Your name is 1 to ${NAME_MAX} characters, without control characters.`, {
        param: "name",
      });
    const password = input.newUser?.password;
    if (typeof password !== "string" || password.includes("\u0000") || password.length > 1024)
      throw new ApiError("invalid_parameter", "The password is text of at most 1024 characters.", {
        param: "password",
      });
    checkPassword(password);
    created = { id: newId("user"), passwordHash: await hashPassword(password), name };
  }
  return withTransaction(db, async (trx) => {
    // Single use: only the first accepting update finds it pending.
    const claimed = await trx
      .updateTable("invitations")
      .set({ accepted_at: now.toISOString(), accepted_by: input.signedIn?.userId ?? created!.id })
      .where("id", "=", view.id)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .returning("id")
      .executeTakeFirst();
    if (!claimed) throw deadInvitation();
    let userId: string;
    if (created) {
      userId = created.id;
      await trx
        .insertInto("users")
        .values({
          id: created.id,
          email: view.email,
          name: created.name,
          password_hash: created.passwordHash,
          workspace_id: view.workspaceId,
          is_ops: 0,
          created_at: now.toISOString(),
        })
        .execute();
    } else {
      userId = input.signedIn!.userId;
      const member = await trx
        .selectFrom("memberships")
        .select("role")
        .where("workspace_id", "=", view.workspaceId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (member) throw new ApiError("conflict", `You are a member of ${view.workspaceName} already (${member.role}).`);
    }
    await insertMembership(trx, { workspaceId: view.workspaceId, userId, role: view.role });
    await recordAudit(
      trx,
      { actor: { kind: "user", id: userId }, ip: input.ip },
      {
        workspaceId: view.workspaceId,
        action: "member.joined",
        target: { type: "user", id: userId },
        changes: { email: view.email, role: fromTo(null, view.role), invitation: view.id, new_user: created !== null },
      },
    );
    return { userId, workspaceId: view.workspaceId, email: view.email, role: view.role };
  });
}

/** The invitation's mail: who invites, to which workspace, as what, and the link. */
export function invitationMail(input: {
  email: string;
  workspaceName: string;
  role: MemberRole;
  link: string;
  inviter: string | null;
  expiresAt: string;
}): { to: string; subject: string; text: string } {
  const who = input.inviter ?? "An Atelier administrator";
  return {
    to: input.email,
    subject: `You are invited to ${input.workspaceName} on Atelier`,
    text: [
      `${who} invites you to the workspace "${input.workspaceName}" on Atelier, as ${input.role === "admin" || input.role === "owner" ? "an" : "a"} ${input.role}.`,
      "",
      `Accept here: ${input.link}`,
      "",
      `The link works once, until ${input.expiresAt.slice(0, 10)}. If you did not expect it, ignore this mail.`,
    ].join("\n"),
  };
}
