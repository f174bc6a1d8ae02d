// API keys: created by the admin CLI or the studio, shown once, stored only as a SHA-256 hash.
import { hash as oneShotHash, timingSafeEqual } from "node:crypto";
import type { ApiKeysTable } from "../../store/database";
import type { ApiKeyCache } from "./api-key-cache";
import { nowIso, SCOPES, scopesOfRole, type Scope, type SystemCtx } from "../context";
import { requireRole, roleAtLeast, type MemberRole } from "../workspaces/roles";
import { ApiError } from "../../primitives/errors";
import { newId, randomBase62 } from "../../primitives/ids";
import { withTransaction } from "../../store/writes";
import { recordAudit, type AuditBy } from "../audit/audit-writer";

export const KEY_SECRET_LENGTH = 40;
export const KEY_EXPIRY_CHOICES = { "30d": 30, "90d": 90, "365d": 365, never: null } as const;
export type KeyExpiry = keyof typeof KEY_EXPIRY_CHOICES;

export interface ApiKey {
  id: string;
  object: "api_key";
  workspace_id: string;
  name: string;
  /** The key's prefix and last four characters, for recognising it in a list. */
  hint: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The member who made it in the studio (it acts with at most their role); null: the admin CLI. */
  created_by: string | null;
}

export type CreatedApiKey = ApiKey & { key: string };

function present(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    object: "api_key",
    workspace_id: row.workspace_id,
    name: row.name,
    hint: row.key_hint,
    scopes: row.scopes.split(",").filter(Boolean) as Scope[],
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    created_by: row.created_by,
  };
}

export function hashApiKey(key: string): string {
  // The one-shot hash: cheaper than createHash, and every keyed request pays it.
  return oneShotHash("sha256", key, "hex");
}

export function parseScopes(text: string): Scope[] {
  const scopes = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0)
    throw new ApiError("invalid_parameter", `Name at least one scope: ${SCOPES.join(", ")}.`, { param: "scopes" });
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new ApiError("invalid_parameter", `Unknown scope "${scope}". Scopes are ${SCOPES.join(", ")}.`, {
        param: "scopes",
      });
    }
  }
  return [...new Set(scopes)] as Scope[];
}

/** A member making or revoking keys in the studio; the admin CLI names none. */
export interface KeyMaker {
  userId: string;
  role: MemberRole;
}

/**
 * Admins and owners make keys; a creator makes keys of their own when the workspace lets creators
 * (workspaces.creator_keys); a viewer never does.
 */
async function checkMayMakeKeys(ctx: SystemCtx, workspaceId: string, maker: KeyMaker): Promise<void> {
  if (roleAtLeast(maker.role, "admin")) return;
  if (maker.role === "creator") {
    const workspace = await ctx.db
      .selectFrom("workspaces")
      .select("creator_keys")
      .where("id", "=", workspaceId)
      .executeTakeFirst();
    if (workspace?.creator_keys === 1) return;
    throw new ApiError(
      "permission_denied",
      "Creators in this workspace cannot make API keys: an admin can allow it on the Members page, or make one for you.",
    );
  }
  requireRole({ role: maker.role, actor: { kind: "user" } }, "admin", "make API keys");
}

