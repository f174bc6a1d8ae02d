// Keeping this process's remote catalog as the store has it: read again on every
// `catalog_changed` signal (sent after each committed change, carried across processes like the
// pause signal: NOTIFY, the SQLite process mesh, the studio thread's own bridge), and, in case a
// signal was lost, whenever the one-row catalog version has moved at a look every `pollMs`.
// Reloads never overlap: a signal heard during one reads again once it is done.
import type { RunSignals } from "../../core/run-signals";
import { announceCatalogChangesOf, catalogVersion } from "../../core/catalog/remote-store";
import { loadStoredCatalog, type LoadCtx } from "./load";

export const CATALOG_POLL_MS = 3_000;

export interface CatalogWatch {
  /** Resolves once the catalog has been read again after everything heard so far. */
  settled(): Promise<void>;
  stop(): void;
}

/** Loads the catalog now, then keeps it current; a change made through `ctx.db` is announced on `signals`. */
export async function watchStoredCatalog(
  ctx: LoadCtx,
  signals: RunSignals,
  options: { pollMs?: number } = {},
): Promise<CatalogWatch> {
  let loaded = await loadStoredCatalog(ctx);
  let running: Promise<void> | null = null;
  let again = false;
  const reload = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          loaded = await loadStoredCatalog(ctx);
        } catch (err) {
          ctx.warn?.(`the remote catalog could not be read again: ${(err as Error).message}`);
        }
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const stopListening = signals.onCatalogChanged(() => void reload());
  const stopAnnouncing = announceCatalogChangesOf(ctx.db, signals);
  let looking = false;
  const timer = setInterval(() => {
    if (looking || running) return;
    looking = true;
    catalogVersion(ctx.db)
      .then((version) => (version !== loaded ? reload() : undefined))
      .catch(() => undefined)
      .finally(() => {
        looking = false;
      });
  }, options.pollMs ?? CATALOG_POLL_MS);
  timer.unref();
  return {
    settled: () => running ?? Promise.resolve(),
    stop() {
      clearInterval(timer);
      stopListening();
      stopAnnouncing();
    },
  };
}
