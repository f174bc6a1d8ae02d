// Studio users: an email and a password (scrypt, salted), members of one or more workspaces
// (members.ts), and perhaps operators of the install. The admin CLI and accepted invitations
// create them; the studio's sign-in checks them. A user's password, ops flag and removal are the
// install's own audit events (no workspace); joining and leaving a workspace are that workspace's.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import type { Db, UsersTable } from "../../store/database";
import { isUniqueViolation } from "../../store/dialects";
import { withTransaction } from "../../store/writes";
import { nowIso, type SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { newId } from "../../primitives/ids";
import { endUserStudioSessions } from "./studio-sessions";
import { findWorkspace } from "./workspaces";
import { normalEmail, parseEmail } from "./emails";
import { insertMembership, memberLeft, ownerCount, revokeKeysMadeBy } from "./members";
import { parseMemberRole, type MemberRole } from "./roles";
import { fromTo, recordAudit, type AuditBy } from "../audit/audit-writer";

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number },
) => Promise<Buffer>;
const N = 16384;
export interface User {
  id: string;
  object: "user";
  email: string;
  /** Operates the install: every workspace, models, credit grants. */
  ops: boolean;
  /** The workspace a new sign-in opens (the last one the user switched to). */
  workspace_id: string;
  memberships: { workspace_id: string; role: MemberRole }[];
  created_at: string;
}

async function present(db: Db, row: UsersTable): Promise<User> {
  return presentWith(row, await membershipsOf(db, row.id));
}

/** One user's memberships, or (null) every user's in one query; oldest first. */
async function membershipsOf(db: Db, userId: string | null) {
  let query = db.selectFrom("memberships").select(["user_id", "workspace_id", "role"]);
  if (userId !== null) query = query.where("user_id", "=", userId);
  return query.orderBy("created_at").orderBy("workspace_id").execute();
}

