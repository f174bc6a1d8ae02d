// The AI SDK's provider packages a providers file may name (`"provider": "openai"`), read from each
// package's own code (ai@6, @ai-sdk/* of package.json): which models it really makes (image,
// speech, video), the key of its `providerOptions`, and how a `base_url` reaches it — the
// factory's `baseURL` where it has one, else a `fetch` that sends its fixed host's requests there.
// Every package gets providerFetch (below): the packages fetch result links and polling URLs their
// provider names with `getFromApi`, which checks no address, so our fetch does.
import type { experimental_generateSpeech, experimental_generateVideo, generateImage } from "ai";
import { aiPackage, PROVIDER_PACKAGES } from "./ai-sdk-packages";
import type { Modality } from "../../core/catalog/model-definition";
import { guardedFetch, type FetchFunction } from "../common/guarded-fetch";
import { readCapped } from "../common/response-bytes";
import type { Resolve } from "../common/result-links";

export type ImageModel = Parameters<typeof generateImage>[0]["model"];
export type SpeechModel = Parameters<typeof experimental_generateSpeech>[0]["model"];
export type VideoModel = Parameters<typeof experimental_generateVideo>[0]["model"];
export type { FetchFunction };

/** What the adapter hands a factory. */
export interface FactorySettings {
  apiKey: string | undefined;
  /** The providers file's base_url, for factories that take one; undefined: the package's default host. */
  baseURL: string | undefined;
  /** providerFetch (with the redirect of fixed hosts on top); undefined only where a test builds a model bare. */
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
  /** Where it sends requests when the file gives no base_url (shown in docs/providers.md). */
  defaultBaseUrl: string;
  /** True when the file must give base_url (a self-hosted server has no default host). */
  baseUrlRequired: boolean;
  /**
   * Fixed origins the package calls without a `baseURL` option (all of them, or those of some
   * modalities): a base_url is reached by a `fetch` rewriting `origin` to `base_url + path`.
   */
  fixedHosts: ReadonlyArray<{ origin: string; path: string }>;
  /**
   * Domains (with their subdomains) that are the provider's own besides its base URL's host: the
   * key goes there too (fal's queue host; BFL's polling URLs on regional hosts such as api.us1.bfl.ai).
   */
  keyDomains?: readonly string[];
  /**
   * Reads each JSON answer the package gets, for job ends it would poll past until its timeout or
   * report in generic words of its own (see providerFetch): the end in the provider's words, or null.
   */
  pollAnswer?(answer: Record<string, unknown>): JobEnd | null;
  /**
   * Reads a 2xx answer the package could not parse (ai-sdk-errors.ts): a job that had not ended
   * well when the package expected its result in that answer; the end, or null.
   */
  unparsedAnswer?(answer: Record<string, unknown>): JobEnd | null;
  create(settings: FactorySettings): AiSdkModels;
}

/** How a provider's job ended without a result, in its own words. */
export interface JobEnd {
  /** A refusal of the request (a moderation); otherwise the job failed. Either fails the run only. */
  refused: boolean;
  words: string;
}

/** Thrown by providerFetch when an answer tells a job's end (AiSdkProviderInfo.pollAnswer). */
export class JobEndedError extends Error {
  constructor(readonly end: JobEnd) {
    super(end.words);
    this.name = "JobEndedError";
  }
}

/** The strings inside a provider's `details` or `error` (BFL: {"Moderation Reasons": [...]}), joined; or null. */
function wordsIn(value: unknown): string | null {
  const words: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string" && v.trim()) words.push(v.trim());
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return words.length > 0 ? words.join("; ").slice(0, 500) : null;
}

/**
 * BFL's get_result (Fireworks' kontext workflows are BFL's API, with its statuses). Its package
 * polls on through "Request Moderated" (and Fireworks' through every status it does not know)
 * until its own timeout, fails to parse "Content Moderated" and "Task not found" (which looked
 * like an outage), and drops the `details` of an "Error".
 */
