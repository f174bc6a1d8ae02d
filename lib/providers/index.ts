// The remote door of the catalog (ARCHITECTURE.md rule 8): the providers file's entries as
// ModelDefinitions, one adapter (and so one health record) per provider, shared by its entries.
import type { ModelDefinition } from "../models/types";
import { openAiImagesAdapter } from "./openai-images";
import { remoteModelDefinition } from "./remote-model";
import type { ProviderAdapter, ProviderConfig } from "./types";

export { parseProvidersFile, ProvidersFileError } from "./providers-file";
export type { ProviderConfig } from "./types";

const ADAPTERS: Record<ProviderConfig["kind"], (config: ProviderConfig) => ProviderAdapter> = {
  "openai-images": openAiImagesAdapter,
};

export function remoteModels(providers: readonly ProviderConfig[]): ModelDefinition[] {
  return providers.flatMap((provider) => {
    const adapter = ADAPTERS[provider.kind](provider);
    return provider.entries.map((entry) => remoteModelDefinition(provider, entry, adapter));
  });
}
