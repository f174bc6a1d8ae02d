// `kind: "openai-images"`: the OpenAI-compatible image endpoint many providers serve,
// POST {base_url}/v1/images/generations with {model, prompt, n, size, response_format: "b64_json",
// …} and a Bearer key; results as b64_json or a url to fetch. Since issue 12 it runs on the AI SDK
// (an "ai-sdk" adapter with @ai-sdk/openai-compatible at base_url + "/v1"), which keeps every
// documented behaviour: the entry's fields are sent as they are (prompt, n and size as the call's
// arguments, every other field in the body under its own name), url results are fetched with the
// key only when they are on the provider's own host, and the same messages and health rules apply
// (ai-sdk-errors.ts). One limit is new: a result link on a local or private address other than
// the provider's own is refused (the AI SDK's download guard). @ai-sdk/openai itself is not used:
// it accepts b64_json results only. A `pool` of such servers instead of base_url spreads the calls
// over them (openai-images-pool.ts).
import { aiSdkAdapter } from "../ai-sdk/ai-sdk";
import { parseCallOptions } from "../ai-sdk/ai-sdk-call";
import type { FetchFunction } from "../ai-sdk/ai-sdk-providers";
import { fail } from "../common/json-fields";
import type { ProviderKind } from "../common/kind";
import { parsePool, type PoolServer } from "../common/server-pool";
import type { ProviderAdapter, ProviderConfig } from "../common/types";
import { openAiImagesPool } from "./openai-images-pool";

/** The adapter of an openai-images provider (over its `pool`, if any); `fetch` is for tests that intercept requests. */
export function openAiImagesAdapter(config: ProviderConfig, fetch?: FetchFunction): ProviderAdapter {
  const server = (baseUrl: string) =>
    aiSdkAdapter(config, {
      provider: "openai-compatible",
      baseUrl: `${baseUrl}/v1`,
      defaultCall: CALL,
      ...(fetch ? { fetch } : {}),
    });
  const pool = config.options.pool as PoolServer[] | undefined;
  return pool ? openAiImagesPool(config, pool, server) : server(config.baseUrl);
}

/** prompt, n and size are the call's; everything else goes in the body as it is. */
const CALL = { prompt: "prompt", n: "n", size: "size" } as const;

export const openAiImagesKind: ProviderKind = {
  name: "openai-images",
  modalities: ["image"],
  // Required unless `pool` names the servers (parsePool says so).
  baseUrlRequired: false,
  upstreamModelRequired: true,
  providerFields: ["pool"],
  parseProvider: (provider, path) => parsePool(provider, path, { baseUrl: "the server's URL", noun: "server" }),
  entryFields: [],
  parseEntry(entry, path, schema) {
    const prompt = schema.properties?.prompt;
    if (prompt?.type !== "string" || !schema.required?.includes("prompt")) {
      fail(
        `${path}.input_schema.properties.prompt`,
        'must be a required string field: an "openai-images" provider always needs a prompt.',
      );
    }
    // No `call` in this kind's entries: the fixed mapping.
    return { ...parseCallOptions({}, path, schema, "image", CALL) };
  },
  createAdapter: (config) => openAiImagesAdapter(config),
};
