// The event loop's check phase, for work that waits until what is ready now has run.

const NEXT_ORIGINALS = Symbol.for("next.fast-set-immediate.originals");

/**
 * The event loop's own setImmediate. Next.js, in the same process, replaces the global one with
 * one that, while it tracks a render's immediates, keeps the callback on a queue of its own in
 * that request's async context, run when Next decides; what waits here serves many requests, of
 * the API and the studio alike. Next keeps the original under this symbol.
 */
export function nodeSetImmediate(): typeof setImmediate {
  return (
    (globalThis as { [NEXT_ORIGINALS]?: { setImmediate?: typeof setImmediate } })[NEXT_ORIGINALS]?.setImmediate ??
    setImmediate
  );
}

let checkPhase: Promise<void> | null = null;

function reachCheckPhase(resolve: () => void): void {
  nodeSetImmediate()(() => {
    checkPhase = null;
    resolve();
  });
}

/** Resolves in this turn's check phase: after every callback of I/O that was ready now. One promise for all who wait. */
export function thisTurnsCheckPhase(): Promise<void> {
  return (checkPhase ??= new Promise<void>(reachCheckPhase));
}

/** Whether `phase` (from thisTurnsCheckPhase) is still to come: the turn it was taken in has not reached it yet. */
export function isStillAhead(phase: Promise<void>): boolean {
  return phase === checkPhase;
}
