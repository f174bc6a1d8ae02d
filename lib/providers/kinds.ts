// Every provider kind the providers file may name, by its `kind` value. A new protocol is one
// module exporting a ProviderKind, added here.
import type { ProviderKind } from "./kind";
import { aiSdkKind } from "./ai-sdk";
import { openAiImagesKind } from "./openai-images";
import { comfyUiKind } from "./comfyui";
import { replicateKind } from "./replicate";
import { falKind } from "./fal";

export const PROVIDER_KINDS: Readonly<Record<string, ProviderKind>> = Object.fromEntries(
  [openAiImagesKind, comfyUiKind, aiSdkKind, replicateKind, falKind].map((kind) => [kind.name, kind]),
);

export function providerKind(name: string): ProviderKind {
  const kind = Object.hasOwn(PROVIDER_KINDS, name) ? PROVIDER_KINDS[name] : undefined;
  if (!kind) throw new Error(`unknown provider kind "${name}"`);
  return kind;
}
