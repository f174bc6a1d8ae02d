// The remote door of the catalog (docs/architecture.md, "The catalog and remote entries"): the providers file's entries as
// ModelDefinitions, one adapter (and so one health record) per provider, shared by its entries.
import type { ModelDefinition } from "../core/catalog/model-definition";
import { providerKind } from "./kinds";
import { remoteModelDefinition } from "./common/remote-model";
import type { ProviderConfig } from "./common/types";

export { parseProvidersFile, ProvidersFileError } from "./providers-file";
export type { ProviderConfig } from "./common/types";

export function remoteModels(providers: readonly ProviderConfig[]): ModelDefinition[] {
  return providers.flatMap((provider) => {
    const adapter = providerKind(provider.kind).createAdapter(provider);
    const poll = provider.jobTimeoutMs === null ? {} : { maxWaitMs: provider.jobTimeoutMs };
    return provider.entries.map((entry) => remoteModelDefinition(provider, entry, adapter, poll));
  });
}
