// The "ai-sdk" kind's providers file: which packages make what (read from each package's code),
// base_url and keys, and how an entry's fields become the call's arguments or providerOptions.
import { describe, expect, it } from "vitest";
import { callArguments, type CallOptions } from "./ai-sdk-call";
import { DownloadError } from "ai";
import { AI_SDK_PROVIDERS, JobEndedError, providerFetch, redirectingFetch } from "./ai-sdk-providers";
import { remoteModels } from "../index";
import { parseProvidersFile } from "../providers-file";
import type { Modality } from "../../core/catalog/model-definition";

const ENV = { KEY: "sk-parse-test" };

const SCHEMAS: Record<string, Record<string, unknown>> = {
  image: {
    prompt: { type: "string" },
    n: { type: "integer", default: 1 },
    size: { type: "string", enum: ["1024x1024", "auto"] },
    quality: { type: "string" },
  },
  audio: { text: { type: "string" }, voice: { type: "string" }, speed: { type: "number" }, seed: { type: "integer" } },
  video: {
    prompt: { type: "string" },
    duration: { type: "integer" },
    aspect_ratio: { type: "string", enum: ["16:9", "9:16"] },
    negativePrompt: { type: "string" },
  },
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
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: [REQUIRED[modality]],
      properties: SCHEMAS[modality],
    },
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
    expect(
      Object.fromEntries(Object.entries(AI_SDK_PROVIDERS).map(([name, info]) => [name, [...info.modalities]])),
    ).toEqual(expected);
    for (const [name, modalities] of Object.entries(expected)) {
      const baseUrl = { base_url: "http://127.0.0.1:9/v1" };
      for (const modality of ["image", "audio", "video"] as const) {
        if (modalities.includes(modality)) {
          const providers = parse({ provider: name, ...baseUrl }, [entry(modality)]);
          expect(providers[0]!.options).toEqual({ provider: name });
          // The adapter builds the package's model for the entry (a model the package lacks would throw).
          const models = AI_SDK_PROVIDERS[name as keyof typeof AI_SDK_PROVIDERS].create({
            apiKey: "k",
            baseURL: undefined,
            fetch: undefined,
          }) as Record<string, (id: string) => unknown>;
          expect(models[modality]!("model-1"), `${name} ${modality}`).toBeTruthy();
          expect(remoteModels(providers)).toHaveLength(1);
        } else {
          const what = modalities.map((m) => `"${m}"`).join(", ");
          expect(parseError({ provider: name, ...baseUrl }, [entry(modalities[0]!), entry(modality)])).toMatch(
            new RegExp(
              `^providers\\[0\\]\\.entries\\[1\\]\\.modality must be one of ${what}: @ai-sdk/${name} makes .* only; got "${modality}"\\.$`,
            ),
          );
        }
      }
    }
  });

  it("names the provider package, requires base_url for an OpenAI-compatible server, and a key for a hosted default", () => {
    expect(parseError({ provider: "midjourney" }, [entry("image")])).toMatch(
      /^providers\[0\]\.provider must be one of "openai", "openai-compatible", .*; got "midjourney"\.$/,
    );
    expect(parseError({ api_key_env: undefined }, [entry("image")])).toBe("providers[0].provider is required.");
    expect(parseError({ provider: "openai-compatible" }, [entry("image")])).toMatch(
      /^providers\[0\]\.base_url is required for "openai-compatible"/,
    );
    expect(parseError({ provider: "openai", api_key_env: undefined }, [entry("image")])).toBe(
      "providers[0].api_key_env is required when base_url is left out: @ai-sdk/openai then calls https://api.openai.com/v1, which needs a key.",
    );
    // A local server needs no key.
    expect(
      parse({ provider: "openai-compatible", base_url: "http://127.0.0.1:8080/v1", api_key_env: undefined }, [
        entry("image"),
      ])[0]!.apiKey,
    ).toBeNull();
    expect(parseError({ provider: "openai", bogus: 1 }, [entry("image")])).toMatch(
      /^providers\[0\]\.bogus is not a known field/,
    );
  });

  it("needs the standard field of the modality: a prompt for images and videos, a text for speech", () => {
    const noText = entry("audio", {
      input_schema: { type: "object", additionalProperties: false, properties: { voice: { type: "string" } } },
    });
    expect(parseError({ provider: "elevenlabs" }, [noText])).toBe(
      'providers[0].entries[0].input_schema must have a required string field for the call\'s text (a audio model always needs one): name it "text", or map another field to it with "call".',
    );
    const optionalPrompt = entry("image", {
      input_schema: { type: "object", additionalProperties: false, properties: { prompt: { type: "string" } } },
    });
    expect(parseError({ provider: "openai" }, [optionalPrompt])).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema must have a required string field for the call's prompt/,
    );
    // Mapped from another field with `call`:
    const described = entry("image", {
      input_schema: {
        type: "object",
        additionalProperties: false,
        required: ["description"],
        properties: { description: { type: "string" } },
      },
      call: { description: "prompt" },
    });
    expect(parse({ provider: "openai" }, [described])[0]!.entries[0]!.options).toMatchObject({
      fields: { description: { arg: "prompt" } },
    });
  });

  it("sends a field named like a standard argument as that argument, and every other field to providerOptions under its own name", () => {
    const [provider] = parse({ provider: "openai" }, [entry("image"), entry("audio")]);
    const image = provider!.entries[0]!.options as unknown as CallOptions;
    expect(image.fields).toEqual({
      prompt: { arg: "prompt" },
      n: { arg: "n" },
      size: { arg: "size" },
      quality: { option: ["quality"] },
    });
    expect(callArguments(image, { prompt: "a fox", n: 2, size: "auto", quality: "high" })).toEqual({
      args: { prompt: "a fox", n: 2, size: "auto" },
      providerOptions: { quality: "high" },
    });
    // "seed" is a standard argument of images and videos, but not of speech: there it is a provider option.
    const audio = provider!.entries[1]!.options as unknown as CallOptions;
    expect(audio.fields).toMatchObject({
      text: { arg: "text" },
      voice: { arg: "voice" },
      speed: { arg: "speed" },
      seed: { option: ["seed"] },
    });
  });

  it("maps fields with `call` (renamed, nested, or not sent) and merges fixed provider_options under the input's values", () => {
    const speech = entry("audio", {
      input_schema: {
        type: "object",
        additionalProperties: false,
        required: ["words"],
        properties: {
          words: { type: "string" },
          stability: { type: "number" },
          tier: { type: "string", default: "standard" },
          speed: { type: "number" },
        },
      },
      call: {
        words: "text",
        stability: "providerOptions.voiceSettings.stability",
        tier: null,
        speed: "providerOptions.voiceSettings.speed",
      },
      provider_options: { voiceSettings: { similarityBoost: 0.5, stability: 0.1 }, enableLogging: false },
    });
    const options = parse({ provider: "elevenlabs" }, [speech])[0]!.entries[0]!.options as unknown as CallOptions;
    expect(callArguments(options, { words: "Hello", stability: 0.8, tier: "pro", speed: 1.1 })).toEqual({
      args: { text: "Hello" },
      providerOptions: { voiceSettings: { similarityBoost: 0.5, stability: 0.8, speed: 1.1 }, enableLogging: false },
    });
    // The entry's fixed options are copied, never changed by a run.
    expect(options.providerOptions).toEqual({
      voiceSettings: { similarityBoost: 0.5, stability: 0.1 },
      enableLogging: false,
    });
  });

  it("says which field is wrong in a mapping", () => {
    const withCall = (modality: string, call: unknown, properties?: Record<string, unknown>) =>
      entry(modality, {
        call,
        ...(properties
          ? {
              input_schema: { type: "object", additionalProperties: false, required: [REQUIRED[modality]], properties },
            }
          : {}),
      });
    expect(parseError({ provider: "openai" }, [withCall("image", { nope: "prompt" })])).toBe(
      "providers[0].entries[0].call.nope names no field of input_schema (prompt, n, size, quality).",
    );
    expect(parseError({ provider: "openai" }, [withCall("image", { quality: "style" })])).toMatch(
      /^providers\[0\]\.entries\[0\]\.call\.quality must be a standard argument of a image call \(prompt, images, mask, n, size, aspectRatio, seed\), "providerOptions\.<name>"/,
    );
    expect(parseError({ provider: "openai" }, [withCall("image", "prompt")])).toBe(
      'providers[0].entries[0].call must be an object of input field → target; got "prompt".',
    );
    expect(parseError({ provider: "openai" }, [withCall("image", { quality: "prompt" })])).toBe(
      'providers[0].entries[0].call.quality makes "quality" the call\'s prompt, which "prompt" already is; map one of them elsewhere with "call".',
    );
    expect(
      parseError({ provider: "openai" }, [
        withCall("image", {}, { prompt: { type: "string" }, n: { type: "string" } }),
      ]),
    ).toBe(
      'providers[0].entries[0].input_schema.properties.n makes "n" the call\'s n, which must be of type integer; the field is string. Send it as "providerOptions.n" instead.',
    );
    expect(
      parseError({ provider: "openai" }, [
        withCall("image", {}, { prompt: { type: "string" }, size: { type: "string", enum: ["big"] } }),
      ]),
    ).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema\.properties\.size makes "size" the call's size, whose values must look like "\{width\}x\{height\}"/,
    );
    expect(
      parseError({ provider: "google" }, [
        withCall("video", {}, { prompt: { type: "string" }, aspect_ratio: { type: "string", enum: ["wide"] } }),
      ]),
    ).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema\.properties\.aspect_ratio makes "aspect_ratio" the call's aspectRatio, whose values must look like "\{width\}:\{height\}"/,
    );
    // The same field as a provider option is fine.
    expect(() =>
      parse({ provider: "openai" }, [
        withCall(
          "image",
          { size: "providerOptions.size" },
          { prompt: { type: "string" }, size: { type: "string", enum: ["big"] } },
        ),
      ]),
    ).not.toThrow();
    expect(parseError({ provider: "openai" }, [entry("image", { provider_options: [1] })])).toBe(
      "providers[0].entries[0].provider_options must be an object; got an array.",
    );
  });

  it("refuses a video `resolution` whose values are not WxH (the package would drop them), and says how to send them as the provider's option", () => {
    const video = (resolution: unknown, call?: unknown) =>
      entry("video", {
        input_schema: {
          type: "object",
          additionalProperties: false,
          required: ["prompt"],
          properties: { prompt: { type: "string" }, resolution },
        },
        ...(call ? { call } : {}),
      });
    expect(parseError({ provider: "xai" }, [video({ type: "string", enum: ["480p", "720p"] })])).toBe(
      'providers[0].entries[0].input_schema.properties.resolution makes "resolution" the call\'s resolution, whose values must look like "{width}x{height}", such as "1280x720"; "480p" does not. ' +
        'Send it as the provider\'s own option instead: "call": {"resolution": "providerOptions.resolution"}.',
    );
    expect(
      parseError({ provider: "google" }, [video({ type: "string", enum: ["720p"] }, { resolution: "resolution" })]),
    ).toMatch(/^providers\[0\]\.entries\[0\]\.call\.resolution makes "resolution" the call's resolution, whose values/);
    const mapped = parse({ provider: "xai" }, [
      video({ type: "string", enum: ["480p", "720p"] }, { resolution: "providerOptions.resolution" }),
    ]);
    expect(mapped[0]!.entries[0]!.options).toMatchObject({ fields: { resolution: { option: ["resolution"] } } });
    expect(
      parse({ provider: "google" }, [video({ type: "string", enum: ["1280x720", "1920x1080"] })])[0]!.entries[0]!
        .options,
    ).toMatchObject({ fields: { resolution: { arg: "resolution" } } });
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

describe("providerFetch (every package's fetch)", () => {
  const KEY = "sk-fetch-test-91b2";
  /** Public-looking names resolve to a public address, internal.example to a private one (no DNS in tests). */
  const resolve = async (host: string) => (host === "internal.example" ? ["10.1.2.3"] : ["93.184.215.14"]);
  const urlOf = (input: Parameters<typeof fetch>[0]) =>
    typeof input === "string" ? input : input instanceof URL ? input.href : input.url;

  it("refuses local and private addresses other than the provider's own host before any request: by IP, by name, by what a name resolves to", async () => {
    const seen: string[] = [];
    const inner: typeof fetch = async (input) => (seen.push(urlOf(input)), new Response("ok"));
    const guarded = providerFetch({ baseUrl: "http://10.0.0.12:8188/v1", apiKey: KEY, resolve }, inner);
    for (const link of [
      "http://127.0.0.2:9/x",
      "http://localhost/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.13/x",
      "http://internal.example/x",
      "file:///etc/passwd",
    ]) {
      const error = await guarded(link).then(
        () => null,
        (err: unknown) => err,
      );
      expect(DownloadError.isInstance(error), link).toBe(true);
    }
    expect(seen).toEqual([]);
    // The provider's own host (any port), and public hosts.
    await guarded("http://10.0.0.12:9000/view?f=a.png");
    await guarded("https://cdn.example/x.png");
    expect(seen).toEqual(["http://10.0.0.12:9000/view?f=a.png", "https://cdn.example/x.png"]);
  });

  it("sends the key's headers only to the provider's own hosts (its base URL's host and its key domains)", async () => {
    const sent: Record<string, Record<string, string>> = {};
    const inner: typeof fetch = async (input, init) => (
      (sent[new URL(urlOf(input)).hostname] = Object.fromEntries(new Headers(init?.headers))),
      new Response("ok")
    );
    const guarded = providerFetch(
      { baseUrl: "https://api.bfl.ai/v1", apiKey: KEY, keyDomains: ["bfl.ai"], resolve },
      inner,
    );
    const headers = { "x-key": KEY, authorization: `Bearer ${KEY}`, "x-custom": `k=${KEY}`, accept: "image/*" };
    for (const url of [
      "https://api.bfl.ai/v1/flux-pro",
      "https://api.us1.bfl.ai/v1/get_result?id=1",
      "https://delivery.example/sample.jpeg",
    ])
      await guarded(url, { headers });
    expect(sent["api.bfl.ai"]).toEqual(headers);
    expect(sent["api.us1.bfl.ai"]).toEqual(headers);
    expect(sent["delivery.example"]).toEqual({ accept: "image/*" });
  });

  it("follows redirects itself: each hop checked, the key dropped once a hop leaves the provider's host, POSTs not followed", async () => {
    const seen: Array<[string, string | null, RequestRedirect | undefined]> = [];
    const hops: Record<string, string> = {
      "https://api.x.ai/v1/files/1": "https://cdn.example/1.mp4",
      "https://api.x.ai/v1/files/2": "http://10.0.0.5/2.mp4",
      "https://cdn.example/3": "https://api.x.ai/v1/files/3",
    };
    const inner: typeof fetch = async (input, init) => {
      const url = urlOf(input);
      seen.push([url, new Headers(init?.headers).get("authorization"), init?.redirect]);
      return hops[url] ? new Response(null, { status: 302, headers: { location: hops[url]! } }) : new Response("bytes");
    };
    const guarded = providerFetch({ baseUrl: "https://api.x.ai/v1", apiKey: KEY, resolve }, inner);
    const auth = { headers: { authorization: `Bearer ${KEY}` } };

    expect(await (await guarded("https://api.x.ai/v1/files/1", auth)).text()).toBe("bytes");
    expect(seen.splice(0)).toEqual([
      ["https://api.x.ai/v1/files/1", `Bearer ${KEY}`, "manual"],
      ["https://cdn.example/1.mp4", null, "manual"],
    ]);
    const refused = await guarded("https://api.x.ai/v1/files/2", auth).then(
      () => null,
      (err: unknown) => err,
    );
    expect(DownloadError.isInstance(refused)).toBe(true);
    expect(seen.splice(0).map(([url]) => url)).toEqual(["https://api.x.ai/v1/files/2"]);
    // Back on the provider's host, the key is its own again.
    await guarded("https://cdn.example/3", auth);
    expect(seen.splice(0)).toEqual([
      ["https://cdn.example/3", null, "manual"],
      ["https://api.x.ai/v1/files/3", `Bearer ${KEY}`, "manual"],
    ]);
    expect((await guarded("https://api.x.ai/v1/files/1", { ...auth, method: "POST", body: "{}" })).status).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it("ends a poll whose answer tells the job's end (BFL's pollAnswer), and hands every other answer on unread", async () => {
    const answers: unknown[] = [
      { id: "1", status: "Pending", result: null },
      {
        id: "1",
        status: "Request Moderated",
        result: null,
        details: { "Moderation Reasons": ["Derivative Works Filter"] },
      },
    ];
    const inner: typeof fetch = async () => Response.json(answers.shift());
    const guarded = providerFetch(
      {
        baseUrl: "https://api.bfl.ai/v1",
        apiKey: KEY,
        pollAnswer: AI_SDK_PROVIDERS["black-forest-labs"].pollAnswer,
        resolve,
      },
      inner,
    );
    expect(await (await guarded("https://api.bfl.ai/v1/get_result?id=1")).json()).toEqual({
      id: "1",
      status: "Pending",
      result: null,
    });
    const ended = await guarded("https://api.bfl.ai/v1/get_result?id=1").then(
      () => null,
      (err: unknown) => err,
    );
    expect(ended).toBeInstanceOf(JobEndedError);
    expect((ended as JobEndedError).end).toEqual({
      refused: true,
      words: "Request Moderated (Derivative Works Filter)",
    });
  });
});
