// The connection check of an "ai-sdk" (and "openai-images") provider: one documented read of the
// provider's own API that costs nothing, sent through the adapter's fetch (providerFetch: the
// address rules, the key only to the provider's hosts; a fixed host redirected to base_url), with
// the key in the header the package itself sends. The AI SDK's packages have no such call of
// their own, so each read is the provider's API reference's:
//   openai, openai-compatible, xai, togetherai  GET {base}/models (OpenAI's model list; Together's
//               is a bare array)
//   deepinfra   GET https://api.deepinfra.com/v1/openai/models (its OpenAI-compatible list)
//   google      GET {base}/models (the Gemini API's models.list)
//   replicate   GET {base}/account (the token's account)
//   elevenlabs  GET /v1/models (the models the key may use)
// A package not listed (fal, fireworks, luma, black-forest-labs, lmnt) gets no check yet: their
// hosts' free reads are not in our fakes, and a check that was never run against the
// provider's shape is not claimed.
import type { AiSdkProviderName } from "./ai-sdk-providers";

export interface ConnectionRead {
  /** The URL read; `base` is the package's base URL (base_url, else its default host). */
  url(base: string): string;
  headers(apiKey: string | null): Record<string, string>;
  /** What the answer tells, or null when it is not the answer this call has. */
  describe(answer: unknown): string | null;
}

const bearer = (apiKey: string | null): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});

/** OpenAI's list ({object: "list", data: [...]}), or a bare array (Together AI, ElevenLabs). */
function countOf(answer: unknown, field = "data"): number | null {
  if (Array.isArray(answer)) return answer.length;
  const list = (answer as Record<string, unknown> | null)?.[field];
  return Array.isArray(list) ? list.length : null;
}

const models = (count: number | null) => (count === null ? null : `${count} model${count === 1 ? "" : "s"}`);

const MODEL_LIST: ConnectionRead = {
  url: (base) => `${base}/models`,
  headers: bearer,
  describe: (answer) => models(countOf(answer)),
};

export const CONNECTION_READS: Partial<Record<AiSdkProviderName, ConnectionRead>> = {
  openai: MODEL_LIST,
  "openai-compatible": MODEL_LIST,
  xai: MODEL_LIST,
  togetherai: MODEL_LIST,
  deepinfra: { ...MODEL_LIST, url: (base) => `${base}/openai/models` },
  google: {
    url: (base) => `${base}/models?pageSize=1000`,
    headers: (apiKey): Record<string, string> => (apiKey ? { "x-goog-api-key": apiKey } : {}),
    describe: (answer) => models(countOf(answer, "models")),
  },
  replicate: {
    url: (base) => `${base}/account`,
    headers: bearer,
    describe(answer) {
      const { username, type } = (answer ?? {}) as { username?: unknown; type?: unknown };
      if (typeof username !== "string" || !username) return null;
      return `account ${username.slice(0, 100)}${typeof type === "string" ? ` (${type.slice(0, 40)})` : ""}`;
    },
  },
  elevenlabs: {
    url: (base) => `${base}/v1/models`,
    headers: (apiKey): Record<string, string> => (apiKey ? { "xi-api-key": apiKey } : {}),
    describe: (answer) => models(countOf(answer)),
  },
};
