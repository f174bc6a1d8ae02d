// The "ai-sdk" kind's providers file: which packages make what (read from each package's code),
// base_url and keys, and how an entry's fields become the call's arguments or providerOptions.
import { describe, expect, it } from "vitest";
import { callArguments, type CallOptions } from "./ai-sdk-call";
import { AI_SDK_PROVIDERS, redirectingFetch } from "./ai-sdk-providers";
import { remoteModels } from "./index";
import { parseProvidersFile } from "./providers-file";
import type { Modality } from "../models/types";

const ENV = { KEY: "sk-parse-test" };

const SCHEMAS: Record<string, Record<string, unknown>> = {
  image: { prompt: { type: "string" }, n: { type: "integer", default: 1 }, size: { type: "string", enum: ["1024x1024", "auto"] }, quality: { type: "string" } },
  audio: { text: { type: "string" }, voice: { type: "string" }, speed: { type: "number" }, seed: { type: "integer" } },
  video: { prompt: { type: "string" }, duration: { type: "integer" }, aspect_ratio: { type: "string", enum: ["16:9", "9:16"] }, negativePrompt: { type: "string" } },
};
const REQUIRED: Record<string, string> = { image: "prompt", audio: "text", video: "prompt" };

function entry(modality: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `acme/${modality}-${Math.random().toString(36).slice(2, 8)}`,
    upstream_model: "model-1",
    name: "Model",
    description: "A model.",
    modality,
    tasks: ["text-to-x"],
    input_schema: { type: "object", additionalProperties: false, required: [REQUIRED[modality]], properties: SCHEMAS[modality] },
    pricing: { unit: "run", usd: "0.01" },
    ...overrides,
  };
}

function file(provider: Record<string, unknown>, entries: unknown[]): string {
  return JSON.stringify({ providers: [{ id: "acme", kind: "ai-sdk", api_key_env: "KEY", ...provider, entries }] });
}

function parse(provider: Record<string, unknown>, entries: unknown[]) {
  return parseProvidersFile(file(provider, entries), ENV);
}

