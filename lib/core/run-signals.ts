// What a run signal says and what carries it: the interface the core waits on (status streams,
// Prefer: wait, the key, session and pause caches) and the engine implements (an EventEmitter in
// one process, bridged across processes by lib/engine/cross-process.ts). Boot passes the
// implementation in through Services, so the core never imports the engine.
import type { GenerationsTable } from "../store/database";

/** What a running run last reported: held in memory only, never in the store. */
export interface RunChange {
  /** Its progress, 0 to 1, as its model last reported it. */
  progress?: number;
  /**
   * Its place in its remote provider's own queue (fal's `queue_position`: 0 = next there); null:
   * no longer queued there (it started). Absent: unchanged.
   */
  queuePosition?: number | null;
}

/**
 * True when a change only carries what the run reported (progress, its provider's queue), held
 * in memory: followers need not read the run again. Without either it is a change of state.
 */
export function reportsOnly(change: RunChange): boolean {
  return change.progress !== undefined || change.queuePosition !== undefined;
}

export type SignalMessage =
  | { kind: "queued" }
  | { kind: "finished"; id: string }
  | ({ kind: "changed"; id: string } & RunChange)
  /** An API key was revoked ("*": any may have been; caches forget everything). */
  | { kind: "key_revoked"; id: string }
  /** A studio user's sessions ended or changed (sign-out, password, role): caches forget that user ("*": everyone). */
  | { kind: "sessions_ended"; id: string }
  /** A model was paused or resumed, or a provider found down or back: availability caches forget. */
  | { kind: "availability_changed" }
  /** A remote provider or entry changed in the store: every process reads the remote catalog again. */
  | { kind: "catalog_changed" }
  /**
   * A remote provider pushed news of run `id`'s job (a webhook reached some process): whichever
   * process polls that job polls it now. A nudge only: the poll reads the job's state.
   */
  | { kind: "provider_event"; id: string };

export interface RunSignals {
  runQueued(): void;
  /** A run's state changed (started, passed its cancel point, went back to the queue) or it reported progress or its provider's queue position. */
  runChanged(id: string, change?: RunChange): void;
  /**
   * `row`: the ended run as its finish committed it, handed to this process's followers so that
   * they need not read it again (a store round trip between the finish and its event). Other
   * processes hear only the ID.
   */
  runFinished(id: string, row?: GenerationsTable): void;
  onQueued(listener: () => void): () => void;
  /** Any run finished (here or, through the bridge, in another process): wakes the webhook sender. */
  onFinished(listener: () => void): () => void;
  /** Every change and finish of any run, with its ID (and a finish's row when it ended in this process): the run watcher's one subscription. */
  onRunSignal(
    listener: (id: string, what: "changed" | "finished", change: RunChange, ended?: GenerationsTable) => void,
  ): () => void;
  /** The progress a running run last reported, here or in another process; null when none. */
  progressOf(id: string): number | null;
  /**
   * Where a running run waits in its remote provider's own queue (0 = next there), as last
   * reported here or in another process; null when it is not waiting there (or nobody said).
   */
  providerQueueOf(id: string): number | null;
  /**
   * Resolves when `id` finishes, the time is up, or `abort` fires; one listener per waiter and
   * no store query. Subscribe before reading the run, so a finish in between is not missed.
   * Gives the ended row when the run ended in this process (runFinished's row), else nothing.
   */
  waitForFinish(id: string, timeoutMs: number, abort?: AbortSignal): Promise<GenerationsTable | undefined>;
  /** Marks `id` as followed until the returned function is called (the cross-process fallback then looks for its end). */
  follow(id: string): () => void;
  /** IDs someone is waiting on or following now (for the cross-process fallback). */
  waitedIds(): string[];
  /**
   * An API key was revoked here: every process's key cache forgets it. Resolves once this
   * process's other threads have forgotten it too (see setHostRelay); other processes hear it
   * through the bridge a moment later.
   */
  keyRevoked(keyId: string): Promise<void>;
  onKeyRevoked(listener: (keyId: string) => void): () => void;
  /** A user's studio sessions ended here: every process's session cache forgets that user (resolves as keyRevoked). */
  sessionsEnded(userId: string): Promise<void>;
  onSessionsEnded(listener: (userId: string) => void): () => void;
  /** A pause or a provider outage changed here: every process's availability cache forgets. */
  availabilityChanged(): void;
  onAvailabilityChanged(listener: () => void): () => void;
  /** The remote catalog changed here (a provider or entry written): every process reloads it. */
  catalogChanged(): void;
  onCatalogChanged(listener: () => void): () => void;
  /**
   * A webhook for run `id` came from its remote provider here: the poll loop following that job,
   * in this process or another, looks at it now instead of after its back-off.
   */
  providerEvent(id: string): void;
  /** Calls `listener` at each providerEvent of `id` (here or, through the bridge, elsewhere); returns the unsubscribe. */
  onProviderEvent(id: string, listener: () => void): () => void;
  /**
   * For a thread that serves beside the API in one process (the studio's): revocations are also
   * handed to the API's thread, and keyRevoked/sessionsEnded resolve when it has heard them, so
   * "revoked" in the studio is never followed by one more request the API lets through.
   */
  setHostRelay(relay: ((message: SignalMessage) => Promise<void>) | null): void;
  /** Hook for the cross-process bridge: called on every local signal. */
  setPublisher(publish: ((message: SignalMessage) => void) | null): void;
  /** Deliver a signal that came from another process. */
  receive(message: SignalMessage): void;
}
