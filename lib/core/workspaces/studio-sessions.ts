// Studio sessions the server can end. The session cookie (next-auth's encrypted token) carries
// only a session ID; who the user is, the workspace the session is in and their role there are
// read from the store through a short per-process cache. Sign-out deletes the session; a password
// change, a role change or a removal deletes all of that user's sessions, and the `sessions_ended`
// run signal makes every process's cache forget that user at once. A session is in one workspace at
// a time (the switcher moves it); a session whose user is no longer a member there has ended.
import { randomBytes } from "node:crypto";
import type { SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import type { MemberRole } from "./roles";
import { createTtlCache } from "../../primitives/ttl-cache";

/** A session lasts this long from sign-in, however active: it never slides forward. */
export const STUDIO_SESSION_DAYS = 7;

/** 32 random bytes in base64url, as startStudioSession makes them. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** What a live session says of its user, read from the store. */
export interface SessionUser {
  id: string;
  email: string;
  /** The user's role in the session's workspace. */
  role: MemberRole;
  /** Operates the install (users.is_ops). */
  isOps: boolean;
  workspaceId: string;
}

/** A session notes its member as seen at most this often (a write, not one per request). */
const SEEN_EVERY_MS = 5 * 60_000;

/**
 * A new session of the user, in the workspace they were last in when they are still a member
 * there, else the first one they joined. A user who belongs to no workspace cannot sign in.
 */
export async function startStudioSession(
  ctx: SystemCtx,
  userId: string,
  now = new Date(),
): Promise<{ id: string; expiresAt: string }> {
  const workspaces = await ctx.db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .select(["memberships.workspace_id", "users.workspace_id as last_workspace_id"])
    .where("memberships.user_id", "=", userId)
    .orderBy("memberships.created_at")
    .execute();
  const workspaceId =
    workspaces.find((w) => w.workspace_id === w.last_workspace_id)?.workspace_id ?? workspaces[0]?.workspace_id;
  if (workspaceId === undefined)
    throw new ApiError("permission_denied", "You are not a member of any workspace. Ask an admin to invite you.");
  const id = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + STUDIO_SESSION_DAYS * 86_400_000).toISOString();
  // Ended sessions of this user go as a new one starts, so the table holds live ones only.
  await ctx.db
    .deleteFrom("studio_sessions")
    .where("user_id", "=", userId)
    .where("expires_at", "<=", now.toISOString())
    .execute();
  await ctx.db
    .insertInto("studio_sessions")
    .values({ id, user_id: userId, workspace_id: workspaceId, created_at: now.toISOString(), expires_at: expiresAt })
    .execute();
  return { id, expiresAt };
}

/** The user of a live session, or null (unknown, ended or expired). */
export async function readStudioSession(
  ctx: SystemCtx,
  sessionId: string,
  now = new Date(),
): Promise<(SessionUser & { expiresAt: string }) | null> {
  if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) return null;
  const row = await ctx.db
    .selectFrom("studio_sessions")
    .innerJoin("users", "users.id", "studio_sessions.user_id")
    .innerJoin("memberships", (join) =>
      join
        .onRef("memberships.user_id", "=", "studio_sessions.user_id")
        .on((eb) =>
          eb("memberships.workspace_id", "=", eb.fn.coalesce("studio_sessions.workspace_id", "users.workspace_id")),
        ),
    )
    .select([
      "users.id",
      "users.email",
      "users.is_ops",
      "memberships.workspace_id",
      "memberships.role",
      "memberships.last_seen_at",
      "studio_sessions.expires_at",
    ])
    .where("studio_sessions.id", "=", sessionId)
    .executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString()) return null;
  if (row.last_seen_at === null || Date.parse(row.last_seen_at) + SEEN_EVERY_MS <= now.getTime()) {
    await ctx.db
      .updateTable("memberships")
      .set({ last_seen_at: now.toISOString() })
      .where("workspace_id", "=", row.workspace_id)
      .where("user_id", "=", row.id)
      .execute();
  }
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    isOps: row.is_ops === 1,
    workspaceId: row.workspace_id,
    expiresAt: row.expires_at,
  };
}

/**
 * Moves a session to another workspace of its user (the studio's switcher), and makes it the one
 * their next sign-in opens. Another workspace than theirs is not found. The caller tells the
 * session cache (forgetSession) before the next read.
 */
export async function switchSessionWorkspace(
  ctx: SystemCtx,
  input: { sessionId: string; userId: string; workspaceId: unknown },
): Promise<void> {
  const workspaceId = input.workspaceId;
  const notFound = () =>
    new ApiError("resource_not_found", "No such workspace among yours.", { param: "workspace_id" });
  if (typeof workspaceId !== "string" || !isPossibleId(workspaceId) || !hasIdPrefix("workspace", workspaceId))
    throw notFound();
  const member = await ctx.db
    .selectFrom("memberships")
    .select("role")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", input.userId)
    .executeTakeFirst();
  if (!member) throw notFound();
  await ctx.db
    .updateTable("studio_sessions")
    .set({ workspace_id: workspaceId })
    .where("id", "=", input.sessionId)
    .where("user_id", "=", input.userId)
    .execute();
  await ctx.db.updateTable("users").set({ workspace_id: workspaceId }).where("id", "=", input.userId).execute();
}

/** Sign-out: this session only. Gives the user's ID when there was one, for the signal. */
export async function endStudioSession(ctx: SystemCtx, sessionId: string): Promise<string | null> {
  const row = await ctx.db
    .deleteFrom("studio_sessions")
    .where("id", "=", sessionId)
    .returning("user_id")
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/** Every session of one user (password or role changed, user removed). */
export async function endUserStudioSessions(ctx: SystemCtx, userId: string): Promise<void> {
  await ctx.db.deleteFrom("studio_sessions").where("user_id", "=", userId).execute();
}

export interface StudioSessionCache {
  get(sessionId: string, now?: number): (SessionUser & { expiresAt: string }) | null | undefined;
  set(sessionId: string, user: (SessionUser & { expiresAt: string }) | null, now?: number): void;
  /** Forgets every session of one user, or every entry ("*": signals may have been lost). */
  forgetUser(userId: string): void;
  forgetSession(sessionId: string): void;
}

/**
 * Sessions this process has read: a page's several reads of the user cost one store query a few
 * seconds. An entry lives `ttlMs` at most, in case a signal was lost.
 */
export function createStudioSessionCache(options: { ttlMs?: number; maxEntries?: number } = {}): StudioSessionCache {
  const entries = createTtlCache<(SessionUser & { expiresAt: string }) | null>({
    ttlMs: options.ttlMs ?? 30_000,
    maxEntries: options.maxEntries ?? 10_000,
  });
  return {
    get(sessionId, now = Date.now()) {
      const user = entries.get(sessionId, now);
      if (user && Date.parse(user.expiresAt) <= now) {
        entries.delete(sessionId);
        return undefined;
      }
      return user;
    },
    set: (sessionId, user, now) => entries.set(sessionId, user, now),
    forgetUser(userId) {
      if (userId === "*") return entries.clear();
      entries.deleteWhere((user) => user?.id === userId);
    },
    forgetSession: (sessionId) => entries.delete(sessionId),
  };
}

/** A session's user through the cache; a miss reads the store. */
export async function studioSessionUser(
  ctx: SystemCtx,
  cache: StudioSessionCache | undefined,
  sessionId: string,
): Promise<SessionUser | null> {
  const cached = cache?.get(sessionId);
  if (cached !== undefined) return cached;
  const user = await readStudioSession(ctx, sessionId);
  cache?.set(sessionId, user);
  return user;
}
