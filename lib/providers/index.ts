// The remote door of the catalog (docs/architecture.md, "The catalog and remote entries"): the providers file's entries as
// ModelDefinitions, one adapter (and so one health record) per provider, shared by its entries.
import type { ModelDefinition } from "../core/catalog/model-definition";
import { providerKind } from "./kinds";
import { remoteModelDefinition } from "./common/remote-model";
import { routedModelDefinition, type RouteLeg } from "./common/route-run";
import type { ProviderAdapter, ProviderConfig, RemoteEntryConfig } from "./common/types";

export { parseProvidersFile, providersFileDocuments, ProvidersFileError } from "./providers-file";
export type { ProviderDocuments } from "./providers-file";
export type { ProviderConfig } from "./common/types";

/** Makes a provider's adapter; a caller that reloads the catalog passes one that keeps each provider's (and its health). */
export type AdapterSource = (provider: ProviderConfig) => ProviderAdapter;

export const newAdapter: AdapterSource = (provider) => providerKind(provider.kind).createAdapter(provider);

const pollOf = (provider: ProviderConfig) =>
  provider.jobTimeoutMs === null ? {} : { maxWaitMs: provider.jobTimeoutMs };

/**
 * One entry of `provider` as a ModelDefinition: run at its provider, or, with `routes`, at its
 * provider and its targets among `providers` (a target this process could not build, such as one
 * whose key's variable is unset here, is left out of the route).
 */
export function remoteDefinition(
  provider: ProviderConfig,
  entry: RemoteEntryConfig,
  providers: readonly ProviderConfig[],
  adapterOf: AdapterSource = newAdapter,
): ModelDefinition {
  const adapter = adapterOf(provider);
  if (!entry.routes) return remoteModelDefinition(provider, entry, adapter, pollOf(provider));
  const legs: RouteLeg[] = [{ provider, entry, adapter, poll: pollOf(provider), weight: entry.routes.weight }];
  for (const target of entry.routes.targets) {
    const other = providers.find((p) => p.id === target.providerId);
    if (!other) continue;
    legs.push({
      provider: other,
      entry: { ...entry, upstreamModel: target.upstreamModel, options: target.options, cost: target.cost },
      adapter: adapterOf(other),
      poll: pollOf(other),
      weight: target.weight,
    });
  }
  return routedModelDefinition(legs, entry.routes.policy);
}

export function remoteModels(
  providers: readonly ProviderConfig[],
  adapterOf: AdapterSource = newAdapter,
): ModelDefinition[] {
  // One adapter per provider, shared by its entries and by routes through it: one health record.
  const adapters = new Map<string, ProviderAdapter>();
  const shared: AdapterSource = (provider) => {
    let adapter = adapters.get(provider.id);
    if (!adapter) adapters.set(provider.id, (adapter = adapterOf(provider)));
    return adapter;
  };
  return providers.flatMap((provider) =>
    provider.entries.map((entry) => remoteDefinition(provider, entry, providers, shared)),
  );
}
