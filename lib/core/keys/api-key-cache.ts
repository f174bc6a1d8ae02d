// Live API keys this process has looked up, by the key's hash: a repeated request with the same
// key is authenticated without a store query. A revocation anywhere reaches every process at
// once through the run signals (`key_revoked`, carried by NOTIFY or the SQLite process mesh) and
// drops the entry; an entry is also looked up again after `ttlMs`, in case a signal was lost.
import type { Scope } from "../context";
import type { MemberRole } from "../workspaces/roles";
import { createTtlCache } from "../../primitives/ttl-cache";

export interface CachedKey {
  keyId: string;
  workspaceId: string;
  scopes: Scope[];
  /** The maker's role when looked up; null for a key the admin CLI made. */
  role: MemberRole | null;
  /** The member who made it: a change to their membership forgets their keys (forgetMaker). */
  createdBy: string | null;
  expiresAt: number | null;
}

export interface ApiKeyCache {
  get(hash: string, now?: number): CachedKey | undefined;
  set(hash: string, key: CachedKey, now?: number): void;
  /** Forgets one key by its ID, or every key ("*": signals may have been lost). */
  forget(keyId: string): void;
  /** Forgets every key a user made (their role changed, or they left): looked up again next time. */
  forgetMaker(userId: string): void;
  readonly size: number;
}

export function createApiKeyCache(options: { maxEntries?: number; ttlMs?: number } = {}): ApiKeyCache {
  const byHash = createTtlCache<CachedKey>({
    maxEntries: options.maxEntries ?? 10_000,
    ttlMs: options.ttlMs ?? 60_000,
  });
  return {
    get: (hash, now) => byHash.get(hash, now),
    set: (hash, key, now) => byHash.set(hash, key, now),
    forget(keyId) {
      if (keyId === "*") return byHash.clear();
      byHash.deleteWhere((key) => key.keyId === keyId);
    },
    forgetMaker(userId) {
      if (userId === "*") return byHash.clear();
      byHash.deleteWhere((key) => key.createdBy === userId);
    },
    get size() {
      return byHash.size;
    },
  };
}
