import type { BlobStore } from "../blobs/blob-store";
import type { ApiKeyCache } from "./keys/api-key-cache";
import type { StudioSessionCache } from "./workspaces/studio-sessions";
import type { PictureDirectory } from "../blobs/picture-directory";
import type { RunSignals } from "./run-signals";
import type { Db } from "../store/database";
import { ApiError } from "../primitives/errors";
import { roleAtLeast, roleRefusal, type MemberRole } from "./workspaces/roles";

export const SCOPES = ["generations:read", "generations:write", "workspace:read"] as const;
export type Scope = (typeof SCOPES)[number];

export const SOURCES = ["api", "mcp", "studio"] as const;
export type Source = (typeof SOURCES)[number];

export interface Actor {
  kind: "api_key" | "user" | "mcp_client" | "system" | "cli";
  id: string;
}

/** Process-wide helpers the verbs need beside the store. */
export interface Services {
  /** Signs cursors and links. */
  secretKey: string;
  /** Base of links in answers. */
  publicBaseUrl: string;
  /**
   * Where remote providers that push (Replicate, fal) send news of a run's job: PUBLIC_BASE_URL
   * when it is set (lib/core/runs/provider-webhooks.ts). Absent or null: jobs are only polled.
   */
  providerWebhookBaseUrl?: string | null;
  /**
   * Set on the studio's Ctx only (app/_studio/studio-ctx.ts): blob links are same-origin
   * ("/v1/blobs/…", so a studio opened on 127.0.0.1 or a LAN address works) and each output also
   * carries a `download_url` named after the model and the run. API and MCP answers keep absolute
   * links built on `publicBaseUrl`.
   */
  studioLinks?: boolean;
  /** Files and outputs: DATA_DIR/blobs, or the bucket when S3_BUCKET is set. */
  blobs: BlobStore;
  /** The catalog cards' pictures: a cache on this process's disk, bucket or not. */
  examplePictures: PictureDirectory;
  signals: RunSignals;
  /**
   * Where long reads go (a history page, the ops figures): on SQLite a connection in a worker
   * thread, off the event loop (lib/store/read-thread.ts); absent: reads go to ctx.db. Never
   * inside a transaction: reads there must see the transaction's own writes.
   */
  historyReads?: Db;
  /** Live API keys looked up before (api-key-cache.ts); absent: every request asks the store. */
  apiKeys?: ApiKeyCache;
  /** Studio sessions read before (studio-sessions.ts); absent: every read asks the store. */
  studioSessions?: StudioSessionCache;
  /** The ffmpeg binary media models run. */
  ffmpegPath: string;
  /** Webhook delivery settings. */
  webhooks: { allowInsecure: boolean; retryScheduleSeconds: readonly number[] };
  /** MODERATION_BLOCKLIST compiled (lib/core/catalog/moderation.ts); null when empty. */
  moderationBlocklist: RegExp | null;
}

/**
 * What every workspace verb receives. The workspace always comes from authentication,
 * never from a request body, and every query filters by it.
 */
export interface Ctx {
  db: Db;
  workspaceId: string;
  actor: Actor;
  scopes: readonly Scope[];
  /**
   * The acting member's role in the workspace (workspaces/roles.ts): a studio user's, or for a key
   * a member made, that member's now. Absent for keys the admin CLI made: they meet only their scopes.
   */
  role?: MemberRole;
  source: Source;
  services: Services;
  /**
   * The caller's address as the door saw it (the connection's), kept with the audit events its
   * changes write; absent where there is none (the admin CLI, tests).
   */
  ip?: string;
}

/** For verbs that act across workspaces: the admin CLI and the engine. */
export interface SystemCtx {
  db: Db;
}

/** What a role may do through the scoped verbs: a viewer reads; a creator and above also spend. */
export function scopesOfRole(role: MemberRole): Scope[] {
  return roleAtLeast(role, "creator") ? [...SCOPES] : SCOPES.filter((scope) => scope !== "generations:write");
}

/** Throws permission_denied naming what is missing: the key's scope, or the acting member's role. */
export function requireScope(ctx: Pick<Ctx, "scopes" | "role" | "actor">, scope: Scope): void {
  if (ctx.scopes.includes(scope)) return;
  if (ctx.role !== undefined && !scopesOfRole(ctx.role).includes(scope)) {
    throw roleRefusal(ctx.role, `do this (it needs "${scope}")`, "creator", ctx.actor.kind !== "user");
  }
  throw new ApiError(
    "permission_denied",
    `This API key lacks the "${scope}" scope, which this request needs. Create a key with that scope.`,
  );
}

export function nowIso(): string {
  return new Date().toISOString();
}
