// The AI SDK's provider packages a providers file may name (`"provider": "openai"`), read from each
// package's own code (ai@6, @ai-sdk/* of package.json): which models it really makes (image,
// speech, video), the key of its `providerOptions`, and how a `base_url` reaches it — the
// factory's `baseURL` where it has one, else a `fetch` that sends its fixed host's requests there.
import { createBlackForestLabs } from "@ai-sdk/black-forest-labs";
import { createDeepInfra } from "@ai-sdk/deepinfra";
import { createElevenLabs } from "@ai-sdk/elevenlabs";
import { createFal } from "@ai-sdk/fal";
import { createFireworks } from "@ai-sdk/fireworks";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createLMNT } from "@ai-sdk/lmnt";
import { createLuma } from "@ai-sdk/luma";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createReplicate } from "@ai-sdk/replicate";
import { createTogetherAI } from "@ai-sdk/togetherai";
import { createXai } from "@ai-sdk/xai";
import type { experimental_generateSpeech, experimental_generateVideo, generateImage } from "ai";
import type { Modality } from "../models/types";

export type ImageModel = Parameters<typeof generateImage>[0]["model"];
export type SpeechModel = Parameters<typeof experimental_generateSpeech>[0]["model"];
export type VideoModel = Parameters<typeof experimental_generateVideo>[0]["model"];
export type FetchFunction = typeof globalThis.fetch;

/** What the adapter hands a factory. */
export interface FactorySettings {
  apiKey: string | undefined;
  /** The providers file's base_url, for factories that take one; undefined: the package's default host. */
  baseURL: string | undefined;
  /** Only set when requests must be redirected or a test intercepts them. */
  fetch: FetchFunction | undefined;
}

/** The models one provider instance makes, by modality ("audio" is speech). */
export interface AiSdkModels {
  image?(modelId: string): ImageModel;
  audio?(modelId: string): SpeechModel;
  video?(modelId: string): VideoModel;
}

export interface AiSdkProviderInfo {
  /** The npm package (its README and .d.ts list its model ids and options). */
  package: string;
  /** What its models make: image (generateImage), audio (generateSpeech), video (experimental_generateVideo). */
  modalities: readonly Modality[];
  /** The key of `providerOptions` its models read. */
  optionsKey: string;
  /** Where it sends requests when the file gives no base_url (shown in the README). */
  defaultBaseUrl: string;
  /** True when the file must give base_url (a self-hosted server has no default host). */
  baseUrlRequired: boolean;
  /**
   * Fixed origins the package calls without a `baseURL` option (all of them, or those of some
   * modalities): a base_url is reached by a `fetch` rewriting `origin` to `base_url + path`.
   */
  fixedHosts: ReadonlyArray<{ origin: string; path: string }>;
  create(settings: FactorySettings): AiSdkModels;
}

