// The remote door of the catalog (docs/architecture.md, "The catalog and remote entries"): the providers file's entries as
// ModelDefinitions, one adapter (and so one health record) per provider, shared by its entries.
import type { ModelDefinition } from "../core/catalog/model-definition";
import { providerKind } from "./kinds";
import { remoteModelDefinition } from "./common/remote-model";
import type { ProviderAdapter, ProviderConfig } from "./common/types";

export { parseProvidersFile, providersFileDocuments, ProvidersFileError } from "./providers-file";
export type { ProviderDocuments } from "./providers-file";
export type { ProviderConfig } from "./common/types";

/** Makes a provider's adapter; a caller that reloads the catalog passes one that keeps each provider's (and its health). */
export type AdapterSource = (provider: ProviderConfig) => ProviderAdapter;

export const newAdapter: AdapterSource = (provider) => providerKind(provider.kind).createAdapter(provider);

export function remoteModels(
  providers: readonly ProviderConfig[],
  adapterOf: AdapterSource = newAdapter,
): ModelDefinition[] {
  return providers.flatMap((provider) => {
    const adapter = adapterOf(provider);
    const poll = provider.jobTimeoutMs === null ? {} : { maxWaitMs: provider.jobTimeoutMs };
    return provider.entries.map((entry) => remoteModelDefinition(provider, entry, adapter, poll));
  });
}
