// Studio users: an email and a password (scrypt, salted) in one workspace, as a creator or ops.
// The admin CLI creates them; the studio's sign-in checks them.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import type { UsersTable } from "../../store/database";
import { isUniqueViolation } from "../../store/dialects";
import { withTransaction } from "../../store/writes";
import { nowIso, type SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { newId } from "../../primitives/ids";
import { endUserStudioSessions } from "./studio-sessions";
import { findWorkspace } from "./workspaces";

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number },
) => Promise<Buffer>;
const N = 16384;
export const ROLES = ["creator", "ops"] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: string;
  object: "user";
  email: string;
  workspace_id: string;
  role: Role;
  created_at: string;
}

function present(row: UsersTable): User {
  return {
    id: row.id,
    object: "user",
    email: row.email,
    workspace_id: row.workspace_id,
    role: row.role,
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

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError("invalid_parameter", `--password must be at least ${MIN_PASSWORD_LENGTH} characters long.`, {
      param: "password",
    });
  }
}

/** A new random password: 12 characters of base64url (letters, digits, - and _), for a person who lost theirs (or the demo login). */
export function generatePassword(): string {
  return randomBytes(9).toString("base64url");
}

export async function createUser(
  ctx: SystemCtx,
  input: { email: string; password: string; workspaceId: string; role: string },
): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    throw new ApiError("invalid_parameter", `--email must be an email address; got "${input.email}".`, {
      param: "email",
    });
  }
  checkPassword(input.password);
  if (!(ROLES as readonly string[]).includes(input.role)) {
    throw new ApiError("invalid_parameter", `--role must be creator or ops; got "${input.role}".`, { param: "role" });
  }
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
    role: input.role as Role,
    created_at: nowIso(),
  };
  try {
    await ctx.db.insertInto("users").values(row).execute();
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError("invalid_parameter", `A user with the email ${email} already exists.`, { param: "email" });
    throw err;
  }
  return present(row);
}

/** The row for a normalised email; an email no user can have (NUL, too long) finds none without a query. */
async function userRowByEmail(ctx: SystemCtx, email: string): Promise<UsersTable | undefined> {
  if (email.length === 0 || email.length > 254 || email.includes("\u0000")) return undefined;
  return ctx.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

/** The user for an email and password, or null (the same answer for an unknown email and a wrong password). */
export async function verifyUserPassword(
  ctx: SystemCtx,
  input: { email: string; password: string },
): Promise<User | null> {
  const row = await userRowByEmail(ctx, input.email.trim().toLowerCase());
  if (!row) {
    await hashPassword(input.password); // the same work either way, so timing does not tell which
    return null;
  }
  return (await passwordMatches(input.password, row.password_hash)) ? present(row) : null;
}

/** The user with this email (any case), for sign-in through an OAuth provider that verified it. */
export async function findUserByEmail(ctx: SystemCtx, email: string): Promise<User | null> {
  const row = await userRowByEmail(ctx, email.trim().toLowerCase());
  return row ? present(row) : null;
}

export async function findUser(ctx: SystemCtx, id: string): Promise<User | null> {
  const row = await ctx.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? present(row) : null;
}

async function userByEmail(ctx: SystemCtx, rawEmail: string): Promise<UsersTable> {
  const email = rawEmail.trim().toLowerCase();
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
export async function setUserPassword(ctx: SystemCtx, input: { email: string; password: string }): Promise<User> {
  checkPassword(input.password);
  const row = await userByEmail(ctx, input.email);
  const passwordHash = await hashPassword(input.password);
  await withTransaction(ctx.db, async (trx) => {
    await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", row.id).execute();
    await endUserStudioSessions({ db: trx }, row.id);
  });
  return present(row);
}

/** Changes a user's role; their sessions end, so the next sign-in carries the new role everywhere. */
export async function setUserRole(ctx: SystemCtx, input: { email: string; role: string }): Promise<User> {
  if (!(ROLES as readonly string[]).includes(input.role)) {
    throw new ApiError("invalid_parameter", `--role must be creator or ops; got "${input.role}".`, { param: "role" });
  }
  const role = input.role as Role;
  const row = await userByEmail(ctx, input.email);
  await withTransaction(ctx.db, async (trx) => {
    await trx.updateTable("users").set({ role }).where("id", "=", row.id).execute();
    await endUserStudioSessions({ db: trx }, row.id);
  });
  return present({ ...row, role });
}

/** Removes a studio user and ends their sessions. Their runs and shares stay with the workspace. */
export async function removeUser(ctx: SystemCtx, input: { email: string }): Promise<User> {
  const row = await userByEmail(ctx, input.email);
  await withTransaction(ctx.db, async (trx) => {
    await endUserStudioSessions({ db: trx }, row.id);
    await trx.deleteFrom("users").where("id", "=", row.id).execute();
  });
  return present(row);
}

/** Every studio user, oldest first. */
export async function listUsers(ctx: SystemCtx): Promise<User[]> {
  const rows = await ctx.db.selectFrom("users").selectAll().orderBy("created_at", "asc").orderBy("id").execute();
  return rows.map(present);
}
