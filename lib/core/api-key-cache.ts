// Live API keys this process has looked up, by the key's hash: a repeated request with the same
// key is authenticated without a store query. A revocation anywhere reaches every process at
// once through the run signals (`key_revoked`, carried by NOTIFY or the SQLite process mesh) and
// drops the entry; an entry is also looked up again after `ttlMs`, in case a signal was lost.
import type { Scope } from "./context";

export interface CachedKey {
  keyId: string;
  workspaceId: string;
  scopes: Scope[];
  expiresAt: number | null;
}

export interface ApiKeyCache {
  get(hash: string, now?: number): CachedKey | undefined;
  set(hash: string, key: CachedKey, now?: number): void;
  /** Forgets one key by its ID, or every key ("*": signals may have been lost). */
  forget(keyId: string): void;
  readonly size: number;
}

export function createApiKeyCache(options: { maxEntries?: number; ttlMs?: number } = {}): ApiKeyCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 60_000;
  const byHash = new Map<string, { key: CachedKey; at: number }>();
  return {
    get(hash, now = Date.now()) {
      const entry = byHash.get(hash);
      if (!entry) return undefined;
      if (now - entry.at > ttlMs) {
        byHash.delete(hash);
        return undefined;
      }
      return entry.key;
    },
    set(hash, key, now = Date.now()) {
      byHash.delete(hash);
      // Oldest first in a Map: past the cap, the least recently stored goes.
      if (byHash.size >= maxEntries) byHash.delete(byHash.keys().next().value!);
      byHash.set(hash, { key, at: now });
    },
    forget(keyId) {
      if (keyId === "*") return byHash.clear();
      for (const [hash, entry] of byHash) if (entry.key.keyId === keyId) byHash.delete(hash);
    },
    get size() {
      return byHash.size;
    },
  };
}
