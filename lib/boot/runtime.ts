// The store and services for doors that live inside Next (the studio): the ones its host
// started — the studio's thread in production (bin/studio-thread.ts, joined to the server by
// cross-process signals), the server itself under `next dev` — or, for a Next process of its own
// (the build), its own, opened once.
import { createServices, installCatalog, openConfiguredStore } from "./boot";
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

export function getRuntime(): Promise<Runtime> {
  // Next bundles its own copy of the core: give that copy the catalog and PATH the server has.
  installCatalog(loadedConfig());
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
