// `kind: "ai-sdk"`: image, speech and video models through the AI SDK (`ai`'s generateImage,
// experimental_generateSpeech and experimental_generateVideo) and the provider packages of
// ai-sdk-providers.ts. Each call answers in one request (the SDK polls a video job itself), so a
// request is billed as soon as it is sent (billsOnSubmit) and there is never a job for the engine
// to poll. Outputs come back as bytes (FetchedOutput): the remote entry measures and stores them,
// so a provider's URL is never handed out. No retries inside the SDK (`maxRetries: 0`): a failed
// call fails the run, and an outage takes the provider out of service at once.
import type { generateImage } from "ai";
import type { Modality } from "../../core/catalog/model-definition";
import { aiPackage } from "./ai-sdk-packages";
import { callArguments, parseCallOptions, type CallModality, type CallOptions } from "./ai-sdk-call";
import { CONNECTION_READS } from "./ai-sdk-check";
import { answerFailure, failureOf, failuresFor, type FailureContext } from "./ai-sdk-errors";
import {
  AI_SDK_PROVIDERS,
  aiSdkProvider,
  providerFetch,
  redirectingFetch,
  type AiSdkModels,
  type AiSdkProviderInfo,
  type FetchFunction,
} from "./ai-sdk-providers";
import { createHealth, markUp } from "../common/health";
import { fail, stringAt, type JsonObject } from "../common/json-fields";
import type { ProviderKind, ProviderModalities } from "../common/kind";
import { errorText } from "../common/replicate-fal-shared";
import { readCapped } from "../common/response-bytes";
import {
  type FetchedOutput,
  type ProviderAdapter,
  type ProviderConfig,
  type ProviderRequest,
  type ProviderResult,
} from "../common/types";

/** Largest video fetched from a provider's result link. */
const MAX_VIDEO_BYTES = 1024 * 1024 * 1024;
/** Largest answer a connection check reads (a model list). */
const MAX_CHECK_BYTES = 8 * 1024 * 1024;

type ProviderOptions = NonNullable<Parameters<typeof generateImage>[0]["providerOptions"]>;

export interface AiSdkAdapterOptions {
  /** Which package speaks to the provider (a key of AI_SDK_PROVIDERS). */
  provider: string;
  /** Where the package sends requests instead of its default host ("" for that default). */
  baseUrl: string;
  /** Tests only: a fetch that sees every request after our checks (providerFetch) and the redirect of fixed hosts. */
  fetch?: FetchFunction;
  /**
   * The mapping for an entry whose options hold none (a ProviderConfig built in code rather than
   * read from a file): by field name, or only these fields as standard arguments (openai-images).
   */
  defaultCall?: Parameters<typeof parseCallOptions>[4];
}

/** The entry's parsed mapping, or one made from its schema when it was built without one. */
function callOptionsOf(entry: ProviderRequest["entry"], defaults: AiSdkAdapterOptions["defaultCall"]): CallOptions {
  const options = entry.options as Partial<CallOptions>;
  if (options.fields && options.providerOptions) return options as CallOptions;
  return parseCallOptions({}, entry.id, entry.inputSchema, entry.modality as CallModality, defaults);
}

/** A file input as the SDK takes it: the workspace file's bytes. */
async function fileBytes(request: ProviderRequest, value: unknown): Promise<Uint8Array[]> {
  const ids = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return Promise.all(ids.map(async (id) => new Uint8Array((await request.readFile(String(id))).data)));
}

type Call = (signal: AbortSignal) => Promise<FetchedOutput[]>;

