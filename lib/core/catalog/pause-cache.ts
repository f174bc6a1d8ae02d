// Model pauses and provider outages kept in memory per store handle. Every keyed listing, quote and
// create reads them, yet they change a few times a day. A change anywhere reaches every process at
// once through the run signals (`availability_changed`: NOTIFY, or every socket of the SQLite
// process mesh) and the rows are read again; they are also read again after `ttlMs`, in case a
// signal was lost. When a pause ends is judged at each read from the rows' ends, so a pause lapses
// on time with no signal.
//
// The cache hangs on the store handle in a process-wide registry rather than in a module
// variable: Next bundles its own copy of the core (lib/boot/runtime.ts), and the studio's pause
// action, running in that copy, must reach the cache the server's copy reads.
import type { RunSignals } from "../run-signals";
import type { Db } from "../../store/database";

/** A pause (kind "model", key: catalog id) or an outage (kind "provider", key: provider id), as stored. */
export interface PauseRow {
  key: string;
  until: string | null;
  reason: string;
  kind: string;
}

interface PauseCacheEntry {
  rows(load: () => Promise<PauseRow[]>, now: number): Promise<PauseRow[]>;
  /** The kept rows while they are fresh, else undefined. */
  fresh(now: number): PauseRow[] | undefined;
  forget(): void;
  signals: RunSignals;
}

const REGISTRY = Symbol.for("atelier.pauseCaches");
const registry: WeakMap<Db, PauseCacheEntry> =
  ((globalThis as Record<symbol, unknown>)[REGISTRY] as WeakMap<Db, PauseCacheEntry> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[REGISTRY] = new WeakMap<Db, PauseCacheEntry>());

/**
 * From now on this process reads `db`'s pauses from memory, forgetting them on every
 * `availability_changed` signal. Returns the function that stops it.
 */
export function cachePausesOf(db: Db, signals: RunSignals, options: { ttlMs?: number } = {}): () => void {
  const ttlMs = options.ttlMs ?? 5_000;
  let cached: { rows: PauseRow[]; at: number } | null = null;
  let loading: Promise<PauseRow[]> | null = null;
  // A read that began before a change must not store what it read after the change was heard.
  let generation = 0;
  const entry: PauseCacheEntry = {
    signals,
    fresh(now) {
      return cached && now - cached.at < ttlMs ? cached.rows : undefined;
    },
    rows(load, now) {
      const fresh = entry.fresh(now);
      if (fresh) return Promise.resolve(fresh);
      if (loading) return loading;
      const started = generation;
      const at = now;
      const current = load().then((rows) => {
        if (started === generation) cached = { rows, at };
        return rows;
      });
      loading = current;
      const done = () => {
        if (loading === current) loading = null;
      };
      current.then(done, done);
      return current;
    },
    forget() {
      generation += 1;
      cached = null;
      loading = null;
    },
  };
  registry.set(db, entry);
  const stopListening = signals.onAvailabilityChanged(() => entry.forget());
  return () => {
    stopListening();
    if (registry.get(db) === entry) registry.delete(db);
  };
}

/** `db`'s pause rows: from memory when this process caches them (cachePausesOf), else `load()`. */
export function pauseRowsOf(db: Db, load: () => Promise<PauseRow[]>, now = Date.now()): Promise<PauseRow[]> {
  const entry = registry.get(db);
  return entry ? entry.rows(load, now) : load();
}

/** `db`'s pause rows when this process keeps them and they are fresh, else undefined: no promise to wait for. */
export function freshPauseRowsOf(db: Db, now = Date.now()): PauseRow[] | undefined {
  return registry.get(db)?.fresh(now);
}

/**
 * A pause or outage was just written through `db`: this process forgets what it kept and every
 * other process hears it. A process that keeps no cache (the admin CLI) announces it itself
 * (cross-process.ts, announceToEveryProcess).
 */
export function pausesChanged(db: Db): void {
  registry.get(db)?.signals.availabilityChanged();
}