function presentWith(row: UsersTable, all: { user_id: string; workspace_id: string; role: MemberRole }[]): User {
  const memberships = all.filter((m) => m.user_id === row.id).map(({ workspace_id, role }) => ({ workspace_id, role }));
  return {
    id: row.id,
    object: "user",
    email: row.email,
    ops: row.is_ops === 1,
    workspace_id: row.workspace_id,
    memberships,
    created_at: row.created_at,
  };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { N });
  return `scrypt$${N}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [kind, n, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !n || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64"), expected.length, { N: Number(n) });
  return timingSafeEqual(actual, expected);
}

const MIN_PASSWORD_LENGTH = 8;

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError("invalid_parameter", `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`, {
      param: "password",
    });
  }
}

/** A new random password: 12 characters of base64url (letters, digits, - and _), for a person who lost theirs (or the demo login). */
export function generatePassword(): string {
  return randomBytes(9).toString("base64url");
}

/**
 * A new user with a password, a member of one workspace with `role`; `ops` also operates the install.
 * `audit` names who does it (absent: the first start's demo login, lib/boot/boot.ts, not audited).
 */
export async function createUser(
  ctx: SystemCtx,
  input: { email: string; password: string; workspaceId: string; role: unknown; ops?: boolean; audit?: AuditBy },
): Promise<User> {
  const email = parseEmail(input.email);
  checkPassword(input.password);
  const role = parseMemberRole(input.role);
  if (!(await findWorkspace(ctx, input.workspaceId))) {
    throw new ApiError("invalid_parameter", `No workspace ${input.workspaceId}. "workspace list" shows them.`, {
      param: "workspace",
    });
  }
  const row: UsersTable = {
    id: newId("user"),
    email,
    password_hash: await hashPassword(input.password),
    workspace_id: input.workspaceId,
    is_ops: input.ops ? 1 : 0,
    created_at: nowIso(),
  };
  try {
    await withTransaction(ctx.db, async (trx) => {
      await trx.insertInto("users").values(row).execute();
      await insertMembership(trx, { workspaceId: input.workspaceId, userId: row.id, role });
      if (input.audit)
        await recordAudit(trx, input.audit, {
          workspaceId: input.workspaceId,
          action: "member.added",
          target: { type: "user", id: row.id },
          changes: { email, role: fromTo(null, role), new_user: true, ops: row.is_ops === 1 },
        });
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError("invalid_parameter", `A user with the email ${email} already exists.`, { param: "email" });
    throw err;
  }
  return present(ctx.db, row);
}

/** The row for a normalised email; an email no user can have (NUL, too long) finds none without a query. */
async function userRowByEmail(ctx: SystemCtx, raw: string): Promise<UsersTable | undefined> {
  const email = normalEmail(raw);
  if (email === null) return undefined;
  return ctx.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

/** The user for an email and password, or null (the same answer for an unknown email and a wrong password). */
export async function verifyUserPassword(
  ctx: SystemCtx,
  input: { email: string; password: string },
): Promise<User | null> {
  const row = await userRowByEmail(ctx, input.email);
  if (!row) {
    await hashPassword(input.password); // the same work either way, so timing does not tell which
    return null;
  }
  return (await passwordMatches(input.password, row.password_hash)) ? present(ctx.db, row) : null;
}

/** The user with this email (any case), for sign-in through an OAuth provider that verified it. */
export async function findUserByEmail(ctx: SystemCtx, email: string): Promise<User | null> {
  const row = await userRowByEmail(ctx, email);
  return row ? present(ctx.db, row) : null;
}

export async function findUser(ctx: SystemCtx, id: string): Promise<User | null> {
  const row = await ctx.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? present(ctx.db, row) : null;
}

async function userByEmail(ctx: SystemCtx, email: string): Promise<UsersTable> {
  const row = await userRowByEmail(ctx, email);
  if (!row)
    throw new ApiError("resource_not_found", `No user with the email ${email}. "user list" shows them.`, {
      param: "email",
    });
  return row;
}

/**
 * Sets a user's password (found by email, any case): the way back in for someone who lost it.
 * Every studio session of the user ends in the same transaction; the caller tells the running
 * processes (run signal `sessions_ended`) so their caches forget the user.
 */
export async function setUserPassword(
  ctx: SystemCtx,
  input: { email: string; password: string; audit: AuditBy },
): Promise<User> {
  checkPassword(input.password);
  const row = await userByEmail(ctx, input.email);
  const passwordHash = await hashPassword(input.password);
  await withTransaction(ctx.db, async (trx) => {
    await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", row.id).execute();
    await endUserStudioSessions({ db: trx }, row.id);
    await recordAudit(trx, input.audit, {
      workspaceId: null,
      action: "user.password_reset",
      target: { type: "user", id: row.id },
      changes: { email: row.email, sessions_ended: true },
    });
  });
  return present(ctx.db, row);
}

/** Makes a user an operator of the install, or no longer one; their sessions end, so it counts at once. */
export async function setUserOps(
  ctx: SystemCtx,
  input: { email: string; ops: boolean; audit: AuditBy },
): Promise<User> {
  const row = await userByEmail(ctx, input.email);
  const isOps = input.ops ? 1 : 0;
  await withTransaction(ctx.db, async (trx) => {
    await trx.updateTable("users").set({ is_ops: isOps }).where("id", "=", row.id).execute();
    await endUserStudioSessions({ db: trx }, row.id);
    await recordAudit(trx, input.audit, {
      workspaceId: null,
      action: "user.ops_changed",
      target: { type: "user", id: row.id },
      changes: { email: row.email, ops: fromTo(row.is_ops === 1, input.ops), sessions_ended: true },
    });
  });
  return present(ctx.db, { ...row, is_ops: isOps });
}

/**
 * Removes a user from the install: their sessions end, their memberships go and the keys they made
 * are revoked, in one transaction. Their runs and shares stay with the workspaces. Refused while
 * they are the last owner of a workspace (make someone else its owner first). Each workspace they
 * leave gets its `member.removed`, and the install its `user.removed`.
 */
export async function removeUser(
  ctx: SystemCtx,
  input: { email: string; audit: AuditBy },
): Promise<User & { revokedKeys: string[] }> {
  const row = await userByEmail(ctx, input.email);
  const user = await present(ctx.db, row);
  const revokedKeys = await withTransaction(ctx.db, async (trx) => {
    for (const membership of user.memberships.filter((m) => m.role === "owner")) {
      if ((await ownerCount(trx, membership.workspace_id)) <= 1)
        throw new ApiError(
          "conflict",
          `${row.email} is the last owner of ${membership.workspace_id}: make another member its owner first.`,
          { param: "email" },
        );
    }
    await endUserStudioSessions({ db: trx }, row.id);
    const revoked: string[] = [];
    for (const membership of user.memberships) {
      revoked.push(
        ...(await memberLeft(trx, input.audit, {
          workspaceId: membership.workspace_id,
          userId: row.id,
          email: row.email,
          role: membership.role,
          userRemoved: true,
        })),
      );
    }
    await trx.deleteFrom("memberships").where("user_id", "=", row.id).execute();
    // Keys in workspaces they had already left were revoked then; any other goes now.
    revoked.push(...(await revokeKeysMadeBy(trx, row.id)));
    await recordAudit(trx, input.audit, {
      workspaceId: null,
      action: "user.removed",
      target: { type: "user", id: row.id },
      changes: { email: row.email, workspaces: user.memberships.map((m) => m.workspace_id), keys_revoked: revoked },
    });
    await trx.deleteFrom("users").where("id", "=", row.id).execute();
    return revoked;
  });
  return { ...user, revokedKeys };
}

/** Every studio user with their memberships, oldest first. */
export async function listUsers(ctx: SystemCtx): Promise<User[]> {
  const rows = await ctx.db.selectFrom("users").selectAll().orderBy("created_at", "asc").orderBy("id").execute();
  const memberships = await membershipsOf(ctx.db, null);
  return rows.map((row) => presentWith(row, memberships));
}
