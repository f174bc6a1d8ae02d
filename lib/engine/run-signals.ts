// Wake-ups without polling per waiter: "a run was queued" wakes idle workers, "run X changed"
// (started, showed a preview, reported progress) wakes whoever follows X, "run X finished"
// resolves everyone waiting on X, and "X's provider pushed news" wakes the poll loop of X's job. In one process an EventEmitter carries them; across processes
// PostgreSQL LISTEN/NOTIFY or, on SQLite, the process mesh in the store's folder (see
// cross-process.ts, which also catches up after an outage).
import { EventEmitter } from "node:events";
import type { RunChange, RunSignals, SignalMessage } from "../core/run-signals";
import type { GenerationsTable } from "../store/database";

export type { RunChange, RunSignals, SignalMessage };

/** Progress and provider queue entries of runs whose end this process never heard of are dropped after this long. */
const PROGRESS_TTL_MS = 10 * 60_000;

export function createRunSignals(): RunSignals {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const waiting = new Map<string, number>();
  const progress = new Map<string, { value: number; at: number }>();
  /** Runs waiting in their remote provider's own queue: the place it last gave (0 = next there). */
  const providerQueue = new Map<string, { value: number; at: number }>();
  let publish: ((message: SignalMessage) => void) | null = null;
  let hostRelay: ((message: SignalMessage) => Promise<void>) | null = null;

  const deliver = (message: SignalMessage, ended?: GenerationsTable) => {
    if (message.kind === "key_revoked" || message.kind === "sessions_ended") {
      emitter.emit(message.kind, message.id);
      return;
    }
    if (message.kind === "provider_event") {
      emitter.emit(`provider_event:${message.id}`);
      return;
    }
    if (message.kind === "queued" || message.kind === "availability_changed" || message.kind === "catalog_changed") {
      emitter.emit(message.kind);
      return;
    }
    if (message.kind === "finished") {
      progress.delete(message.id);
      providerQueue.delete(message.id);
      // Those answering someone first (waiters, streams), then the webhook sender's wake-up.
      emitter.emit(`finished:${message.id}`, ended);
      emitter.emit("run", message.id, "finished", {}, ended);
      emitter.emit("finished");
      return;
    }
    const change: RunChange = {};
    if (typeof message.progress === "number" && Number.isFinite(message.progress)) {
      change.progress = Math.min(1, Math.max(0, message.progress));
      progress.set(message.id, { value: change.progress, at: Date.now() });
    }
    // null (it started there) clears it; anything else not a whole number ≥ 0 is no report.
    const place = message.queuePosition;
    if (place === null) {
      change.queuePosition = null;
      providerQueue.delete(message.id);
    } else if (typeof place === "number" && Number.isSafeInteger(place) && place >= 0) {
      change.queuePosition = place;
      providerQueue.set(message.id, { value: place, at: Date.now() });
    }
    emitter.emit("run", message.id, "changed", change);
  };

  const release = (id: string) => {
    const left = (waiting.get(id) ?? 1) - 1;
    if (left <= 0) waiting.delete(id);
    else waiting.set(id, left);
  };

  const signals: RunSignals = {
    runQueued() {
      deliver({ kind: "queued" });
      publish?.({ kind: "queued" });
    },
    runChanged(id, change = {}) {
      const message: SignalMessage = { kind: "changed", id, ...change };
      deliver(message);
      publish?.(message);
    },
    runFinished(id, row) {
      deliver({ kind: "finished", id }, row);
      publish?.({ kind: "finished", id });
    },
    async keyRevoked(keyId) {
      deliver({ kind: "key_revoked", id: keyId });
      publish?.({ kind: "key_revoked", id: keyId });
      await hostRelay?.({ kind: "key_revoked", id: keyId });
    },
    onKeyRevoked(listener) {
      emitter.on("key_revoked", listener);
      return () => emitter.off("key_revoked", listener);
    },
    async sessionsEnded(userId) {
      deliver({ kind: "sessions_ended", id: userId });
      publish?.({ kind: "sessions_ended", id: userId });
      await hostRelay?.({ kind: "sessions_ended", id: userId });
    },
    onSessionsEnded(listener) {
      emitter.on("sessions_ended", listener);
      return () => emitter.off("sessions_ended", listener);
    },
    availabilityChanged() {
      deliver({ kind: "availability_changed" });
      publish?.({ kind: "availability_changed" });
    },
    onAvailabilityChanged(listener) {
      emitter.on("availability_changed", listener);
      return () => emitter.off("availability_changed", listener);
    },
    catalogChanged() {
      deliver({ kind: "catalog_changed" });
      publish?.({ kind: "catalog_changed" });
    },
    onCatalogChanged(listener) {
      emitter.on("catalog_changed", listener);
      return () => emitter.off("catalog_changed", listener);
    },
    providerEvent(id) {
      deliver({ kind: "provider_event", id });
      publish?.({ kind: "provider_event", id });
    },
    onProviderEvent(id, listener) {
      const event = `provider_event:${id}`;
      emitter.on(event, listener);
      return () => emitter.off(event, listener);
    },
    onQueued(listener) {
      emitter.on("queued", listener);
      return () => emitter.off("queued", listener);
    },
    onFinished(listener) {
      emitter.on("finished", listener);
      return () => emitter.off("finished", listener);
    },
    onRunSignal(listener) {
      emitter.on("run", listener);
      return () => emitter.off("run", listener);
    },
    progressOf(id) {
      return freshValue(progress, id);
    },
    providerQueueOf(id) {
      return freshValue(providerQueue, id);
    },
    waitForFinish(id, timeoutMs, abort) {
      return new Promise((resolve) => {
        const event = `finished:${id}`;
        waiting.set(id, (waiting.get(id) ?? 0) + 1);
        const done = (ended?: GenerationsTable) => {
          clearTimeout(timer);
          emitter.off(event, done);
          abort?.removeEventListener("abort", stopped);
          release(id);
          resolve(ended);
        };
        // The timer and the abort listener would hand done an argument that is no run.
        const stopped = () => done();
        const timer = setTimeout(stopped, timeoutMs);
        emitter.on(event, done);
        abort?.addEventListener("abort", stopped, { once: true });
      });
    },
    follow(id) {
      waiting.set(id, (waiting.get(id) ?? 0) + 1);
      let followed = true;
      return () => {
        if (!followed) return;
        followed = false;
        release(id);
      };
    },
    waitedIds() {
      return [...waiting.keys()];
    },
    setPublisher(next) {
      publish = next;
    },
    setHostRelay(next) {
      hostRelay = next;
    },
    receive(message) {
      deliver(message);
    },
  };
  return signals;
}

/** The entry's value unless it is older than PROGRESS_TTL_MS (then forgotten); null when none. */
function freshValue(entries: Map<string, { value: number; at: number }>, id: string): number | null {
  const entry = entries.get(id);
  if (!entry) return null;
  if (Date.now() - entry.at > PROGRESS_TTL_MS) {
    entries.delete(id);
    return null;
  }
  return entry.value;
}
