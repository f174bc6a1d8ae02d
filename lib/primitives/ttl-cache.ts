// A small in-memory map whose entries live `ttlMs` at most and which holds `maxEntries` at most
// (past it, the least recently stored goes): what the process's caches of keys and sessions share.
export interface TtlCache<V> {
  get(key: string, now?: number): V | undefined;
  set(key: string, value: V, now?: number): void;
  delete(key: string): void;
  /** Drops every entry whose value `matches`. */
  deleteWhere(matches: (value: V) => boolean): void;
  clear(): void;
  readonly size: number;
}

export function createTtlCache<V>(options: { ttlMs: number; maxEntries: number }): TtlCache<V> {
  const entries = new Map<string, { value: V; at: number }>();
  return {
    get(key, now = Date.now()) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now - entry.at > options.ttlMs) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value, now = Date.now()) {
      entries.delete(key);
      // Oldest first in a Map: past the cap, the least recently stored goes.
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, at: now });
    },
    delete(key) {
      entries.delete(key);
    },
    deleteWhere(matches) {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
