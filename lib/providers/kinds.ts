// Every provider kind the providers file may name, by its `kind` value. A new protocol is one
// module exporting a ProviderKind, added here.
import type { ProviderKind } from "./common/kind";
import { aiSdkKind } from "./ai-sdk/ai-sdk";
import { openAiImagesKind } from "./openai/openai-images";
import { comfyUiKind } from "./comfyui/comfyui";
import { replicateKind } from "./replicate/replicate";
import { falKind } from "./fal/fal";

export const PROVIDER_KINDS: Readonly<Record<string, ProviderKind>> = Object.fromEntries(
  [openAiImagesKind, comfyUiKind, aiSdkKind, replicateKind, falKind].map((kind) => [kind.name, kind]),
);

export function providerKind(name: string): ProviderKind {
  const kind = Object.hasOwn(PROVIDER_KINDS, name) ? PROVIDER_KINDS[name] : undefined;
  if (!kind) throw new Error(`unknown provider kind "${name}"`);
  return kind;
}
