// Caps on what one owner (an API key, a studio user) holds open at once: status streams and
// Prefer: wait reads. The per-minute rate limit counts requests, not how long each one stays, so
// without this one key could keep hundreds of connections (and their run listeners) open.
// Counted per process: behind several processes the cap applies in each.
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

/** Open readers counted per owner; owners at zero have no entry. */
export class OpenReaders {
  private readonly open = new Map<string, number>();

  constructor(private readonly cap: number) {}

  /** A slot for `owner`, or null when it already holds `cap`. */
  tryAcquire(owner: string): Release | null {
    const held = this.open.get(owner) ?? 0;
    if (held >= this.cap) return null;
    this.open.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(owner) ?? 1) - 1;
      if (left > 0) this.open.set(owner, left);
      else this.open.delete(owner);
    };
  }

  /** How many `owner` holds now. */
  count(owner: string): number {
    return this.open.get(owner) ?? 0;
  }
}

// One table per process, kept on globalThis: the API and the studio's route bundles may each load
// this module, and a user's or key's count must be the same whichever copy asks.
const REGISTRY = Symbol.for("atelier.openReaders");
type Registry = { keys: OpenReaders; users: OpenReaders };
const registry = ((globalThis as { [REGISTRY]?: Registry })[REGISTRY] ??= {
  keys: new OpenReaders(LIMITS.openReadersPerKey),
  users: new OpenReaders(LIMITS.openReadersPerUser),
});

function refused(message: string): ApiError {
  return new ApiError("rate_limit_exceeded", message, {
    headers: { "Retry-After": String(LIMITS.openReaderRetryAfterSeconds) },
  });
}

/** A slot for one status stream or Prefer: wait read of an API key (MCP waits count too), or 429. */
export function acquireKeyReader(keyId: string): Release {
  const release = registry.keys.tryAcquire(keyId);
  if (release) return release;
  throw refused(
    `This API key already has ${LIMITS.openReadersPerKey} status streams and Prefer: wait reads open; close one (or let a wait end) and try again, or poll without Prefer: wait.`,
  );
}

/** A slot for one of the studio's live-run streams of a signed-in user, or 429. */
export function acquireUserReader(userId: string): Release {
  const release = registry.users.tryAcquire(userId);
  if (release) return release;
  throw refused(
    `You already have ${LIMITS.openReadersPerUser} live run views open; close a studio tab or two and try again.`,
  );
}

/** How many readers an API key holds open now (tests, ops). */
export function openKeyReaders(keyId: string): number {
  return registry.keys.count(keyId);
}

/**
 * An event stream's source that gives `release` back when the stream ends for any reason: its
 * items end, it throws, or the reader goes away (`stop` aborts, even while the source awaits).
 */
export function releasingSource<T>(
  release: Release,
  source: (stop: AbortSignal) => AsyncIterable<T>,
): (stop: AbortSignal) => AsyncIterable<T> {
  return async function* (stop) {
    if (stop.aborted) return release();
    stop.addEventListener("abort", release, { once: true });
    try {
      yield* source(stop);
    } finally {
      release();
    }
  };
}

/**
 * Runs a read that may be held open (Prefer: wait, an MCP wait) in one of the key's slots, or 429
 * before it starts. The slot comes back when the read ends or `gone` aborts (the client left).
 */
export async function inKeyReaderSlot<T>(keyId: string, read: () => Promise<T>, gone?: AbortSignal): Promise<T> {
  const release = acquireKeyReader(keyId);
  gone?.addEventListener("abort", release, { once: true });
  try {
    return await read();
  } finally {
    gone?.removeEventListener("abort", release);
    release();
  }
}
