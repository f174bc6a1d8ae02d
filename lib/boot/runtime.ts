// The store and services for doors that live inside Next (the studio): the ones its host
// started — the studio's thread in production (bin/studio-thread.ts, joined to the server by
// cross-process signals), the server itself under `next dev` — or, for a Next process of its own
// (the build), its own, opened once.
import { catalogLoadCtx, createServices, installCatalog, openConfiguredStore } from "./boot";
import { watchStoredCatalog } from "../providers/stored-catalog/catalog-watch";
import { config as loadedConfig, type Config } from "./config";
import type { Services } from "../core/context";
import { createLogger } from "../primitives/logger";
import type { Store } from "../store/store";

export interface Runtime {
  store: Store;
  services: Services;
  config: Config;
}

const holder = globalThis as { atelierRuntime?: Runtime; atelierRuntimeOpening?: Promise<Runtime> };

/** This copy of the core's remote catalog, read from the store and kept current (once per copy). */
let catalogWatched: Promise<unknown> | null = null;

export async function getRuntime(): Promise<Runtime> {
  // Next bundles its own copy of the core: give that copy the catalog and PATH the server has,
  // its remote entries read from the store and read again on every catalog_changed signal the
  // host's bridge hears.
  installCatalog(loadedConfig());
  const runtime = await hostRuntime();
  catalogWatched ??= watchStoredCatalog(
    catalogLoadCtx(runtime.config, runtime.store, createLogger(runtime.config.logLevel)),
    runtime.services.signals,
  ).catch((err: unknown) => {
    catalogWatched = null;
    throw err;
  });
  await catalogWatched;
  return runtime;
}

function hostRuntime(): Promise<Runtime> {
  if (holder.atelierRuntime) return Promise.resolve(holder.atelierRuntime);
  holder.atelierRuntimeOpening ??= (async () => {
    const config = loadedConfig();
    const store = await openConfiguredStore(config, createLogger(config.logLevel));
    const runtime = { store, services: { ...createServices(config), historyReads: store.reads }, config };
    holder.atelierRuntime = runtime;
    return runtime;
  })();
  return holder.atelierRuntimeOpening;
}