function parseError(provider: Record<string, unknown>, entries: unknown[]): string {
  try {
    parse(provider, entries);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("it parsed");
}

describe("ai-sdk providers file", () => {
  it("knows what each package really makes: every claimed modality parses and builds its model, every other is refused with the field's path", () => {
    const expected: Record<string, Modality[]> = {
      openai: ["image", "audio"],
      "openai-compatible": ["image"],
      google: ["image", "video"],
      fal: ["image", "audio", "video"],
      replicate: ["image", "video"],
      luma: ["image"],
      "black-forest-labs": ["image"],
      xai: ["image", "video"],
      togetherai: ["image"],
      fireworks: ["image"],
      deepinfra: ["image"],
      elevenlabs: ["audio"],
      lmnt: ["audio"],
    };
    expect(Object.fromEntries(Object.entries(AI_SDK_PROVIDERS).map(([name, info]) => [name, [...info.modalities]]))).toEqual(expected);
    for (const [name, modalities] of Object.entries(expected)) {
      const baseUrl = { base_url: "http://127.0.0.1:9/v1" };
      for (const modality of ["image", "audio", "video"] as const) {
        if (modalities.includes(modality)) {
          const providers = parse({ provider: name, ...baseUrl }, [entry(modality)]);
          expect(providers[0]!.options).toEqual({ provider: name });
          // The adapter builds the package's model for the entry (a model the package lacks would throw).
          const models = AI_SDK_PROVIDERS[name as keyof typeof AI_SDK_PROVIDERS].create({ apiKey: "k", baseURL: undefined, fetch: undefined }) as Record<string, (id: string) => unknown>;
          expect(models[modality]!("model-1"), `${name} ${modality}`).toBeTruthy();
          expect(remoteModels(providers)).toHaveLength(1);
        } else {
          const what = modalities.map((m) => `"${m}"`).join(", ");
          expect(parseError({ provider: name, ...baseUrl }, [entry(modalities[0]!), entry(modality)])).toMatch(
            new RegExp(`^providers\\[0\\]\\.entries\\[1\\]\\.modality must be one of ${what}: @ai-sdk/${name} makes .* only; got "${modality}"\\.$`),
          );
        }
      }
    }
  });

  it("names the provider package, requires base_url for an OpenAI-compatible server, and a key for a hosted default", () => {
    expect(parseError({ provider: "midjourney" }, [entry("image")])).toMatch(/^providers\[0\]\.provider must be one of "openai", "openai-compatible", .*; got "midjourney"\.$/);
    expect(parseError({ api_key_env: undefined }, [entry("image")])).toBe("providers[0].provider is required.");
    expect(parseError({ provider: "openai-compatible" }, [entry("image")])).toMatch(/^providers\[0\]\.base_url is required for "openai-compatible"/);
    expect(parseError({ provider: "openai", api_key_env: undefined }, [entry("image")])).toBe(
      "providers[0].api_key_env is required when base_url is left out: @ai-sdk/openai then calls https://api.openai.com/v1, which needs a key.",
    );
    // A local server needs no key.
    expect(parse({ provider: "openai-compatible", base_url: "http://127.0.0.1:8080/v1", api_key_env: undefined }, [entry("image")])[0]!.apiKey).toBeNull();
    expect(parseError({ provider: "openai", bogus: 1 }, [entry("image")])).toMatch(/^providers\[0\]\.bogus is not a known field/);
  });

  it("needs the standard field of the modality: a prompt for images and videos, a text for speech", () => {
    const noText = entry("audio", { input_schema: { type: "object", additionalProperties: false, properties: { voice: { type: "string" } } } });
    expect(parseError({ provider: "elevenlabs" }, [noText])).toBe(
      'providers[0].entries[0].input_schema must have a required string field for the call\'s text (a audio model always needs one): name it "text", or map another field to it with "call".',
    );
    const optionalPrompt = entry("image", { input_schema: { type: "object", additionalProperties: false, properties: { prompt: { type: "string" } } } });
    expect(parseError({ provider: "openai" }, [optionalPrompt])).toMatch(/^providers\[0\]\.entries\[0\]\.input_schema must have a required string field for the call's prompt/);
    // Mapped from another field with `call`:
    const described = entry("image", {
      input_schema: { type: "object", additionalProperties: false, required: ["description"], properties: { description: { type: "string" } } },
      call: { description: "prompt" },
    });
    expect(parse({ provider: "openai" }, [described])[0]!.entries[0]!.options).toMatchObject({ fields: { description: { arg: "prompt" } } });
  });

  it("sends a field named like a standard argument as that argument, and every other field to providerOptions under its own name", () => {
    const [provider] = parse({ provider: "openai" }, [entry("image"), entry("audio")]);
    const image = provider!.entries[0]!.options as unknown as CallOptions;
    expect(image.fields).toEqual({ prompt: { arg: "prompt" }, n: { arg: "n" }, size: { arg: "size" }, quality: { option: ["quality"] } });
    expect(callArguments(image, { prompt: "a fox", n: 2, size: "auto", quality: "high" })).toEqual({
      args: { prompt: "a fox", n: 2, size: "auto" },
      providerOptions: { quality: "high" },
    });
    // "seed" is a standard argument of images and videos, but not of speech: there it is a provider option.
    const audio = provider!.entries[1]!.options as unknown as CallOptions;
    expect(audio.fields).toMatchObject({ text: { arg: "text" }, voice: { arg: "voice" }, speed: { arg: "speed" }, seed: { option: ["seed"] } });
  });

  it("maps fields with `call` (renamed, nested, or not sent) and merges fixed provider_options under the input's values", () => {
    const speech = entry("audio", {
      input_schema: {
        type: "object",
        additionalProperties: false,
        required: ["words"],
        properties: { words: { type: "string" }, stability: { type: "number" }, tier: { type: "string", default: "standard" }, speed: { type: "number" } },
      },
      call: { words: "text", stability: "providerOptions.voiceSettings.stability", tier: null, speed: "providerOptions.voiceSettings.speed" },
      provider_options: { voiceSettings: { similarityBoost: 0.5, stability: 0.1 }, enableLogging: false },
    });
    const options = parse({ provider: "elevenlabs" }, [speech])[0]!.entries[0]!.options as unknown as CallOptions;
    expect(callArguments(options, { words: "Hello", stability: 0.8, tier: "pro", speed: 1.1 })).toEqual({
      args: { text: "Hello" },
      providerOptions: { voiceSettings: { similarityBoost: 0.5, stability: 0.8, speed: 1.1 }, enableLogging: false },
    });
    // The entry's fixed options are copied, never changed by a run.
    expect(options.providerOptions).toEqual({ voiceSettings: { similarityBoost: 0.5, stability: 0.1 }, enableLogging: false });
  });

  it("says which field is wrong in a mapping", () => {
    const withCall = (modality: string, call: unknown, properties?: Record<string, unknown>) =>
      entry(modality, {
        call,
        ...(properties ? { input_schema: { type: "object", additionalProperties: false, required: [REQUIRED[modality]], properties } } : {}),
      });
    expect(parseError({ provider: "openai" }, [withCall("image", { nope: "prompt" })])).toBe(
      "providers[0].entries[0].call.nope names no field of input_schema (prompt, n, size, quality).",
    );
    expect(parseError({ provider: "openai" }, [withCall("image", { quality: "style" })])).toMatch(
      /^providers\[0\]\.entries\[0\]\.call\.quality must be a standard argument of a image call \(prompt, images, mask, n, size, aspectRatio, seed\), "providerOptions\.<name>"/,
    );
    expect(parseError({ provider: "openai" }, [withCall("image", "prompt")])).toBe('providers[0].entries[0].call must be an object of input field → target; got "prompt".');
    expect(parseError({ provider: "openai" }, [withCall("image", { quality: "prompt" })])).toBe(
      'providers[0].entries[0].call.quality makes "quality" the call\'s prompt, which "prompt" already is; map one of them elsewhere with "call".',
    );
    expect(parseError({ provider: "openai" }, [withCall("image", {}, { prompt: { type: "string" }, n: { type: "string" } })])).toBe(
      'providers[0].entries[0].input_schema.properties.n makes "n" the call\'s n, which must be of type integer; the field is string. Send it as "providerOptions.n" instead.',
    );
    expect(parseError({ provider: "openai" }, [withCall("image", {}, { prompt: { type: "string" }, size: { type: "string", enum: ["big"] } })])).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema\.properties\.size makes "size" the call's size, whose values must look like "\{width\}x\{height\}"/,
    );
    expect(parseError({ provider: "google" }, [withCall("video", {}, { prompt: { type: "string" }, aspect_ratio: { type: "string", enum: ["wide"] } })])).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema\.properties\.aspect_ratio makes "aspect_ratio" the call's aspectRatio, whose values must look like "\{width\}:\{height\}"/,
    );
    // The same field as a provider option is fine.
    expect(() => parse({ provider: "openai" }, [withCall("image", { size: "providerOptions.size" }, { prompt: { type: "string" }, size: { type: "string", enum: ["big"] } })])).not.toThrow();
    expect(parseError({ provider: "openai" }, [entry("image", { provider_options: [1] })])).toBe("providers[0].entries[0].provider_options must be an object; got an array.");
  });
});

describe("redirectingFetch", () => {
  it("sends a package's fixed hosts to base_url (path and query kept) and leaves other hosts alone", async () => {
    const seen: string[] = [];
    const inner: typeof fetch = async (input) => {
      seen.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      return new Response("ok");
    };
    const redirect = redirectingFetch(AI_SDK_PROVIDERS.fal.fixedHosts, "http://127.0.0.1:9/fal", inner);
    await redirect("https://queue.fal.run/fal-ai/veo3/requests/1?logs=1");
    await redirect(new URL("https://fal.run/fal-ai/tts"));
    await redirect("https://v3.fal.media/files/out.mp4");
    await redirect("https://fal.running.example/x");
    expect(seen).toEqual([
      "http://127.0.0.1:9/fal/queue/fal-ai/veo3/requests/1?logs=1",
      "http://127.0.0.1:9/fal/fal-ai/tts",
      "https://v3.fal.media/files/out.mp4",
      "https://fal.running.example/x",
    ]);
  });
});