function bflPollAnswer(answer: Record<string, unknown>): JobEnd | null {
  const status = answer.status ?? answer.state;
  const details = wordsIn(answer.details);
  if (status === "Request Moderated" || status === "Content Moderated")
    return { refused: true, words: details ? `${status} (${details})` : String(status) };
  if (status === "Task not found") return { refused: false, words: "it no longer knows the task (Task not found)." };
  if ((status === "Error" || status === "Failed") && details) return { refused: false, words: details };
  return null;
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
      const p = PROVIDER_PACKAGES.openai().createOpenAI(common(s, true));
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
      const p = PROVIDER_PACKAGES.openaiCompatible().createOpenAICompatible({
        name: "openaiCompatible",
        baseURL: s.baseURL ?? "",
        ...(s.apiKey ? { apiKey: s.apiKey } : {}),
        ...(s.fetch ? { fetch: s.fetch } : {}),
      });
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
      const p = PROVIDER_PACKAGES.google().createGoogleGenerativeAI(common(s, true));
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
    keyDomains: ["fal.run"],
    create: (s) => {
      const p = PROVIDER_PACKAGES.fal().createFal(common(s, true));
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
    // Its image model sends `Prefer: wait` and reads `output` of that one answer, which has none when
    // the prediction failed or outlasted the wait (at most 60 s): the parse failed, like an outage.
    unparsedAnswer: (answer) => {
      if (answer.status === "failed")
        return { refused: false, words: wordsIn(answer.error) ?? "the prediction failed." };
      if (answer.status === "starting" || answer.status === "processing") {
        return {
          refused: false,
          words:
            'the model did not finish within Replicate\'s synchronous wait (Prefer: wait, at most 60 s); for long-running models use the native "replicate" kind, which polls.',
        };
      }
      if (answer.status === "canceled" || answer.status === "aborted")
        return { refused: false, words: `the prediction was ${answer.status}.` };
      return null;
    },
    create: (s) => {
      const p = PROVIDER_PACKAGES.replicate().createReplicate({
        apiToken: s.apiKey,
        ...(s.baseURL !== undefined ? { baseURL: s.baseURL } : {}),
        ...(s.fetch ? { fetch: s.fetch } : {}),
      });
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
      const p = PROVIDER_PACKAGES.luma().createLuma(common(s, true));
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
    keyDomains: ["bfl.ai"],
    pollAnswer: bflPollAnswer,
    create: (s) => {
      const p = PROVIDER_PACKAGES.blackForestLabs().createBlackForestLabs(common(s, true));
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
    // A failed video's status carries error.message, which the package replaces with "Video generation failed.".
    pollAnswer: (answer) => {
      const words =
        answer.status === "failed"
          ? wordsIn((answer.error as { message?: unknown } | null | undefined)?.message)
          : null;
      return words ? { refused: false, words } : null;
    },
    create: (s) => {
      const p = PROVIDER_PACKAGES.xai().createXai(common(s, true));
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
      const p = PROVIDER_PACKAGES.togetherAi().createTogetherAI(common(s, true));
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
    pollAnswer: bflPollAnswer,
    create: (s) => {
      const p = PROVIDER_PACKAGES.fireworks().createFireworks(common(s, true));
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
      const p = PROVIDER_PACKAGES.deepInfra().createDeepInfra(common(s, true));
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
      const p = PROVIDER_PACKAGES.elevenLabs().createElevenLabs(common(s, false));
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
      const p = PROVIDER_PACKAGES.lmnt().createLMNT(common(s, false));
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
export function redirectingFetch(
  hosts: AiSdkProviderInfo["fixedHosts"],
  baseUrl: string,
  inner: FetchFunction = globalThis.fetch,
): FetchFunction {
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

export interface ProviderFetchOptions {
  /** The provider's base URL (base_url, else the package's default): its host is the provider's own. */
  baseUrl: string;
  apiKey: string | null;
  keyDomains?: readonly string[];
  pollAnswer?: AiSdkProviderInfo["pollAnswer"];
  /** Tests only: how names resolve. */
  resolve?: Resolve;
}

/**
 * The fetch every package gets: guardedFetch (no local or private address but the provider's
 * own, the key only to the provider's hosts, every redirect hop checked). With `pollAnswer`, a
 * JSON answer that tells a job's end throws JobEndedError: a package that would poll on for
 * minutes cannot be told otherwise, and reading the answer on its way in changes nothing the
 * package sees when it is not such an end.
 */
/** The largest answer `pollAnswer` reads. */
const POLL_ANSWER_MAX_BYTES = 64 * 1024;

export function providerFetch(options: ProviderFetchOptions, inner: FetchFunction = globalThis.fetch): FetchFunction {
  const guarded = guardedFetch(
    { ...options, refused: (reason) => new (aiPackage().DownloadError)({ url: "(result link)", message: reason }) },
    inner,
  );
  if (!options.pollAnswer) return guarded;
  const pollAnswer = options.pollAnswer;
  return async (input, init) => {
    const response = await guarded(input, init);
    const declared = Number(response.headers.get("content-length") ?? 0);
    // Job status answers are small; a large JSON answer (base64 images) is the result itself, left unread here.
    if (response.ok && declared <= POLL_ANSWER_MAX_BYTES && /json/i.test(response.headers.get("content-type") ?? "")) {
      const text = await readCapped(response.clone(), POLL_ANSWER_MAX_BYTES).catch(() => null);
      let answer: unknown = null;
      try {
        answer = text ? JSON.parse(text.toString("utf8")) : null;
      } catch {
        answer = null;
      }
      const end =
        answer && typeof answer === "object" && !Array.isArray(answer)
          ? pollAnswer(answer as Record<string, unknown>)
          : null;
      if (end) {
        await response.body?.cancel();
        throw new JobEndedError(end);
      }
    }
    return response;
  };
}
