// One hub per process between the run signals and everyone following runs (status streams, the
// studio's live views). It keeps the queue positions of followed queued runs fresh with one
// shared query however many follow them, so open streams cost no store query while nothing
// changes, and a change costs a read only for the streams of that run.
import { reportsOnly, type RunChange, type RunSignals } from "../run-signals";
import type { Db, GenerationsTable } from "../../store/database";
import { queuePositions } from "../runs/queue-positions";

/** What a follower hears about one run. */
export type RunNotice =
  | { kind: "state" } // read the run again: it started, passed its cancel point, went back to the queue or finished
  | { kind: "ended"; row: GenerationsTable } // it ended in this process, and this is its row as committed: nothing to read
  | { kind: "reported"; change: RunChange } // it reported progress or its provider's queue position: held in memory, nothing to read
  | { kind: "queue"; position: number };

type Listener = (notice: RunNotice) => void;

/** Queue positions are looked at again at most this often, however fast the queue moves. */
const QUEUE_REFRESH_MS = 50;

export interface RunWatch {
  /** Calls `listener` on every notice about `id`; `queued` asks for its queue position to be kept fresh. */
  follow(
    id: string,
    listener: Listener,
    options: { queued: boolean },
  ): { setQueued(queued: boolean): void; stop(): void };
  /** Ends every follower (shutdown): their streams close and clients reconnect elsewhere. */
  closeAll(): void;
  onClose(listener: () => void): () => void;
}

const watches = new WeakMap<RunSignals, RunWatch>();

/** The process's hub for these signals (created on first use). */
export function runWatchFor(db: Db, signals: RunSignals): RunWatch {
  let watch = watches.get(signals);
  if (!watch) {
    watch = createRunWatch(db, signals);
    watches.set(signals, watch);
  }
  return watch;
}

function createRunWatch(db: Db, signals: RunSignals): RunWatch {
  const listeners = new Map<string, Set<Listener>>();
  /** Followed queued runs: how many followers ask, and the position they were last told. */
  const queued = new Map<string, { count: number; told: number | null }>();
  const closers = new Set<() => void>();
  let refreshTimer: NodeJS.Timeout | null = null;
  let refreshing = false;
  let again = false;

  const notify = (id: string, notice: RunNotice) => {
    for (const listener of [...(listeners.get(id) ?? [])]) listener(notice);
  };

  const refreshQueue = async () => {
    refreshTimer = null;
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    again = false;
    try {
      const ids = [...queued.keys()];
      const positions = await queuePositions(
        db,
        ids.map((id) => ({ id, status: "queued" })),
      );
      for (const [id, position] of positions) {
        const entry = queued.get(id);
        if (!entry || entry.told === position) continue;
        entry.told = position;
        notify(id, { kind: "queue", position });
      }
    } catch {
      // The store is unreachable for now: the next change looks again.
    } finally {
      refreshing = false;
      if (again) scheduleQueueRefresh();
    }
  };

  const scheduleQueueRefresh = () => {
    if (queued.size === 0 || refreshTimer) return;
    refreshTimer = setTimeout(() => void refreshQueue(), QUEUE_REFRESH_MS);
    refreshTimer.unref();
  };

  signals.onRunSignal((id, what, change: RunChange, ended?: GenerationsTable) => {
    const reported = what === "changed" && reportsOnly(change);
    // Another run started, ended or went back to the queue: the runs behind it may have moved up.
    if (!reported) scheduleQueueRefresh();
    if (!listeners.has(id)) return;
    notify(id, reported ? { kind: "reported", change } : ended ? { kind: "ended", row: ended } : { kind: "state" });
  });
  // On SQLite a commit by another process arrives as "queued" (cross-process.ts): look again too.
  signals.onQueued(scheduleQueueRefresh);

  return {
    follow(id, listener, options) {
      let set = listeners.get(id);
      if (!set) listeners.set(id, (set = new Set()));
      set.add(listener);
      const unfollow = signals.follow(id);
      let isQueued = false;
      const setQueued = (next: boolean) => {
        if (next === isQueued) return;
        isQueued = next;
        const entry = queued.get(id);
        if (next) queued.set(id, { count: (entry?.count ?? 0) + 1, told: entry?.told ?? null });
        else if (entry && entry.count > 1) entry.count -= 1;
        else queued.delete(id);
      };
      setQueued(options.queued);
      return {
        setQueued,
        stop() {
          setQueued(false);
          unfollow();
          set.delete(listener);
          if (set.size === 0) listeners.delete(id);
        },
      };
    },
    closeAll() {
      for (const close of [...closers]) close();
    },
    onClose(listener) {
      closers.add(listener);
      return () => closers.delete(listener);
    },
  };
}
