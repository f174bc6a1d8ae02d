// Studio sessions the server can end. The session cookie (next-auth's encrypted token) carries
// only a session ID; who the user is, their role and their workspace are read from the store
// through a short per-process cache. Sign-out deletes the session; a password change, a role
// change or a removed user deletes all of that user's sessions, and the `sessions_ended` run
// signal makes every process's cache forget that user at once.
import { randomBytes } from "node:crypto";
import type { Role } from "./users";
import type { SystemCtx } from "../context";
import { createTtlCache } from "../../primitives/ttl-cache";

/** A session lasts this long from sign-in, however active: it never slides forward. */
export const STUDIO_SESSION_DAYS = 7;

/** 32 random bytes in base64url, as startStudioSession makes them. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** What a live session says of its user, read from the store. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
  workspaceId: string;
}

export async function startStudioSession(
  ctx: SystemCtx,
  userId: string,
  now = new Date(),
): Promise<{ id: string; expiresAt: string }> {
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
    .values({ id, user_id: userId, created_at: now.toISOString(), expires_at: expiresAt })
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
    .select(["users.id", "users.email", "users.role", "users.workspace_id", "studio_sessions.expires_at"])
    .where("studio_sessions.id", "=", sessionId)
    .executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString()) return null;
  return { id: row.id, email: row.email, role: row.role, workspaceId: row.workspace_id, expiresAt: row.expires_at };
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
