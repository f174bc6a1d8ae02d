// Wake-ups without polling per waiter: "a run was queued" wakes idle workers, "run X finished"
// resolves everyone waiting on X. In one process an EventEmitter carries them; across processes
// PostgreSQL LISTEN/NOTIFY does (see cross-process.ts, which also catches up after an outage),
// and on SQLite one shared slow poll.
import { EventEmitter } from "node:events";

export interface RunSignals {
  runQueued(): void;
  runFinished(id: string): void;
  onQueued(listener: () => void): () => void;
  /** Any run finished (here or, through the bridge, in another process): wakes the webhook sender. */
  onFinished(listener: () => void): () => void;
  /**
   * Resolves when `id` finishes, the time is up, or `abort` fires; one listener per waiter and
   * no store query. Subscribe before reading the run, so a finish in between is not missed.
   */
  waitForFinish(id: string, timeoutMs: number, abort?: AbortSignal): Promise<void>;
  /** IDs someone is waiting on now (for the cross-process fallback). */
  waitedIds(): string[];
  /** Hook for the cross-process bridge: called on every local signal. */
  setPublisher(publish: ((message: { kind: "queued" } | { kind: "finished"; id: string }) => void) | null): void;
  /** Deliver a signal that came from another process. */
  receive(message: { kind: "queued" } | { kind: "finished"; id: string }): void;
}

export function createRunSignals(): RunSignals {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const waiting = new Map<string, number>();
  let publish: ((message: { kind: "queued" } | { kind: "finished"; id: string }) => void) | null = null;

  const signals: RunSignals = {
    runQueued() {
      emitter.emit("queued");
      publish?.({ kind: "queued" });
    },
    runFinished(id) {
      emitter.emit(`finished:${id}`);
      emitter.emit("finished");
      publish?.({ kind: "finished", id });
    },
    onQueued(listener) {
      emitter.on("queued", listener);
      return () => emitter.off("queued", listener);
    },
    onFinished(listener) {
      emitter.on("finished", listener);
      return () => emitter.off("finished", listener);
    },
    waitForFinish(id, timeoutMs, abort) {
      return new Promise((resolve) => {
        const event = `finished:${id}`;
        waiting.set(id, (waiting.get(id) ?? 0) + 1);
        const done = () => {
          clearTimeout(timer);
          emitter.off(event, done);
          abort?.removeEventListener("abort", done);
          const left = (waiting.get(id) ?? 1) - 1;
          if (left <= 0) waiting.delete(id);
          else waiting.set(id, left);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        emitter.on(event, done);
        abort?.addEventListener("abort", done, { once: true });
      });
    },
    waitedIds() {
      return [...waiting.keys()];
    },
    setPublisher(next) {
      publish = next;
    },
    receive(message) {
      if (message.kind === "queued") emitter.emit("queued");
      else {
        emitter.emit(`finished:${message.id}`);
        emitter.emit("finished");
      }
    },
  };
  return signals;
}