export function aiSdkAdapter(config: ProviderConfig, options: AiSdkAdapterOptions): ProviderAdapter {
  const info: AiSdkProviderInfo | null = aiSdkProvider(options.provider);
  if (!info) throw new Error(`unknown AI SDK provider "${options.provider}"`);
  const health = createHealth();
  const base = options.baseUrl || undefined;
  // Every request of the package goes through our checks (providerFetch): its own result-link
  // fetches check no address. Fixed hosts are redirected first, so the checks see the real target.
  const guarded = providerFetch(
    {
      baseUrl: base ?? info.defaultBaseUrl,
      apiKey: config.apiKey,
      keyDomains: info.keyDomains,
      pollAnswer: info.pollAnswer,
    },
    options.fetch ?? globalThis.fetch,
  );
  const fetch = base && info.fixedHosts.length > 0 ? redirectingFetch(info.fixedHosts, base, guarded) : guarded;
  const models: AiSdkModels = info.create({ apiKey: config.apiKey ?? "", baseURL: base, fetch });

  function context(modality: Modality): FailureContext {
    return { providerId: config.id, apiKey: config.apiKey, health, modality, unparsedAnswer: info!.unparsedAnswer };
  }

  /** experimental_generateVideo's `download`: the run's signal and a size cap; `fetch` checks the address. */
  async function download({
    url,
    abortSignal,
  }: {
    url: URL;
    abortSignal?: AbortSignal;
  }): Promise<{ data: Uint8Array; mediaType: string | undefined }> {
    const response = await fetch(url.href, { signal: abortSignal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new (aiPackage().DownloadError)({
        url: "(result link)",
        statusCode: response.status,
        statusText: response.statusText,
      });
    }
    const data = await readCapped(response, MAX_VIDEO_BYTES);
    return { data: new Uint8Array(data), mediaType: response.headers.get("content-type") ?? undefined };
  }

  const files = (list: ReadonlyArray<{ uint8Array: Uint8Array; mediaType: string }>): FetchedOutput[] =>
    list.map((file) => ({ type: "file", data: Buffer.from(file.uint8Array), content_type: file.mediaType || null }));

  /** Reads the run's file inputs, then returns the call itself (so a missing file is not the provider's failure). */
  async function prepare(request: ProviderRequest): Promise<Call> {
    const modality = request.entry.modality;
    const { args, providerOptions } = callArguments(callOptionsOf(request.entry, options.defaultCall), request.input);
    const common = {
      providerOptions: (Object.keys(providerOptions).length > 0
        ? { [info!.optionsKey]: providerOptions }
        : {}) as ProviderOptions,
      maxRetries: 0,
    };
    const model = request.upstreamModel;
    if (modality === "image" && models.image) {
      const images = await fileBytes(request, args.images);
      const [mask] = await fileBytes(request, args.mask);
      const text = args.prompt as string;
      const prompt = images.length > 0 ? { images, text, ...(mask ? { mask } : {}) } : text;
      return async (abortSignal) => {
        const result = await aiPackage().generateImage({
          ...common,
          model: models.image!(model),
          prompt,
          n: args.n as number | undefined,
          size: args.size as `${number}x${number}` | undefined,
          aspectRatio: args.aspectRatio as `${number}:${number}` | undefined,
          seed: args.seed as number | undefined,
          abortSignal,
        });
        return files(result.images);
      };
    }
    if (modality === "audio" && models.audio) {
      return async (abortSignal) => {
        const result = await aiPackage().experimental_generateSpeech({
          ...common,
          model: models.audio!(model),
          text: args.text as string,
          voice: args.voice as string | undefined,
          outputFormat: args.outputFormat as string | undefined,
          instructions: args.instructions as string | undefined,
          speed: args.speed as number | undefined,
          language: args.language as string | undefined,
          abortSignal,
        });
        return files([result.audio]);
      };
    }
    if (modality === "video" && models.video) {
      const [image] = await fileBytes(request, args.image);
      const text = args.prompt as string;
      return async (abortSignal) => {
        const result = await aiPackage().experimental_generateVideo({
          ...common,
          model: models.video!(model),
          prompt: image ? { image, text } : text,
          n: args.n as number | undefined,
          aspectRatio: args.aspectRatio as `${number}:${number}` | undefined,
          resolution: args.resolution as `${number}x${number}` | undefined,
          duration: args.duration as number | undefined,
          fps: args.fps as number | undefined,
          seed: args.seed as number | undefined,
          generateAudio: args.generateAudio as boolean | undefined,
          abortSignal,
          download,
        });
        return files(result.videos);
      };
    }
    // The providers file was checked against the table; this is a programming error.
    throw new Error(`${info!.package} makes no ${modality} models`);
  }

  /** The provider's documented free read (ai-sdk-check.ts), under the same failure rules as a run's call. */
  const read = CONNECTION_READS[options.provider as keyof typeof CONNECTION_READS];
  async function checkConnection(runSignal: AbortSignal): Promise<string> {
    const ctx = context("image");
    const failures = failuresFor(ctx);
    const what = "to list what it serves";
    const detail = await failures.within(
      runSignal,
      config.timeoutMs,
      async (signal) => {
        // A fixed-host package (ElevenLabs) is read at its own host: `fetch` redirects it to base_url.
        const origin = info!.fixedHosts.length > 0 ? info!.defaultBaseUrl : (base ?? info!.defaultBaseUrl);
        const response = await fetch(read!.url(origin), {
          headers: { accept: "application/json", ...read!.headers(config.apiKey) },
          signal,
        });
        if (!response.ok)
          throw answerFailure(
            ctx,
            response.status,
            await errorText(response),
            response.headers.get("retry-after"),
            what,
          );
        let answer: unknown = null;
        try {
          answer = JSON.parse((await readCapped(response, MAX_CHECK_BYTES)).toString("utf8"));
        } catch {
          answer = null;
        }
        const said = read!.describe(answer);
        if (said === null)
          throw failures.down(
            "an answer that is not its API's",
            `The provider ${config.id} answered with something that is not the JSON of its API.`,
          );
        return said;
      },
      (err) => failureOf(err, ctx),
    );
    markUp(health);
    return detail;
  }

  return {
    billsOnSubmit: true,
    health,
    ...(read ? { checkConnection } : {}),
    async submit(request, runSignal): Promise<ProviderResult> {
      runSignal.throwIfAborted();
      const call = await prepare(request);
      const ctx = context(request.entry.modality);
      const outputs = await failuresFor(ctx).within(runSignal, config.timeoutMs, call, (err) => failureOf(err, ctx));
      markUp(health);
      return { kind: "done", outputs };
    },
    async poll(job) {
      throw new Error(`AI SDK calls answer in one request; there is no job ${job.id} to poll`);
    },
  };
}

function parseProvider(provider: JsonObject, path: string): Record<string, unknown> {
  const name = stringAt(provider, "provider", path, { oneOf: Object.keys(AI_SDK_PROVIDERS) });
  const info = aiSdkProvider(name)!;
  if (info.baseUrlRequired && provider.base_url === undefined) {
    fail(
      `${path}.base_url`,
      `is required for "${name}": the URL of the server's API, such as http://127.0.0.1:8080/v1.`,
    );
  }
  if (provider.base_url === undefined && provider.api_key_env === undefined) {
    fail(
      `${path}.api_key_env`,
      `is required when base_url is left out: ${info.package} then calls ${info.defaultBaseUrl}, which needs a key.`,
    );
  }
  return { provider: name };
}

/**
 * What an ai-sdk provider makes: its package's modalities (null when `provider` names no package,
 * which its own parse refuses). Its entries, and the routes naming it, are held to them.
 */
function packageModalities(settings: JsonObject): ProviderModalities | null {
  const info = typeof settings.provider === "string" ? aiSdkProvider(settings.provider) : null;
  if (!info) return null;
  const makes = info.modalities.map((m) => (m === "audio" ? "audio (speech)" : m)).join(", ");
  return { modalities: info.modalities, says: `${info.package} makes ${makes} only` };
}

/**
 * `kind: "ai-sdk"`: `provider` names the package; `base_url` (optional, except for
 * openai-compatible) is that package's baseURL; entries may map their fields with `call` and add
 * fixed `provider_options` (ai-sdk-call.ts).
 */
export const aiSdkKind: ProviderKind = {
  name: "ai-sdk",
  modalities: ["image", "audio", "video"],
  baseUrlRequired: false,
  upstreamModelRequired: true,
  providerFields: ["provider"],
  entryFields: ["call", "provider_options"],
  parseProvider,
  modalitiesOf: packageModalities,
  parseEntry(entry, path, schema) {
    return { ...parseCallOptions(entry, path, schema, entry.modality as CallModality) };
  },
  createAdapter(config) {
    return aiSdkAdapter(config, { provider: String(config.options.provider), baseUrl: config.baseUrl });
  },
};