/** Why this member may not make keys here, in a sentence; null when they may. */
export async function keyMakingRefusal(ctx: SystemCtx, workspaceId: string, maker: KeyMaker): Promise<string | null> {
  try {
    await checkMayMakeKeys(ctx, workspaceId, maker);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
}

export async function createApiKey(
  ctx: SystemCtx,
  input: {
    workspaceId: string;
    name?: string;
    expires?: KeyExpiry;
    scopes?: Scope[];
    prefix: string;
    /** A member making it in the studio: their role is checked, and the key acts with at most it. */
    maker?: KeyMaker;
    /** The admin CLI's `--member`: the member the key acts for (no check; it acts with at most their role). */
    createdBy?: string;
    /** Who makes it, for the audit log (absent: the first start's demo key, lib/boot/boot.ts, not audited). */
    audit?: AuditBy;
  },
): Promise<CreatedApiKey> {
  const expires = input.expires ?? "365d";
  // An own-property test: `in` would take "constructor" or "toString" from the prototype (then a 500).
  if (typeof expires !== "string" || !Object.hasOwn(KEY_EXPIRY_CHOICES, expires)) {
    throw new ApiError("invalid_parameter", `Expiry is one of ${Object.keys(KEY_EXPIRY_CHOICES).join(", ")}.`, {
      param: "expires",
    });
  }
  if (input.name !== undefined && typeof input.name !== "string")
    throw new ApiError("invalid_parameter", "A key name is text.", { param: "name" });
  const name = (input.name ?? "API key").trim();
  if (name.length < 1 || name.length > 100) {
    throw new ApiError("invalid_parameter", "A key name is 1 to 100 characters long.", { param: "name" });
  }
  const workspace = await ctx.db
    .selectFrom("workspaces")
    .select("id")
    .where("id", "=", input.workspaceId)
    .executeTakeFirst();
  if (!workspace)
    throw new ApiError("resource_not_found", `No workspace ${input.workspaceId}.`, { param: "workspace" });
  if (input.maker) await checkMayMakeKeys(ctx, input.workspaceId, input.maker);

  const key = `${input.prefix}_${randomBase62(KEY_SECRET_LENGTH)}`;
  const days = KEY_EXPIRY_CHOICES[expires];
  const now = new Date();
  const row: ApiKeysTable = {
    id: newId("apiKey"),
    workspace_id: input.workspaceId,
    name,
    key_hash: hashApiKey(key),
    key_hint: `${input.prefix}_…${key.slice(-4)}`,
    scopes: (input.scopes ?? [...SCOPES]).join(","),
    created_at: now.toISOString(),
    expires_at: days === null ? null : new Date(now.getTime() + days * 86_400_000).toISOString(),
    revoked_at: null,
    last_used_at: null,
    created_by: input.maker?.userId ?? input.createdBy ?? null,
  };
  const audit = input.audit;
  await withTransaction(ctx.db, async (trx) => {
    await trx.insertInto("api_keys").values(row).execute();
    // Its name and rights; never the key, its hash or its hint.
    if (audit)
      await recordAudit(trx, audit, {
        workspaceId: row.workspace_id,
        action: "key.created",
        target: { type: "api_key", id: row.id },
        changes: { name, scopes: row.scopes.split(","), expires_at: row.expires_at, member: row.created_by },
      });
  });
  return { ...present(row), key };
}

export async function listApiKeys(ctx: SystemCtx, input: { workspaceId: string }): Promise<ApiKey[]> {
  const rows = await ctx.db
    .selectFrom("api_keys")
    .selectAll()
    .where("workspace_id", "=", input.workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(present);
}

/**
 * Revoking is safe to repeat: the first revocation time stays (and only the first writes an audit
 * event). A member below admin revokes only keys they made; another's is refused.
 */
export async function revokeApiKey(
  ctx: SystemCtx,
  input: { keyId: string; workspaceId?: string; maker?: KeyMaker; audit: AuditBy },
): Promise<ApiKey> {
  if (input.maker && !roleAtLeast(input.maker.role, "admin")) {
    let own = ctx.db.selectFrom("api_keys").select("created_by").where("id", "=", input.keyId);
    if (input.workspaceId) own = own.where("workspace_id", "=", input.workspaceId);
    const row = await own.executeTakeFirst();
    if (row && row.created_by !== input.maker.userId)
      requireRole({ role: input.maker.role, actor: { kind: "user" } }, "admin", "revoke another member's key");
  }
  await withTransaction(ctx.db, async (trx) => {
    let update = trx
      .updateTable("api_keys")
      .set({ revoked_at: nowIso() })
      .where("id", "=", input.keyId)
      .where("revoked_at", "is", null);
    if (input.workspaceId) update = update.where("workspace_id", "=", input.workspaceId);
    const revoked = await update.returning(["id", "workspace_id", "name"]).executeTakeFirst();
    if (revoked)
      await recordAudit(trx, input.audit, {
        workspaceId: revoked.workspace_id,
        action: "key.revoked",
        target: { type: "api_key", id: revoked.id },
        changes: { name: revoked.name },
      });
  });
  let select = ctx.db.selectFrom("api_keys").selectAll().where("id", "=", input.keyId);
  if (input.workspaceId) select = select.where("workspace_id", "=", input.workspaceId);
  const row = await select.executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No API key ${input.keyId}.`, { param: "id" });
  return present(row);
}

export interface AuthenticatedKey {
  keyId: string;
  workspaceId: string;
  /** The key's scopes, cut to what its maker's role allows now. */
  scopes: Scope[];
  /** The maker's role now; null for a key the admin CLI made. */
  role: MemberRole | null;
}

export interface PresentedCredentials {
  /** The raw x-api-key header, undefined when absent. */
  xApiKey: string | undefined;
  /** The raw Authorization header, undefined when absent. */
  authorization: string | undefined;
}

const lastUsedWrites = new Map<string, number>();
const LAST_USED_EVERY_MS = 60_000;

function invalid(message: string): ApiError {
  return new ApiError("invalid_api_key", message);
}

/** Reads the key out of the two headers, naming the likely slip when it cannot. */
function pickKey(credentials: PresentedCredentials): string {
  const fromHeader = credentials.xApiKey?.trim();
  let fromBearer: string | undefined;
  const authorization = credentials.authorization?.trim();
  if (authorization !== undefined) {
    const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization);
    if (authorization === "") fromBearer = "";
    else if (!match) {
      throw invalid(
        'The Authorization header must be "Bearer <API key>". Send the key after "Bearer ", or in the x-api-key header.',
      );
    } else fromBearer = (match[1] ?? "").trim();
  }
  if (
    fromHeader !== undefined &&
    fromBearer !== undefined &&
    fromHeader !== "" &&
    fromBearer !== "" &&
    fromHeader !== fromBearer
  ) {
    throw new ApiError(
      "conflicting_credentials",
      "The x-api-key and Authorization headers carry two different keys. Send one key, in one of them.",
    );
  }
  if (fromHeader === undefined && fromBearer === undefined) {
    throw new ApiError(
      "missing_api_key",
      'No API key was sent. Send it in the x-api-key header or as "Authorization: Bearer <API key>".',
    );
  }
  // Prefer whichever header holds something; an empty one only matters when both are empty.
  const useHeader = fromHeader !== undefined && (fromHeader !== "" || !fromBearer);
  const where = useHeader ? "x-api-key header" : "Authorization header";
  const key = (useHeader ? fromHeader : fromBearer) ?? "";
  if (key === "") throw invalid(`The ${where} is empty. Did the variable holding your key expand to nothing?`);
  if (fromHeader && /^Bearer\s/i.test(fromHeader)) {
    throw invalid(
      'The x-api-key header holds "Bearer …". Send the key alone in x-api-key, or send "Authorization: Bearer <API key>".',
    );
  }
  if (key.startsWith("$") || key.includes("${")) {
    throw invalid(
      `The ${where} holds "${key.slice(0, 32)}", which looks like a shell variable that was never expanded. Check the quotes around it.`,
    );
  }
  return key;
}

/**
 * Resolves the two key headers to a live key, or throws the error that says what is wrong. With
 * `cache`, a key found live before is answered from it (no store query); see api-key-cache.ts.
 */
export async function authenticateApiKey(
  ctx: SystemCtx,
  credentials: PresentedCredentials,
  prefix: string,
  cache?: ApiKeyCache,
): Promise<AuthenticatedKey> {
  const key = pickKey(credentials);
  if (!key.startsWith(`${prefix}_`)) {
    throw invalid(`API keys begin with "${prefix}_"; this one does not. Check that you copied the whole key.`);
  }
  const secret = key.slice(prefix.length + 1);
  if (!/^[0-9A-Za-z]*$/.test(secret)) {
    throw invalid(
      "This API key holds characters a key never has (spaces, quotes or punctuation). Check that you copied it exactly.",
    );
  }
  if (secret.length < KEY_SECRET_LENGTH) {
    throw invalid(
      `This API key looks cut short: it has ${secret.length} characters after "${prefix}_", a key has ${KEY_SECRET_LENGTH}.`,
    );
  }
  const hash = hashApiKey(key);
  const now = Date.now();
  const cached = cache?.get(hash, now);
  if (cached && (cached.expiresAt === null || cached.expiresAt > now)) {
    const noting = noteLastUsed(ctx, cached.keyId, now);
    if (noting) await noting;
    return { keyId: cached.keyId, workspaceId: cached.workspaceId, scopes: cached.scopes, role: cached.role };
  }
  const row = await ctx.db
    .selectFrom("api_keys")
    .leftJoin("memberships", (join) =>
      join
        .onRef("memberships.workspace_id", "=", "api_keys.workspace_id")
        .onRef("memberships.user_id", "=", "api_keys.created_by"),
    )
    .selectAll("api_keys")
    .select("memberships.role")
    .where("key_hash", "=", hash)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, "hex"), Buffer.from(hash, "hex"))) {
    throw invalid("This API key is not known. It may be mistyped or from another Atelier installation.");
  }
  if (row.revoked_at) throw invalid(`This API key was revoked on ${row.revoked_at}. Create a new key.`);
  if (row.expires_at && Date.parse(row.expires_at) <= now) {
    throw invalid(`This API key expired on ${row.expires_at}. Create a new key.`);
  }
  // A member's key acts with at most their role now; one whose maker left was revoked with them.
  if (row.created_by !== null && row.role === null)
    throw invalid("The member who made this API key is no longer in its workspace. Create a new key.");
  const role = row.role ?? null;
  const allowed = role === null ? null : scopesOfRole(role);
  const scopes = (row.scopes.split(",") as Scope[]).filter((scope) => allowed === null || allowed.includes(scope));
  cache?.set(
    hash,
    {
      keyId: row.id,
      workspaceId: row.workspace_id,
      scopes,
      role,
      createdBy: row.created_by,
      expiresAt: row.expires_at ? Date.parse(row.expires_at) : null,
    },
    now,
  );
  const noting = noteLastUsed(ctx, row.id, now);
  if (noting) await noting;
  return { keyId: row.id, workspaceId: row.workspace_id, scopes, role };
}

/** last_used_at moves at most every LAST_USED_EVERY_MS per key and process: not a write per request. */
function noteLastUsed(ctx: SystemCtx, keyId: string, now: number): Promise<unknown> | undefined {
  // Nothing to wait for on almost every request: no promise then.
  if ((lastUsedWrites.get(keyId) ?? 0) + LAST_USED_EVERY_MS >= now) return undefined;
  lastUsedWrites.set(keyId, now);
  return ctx.db
    .updateTable("api_keys")
    .set({ last_used_at: new Date(now).toISOString() })
    .where("id", "=", keyId)
    .execute();
}