/** Settings every factory takes (apiKey, fetch), with baseURL only where it has one. */
function common(settings: FactorySettings, withBaseUrl: boolean) {
  return {
    apiKey: settings.apiKey,
    ...(withBaseUrl && settings.baseURL !== undefined ? { baseURL: settings.baseURL } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  };
}

export const AI_SDK_PROVIDERS = {
  openai: {
    package: "@ai-sdk/openai",
    modalities: ["image", "audio"],
    optionsKey: "openai",
    defaultBaseUrl: "https://api.openai.com/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createOpenAI(common(s, true));
      return { image: (id) => p.image(id), audio: (id) => p.speech(id) };
    },
  },
  "openai-compatible": {
    package: "@ai-sdk/openai-compatible",
    modalities: ["image"],
    optionsKey: "openaiCompatible",
    defaultBaseUrl: "(none: base_url is required)",
    baseUrlRequired: true,
    fixedHosts: [],
    create: (s) => {
      const p = createOpenAICompatible({ name: "openaiCompatible", baseURL: s.baseURL ?? "", ...(s.apiKey ? { apiKey: s.apiKey } : {}), ...(s.fetch ? { fetch: s.fetch } : {}) });
      return { image: (id) => p.imageModel(id) };
    },
  },
  google: {
    package: "@ai-sdk/google",
    modalities: ["image", "video"],
    optionsKey: "google",
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createGoogleGenerativeAI(common(s, true));
      return { image: (id) => p.image(id), video: (id) => p.video(id) };
    },
  },
  fal: {
    package: "@ai-sdk/fal",
    modalities: ["image", "audio", "video"],
    optionsKey: "fal",
    defaultBaseUrl: "https://fal.run",
    baseUrlRequired: false,
    // baseURL moves its image calls only; speech (fal.run) and video (queue.fal.run) are fixed.
    fixedHosts: [
      { origin: "https://queue.fal.run", path: "/queue" },
      { origin: "https://fal.run", path: "" },
    ],
    create: (s) => {
      const p = createFal(common(s, true));
      return { image: (id) => p.image(id), audio: (id) => p.speech(id), video: (id) => p.video(id) };
    },
  },
  replicate: {
    package: "@ai-sdk/replicate",
    modalities: ["image", "video"],
    optionsKey: "replicate",
    defaultBaseUrl: "https://api.replicate.com/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createReplicate({ apiToken: s.apiKey, ...(s.baseURL !== undefined ? { baseURL: s.baseURL } : {}), ...(s.fetch ? { fetch: s.fetch } : {}) });
      return { image: (id) => p.image(id), video: (id) => p.video(id) };
    },
  },
  luma: {
    package: "@ai-sdk/luma",
    modalities: ["image"],
    optionsKey: "luma",
    defaultBaseUrl: "https://api.lumalabs.ai",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createLuma(common(s, true));
      return { image: (id) => p.image(id) };
    },
  },
  "black-forest-labs": {
    package: "@ai-sdk/black-forest-labs",
    modalities: ["image"],
    optionsKey: "blackForestLabs",
    defaultBaseUrl: "https://api.bfl.ai/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createBlackForestLabs(common(s, true));
      return { image: (id) => p.image(id) };
    },
  },
  xai: {
    package: "@ai-sdk/xai",
    modalities: ["image", "video"],
    optionsKey: "xai",
    defaultBaseUrl: "https://api.x.ai/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createXai(common(s, true));
      return { image: (id) => p.image(id), video: (id) => p.video(id) };
    },
  },
  togetherai: {
    package: "@ai-sdk/togetherai",
    modalities: ["image"],
    optionsKey: "togetherai",
    defaultBaseUrl: "https://api.together.xyz/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createTogetherAI(common(s, true));
      return { image: (id) => p.image(id) };
    },
  },
  fireworks: {
    package: "@ai-sdk/fireworks",
    modalities: ["image"],
    optionsKey: "fireworks",
    defaultBaseUrl: "https://api.fireworks.ai/inference/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createFireworks(common(s, true));
      return { image: (id) => p.image(id) };
    },
  },
  deepinfra: {
    package: "@ai-sdk/deepinfra",
    modalities: ["image"],
    optionsKey: "deepinfra",
    // The factory appends /inference to a baseURL for its image calls.
    defaultBaseUrl: "https://api.deepinfra.com/v1",
    baseUrlRequired: false,
    fixedHosts: [],
    create: (s) => {
      const p = createDeepInfra(common(s, true));
      return { image: (id) => p.image(id) };
    },
  },
  elevenlabs: {
    package: "@ai-sdk/elevenlabs",
    modalities: ["audio"],
    optionsKey: "elevenlabs",
    defaultBaseUrl: "https://api.elevenlabs.io",
    baseUrlRequired: false,
    fixedHosts: [{ origin: "https://api.elevenlabs.io", path: "" }],
    create: (s) => {
      const p = createElevenLabs(common(s, false));
      return { audio: (id) => p.speech(id) };
    },
  },
  lmnt: {
    package: "@ai-sdk/lmnt",
    modalities: ["audio"],
    optionsKey: "lmnt",
    defaultBaseUrl: "https://api.lmnt.com",
    baseUrlRequired: false,
    fixedHosts: [{ origin: "https://api.lmnt.com", path: "" }],
    create: (s) => {
      const p = createLMNT(common(s, false));
      return { audio: (id) => p.speech(id) };
    },
  },
} as const satisfies Record<string, AiSdkProviderInfo>;

export type AiSdkProviderName = keyof typeof AI_SDK_PROVIDERS;

export function aiSdkProvider(name: string): AiSdkProviderInfo | null {
  return Object.hasOwn(AI_SDK_PROVIDERS, name) ? AI_SDK_PROVIDERS[name as AiSdkProviderName] : null;
}

/**
 * A fetch that sends requests for the package's fixed hosts to `baseUrl` instead (keeping path
 * and query), and every other request (result files on a storage host) where it was going.
 */
export function redirectingFetch(hosts: AiSdkProviderInfo["fixedHosts"], baseUrl: string, inner: FetchFunction = globalThis.fetch): FetchFunction {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    for (const host of hosts) {
      if (url === host.origin || url.startsWith(`${host.origin}/`) || url.startsWith(`${host.origin}?`)) {
        const target = `${baseUrl}${host.path}${url.slice(host.origin.length)}`;
        return inner(typeof input === "string" || input instanceof URL ? target : new Request(target, input), init);
      }
    }
    return inner(input, init);
  };
}
