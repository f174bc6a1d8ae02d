// A started AI SDK or openai-images entry is one the server takes for a provider of that package
// (the providers file's parser, and the studio's check of a stored entry), and its fields are the
// call's standard arguments as the adapter maps them.
import { describe, expect, it } from "vitest";
import type { Modality } from "../../core/catalog/model-definition";
import { SchemaImportError } from "../common/openapi-schema";
import { entrySchemaCompiler, parseProvidersFile } from "../providers-file";
import { checkEntryDocument } from "../stored-catalog/documents";
import { callArguments, type CallOptions } from "./ai-sdk-call";
import { AI_SDK_PROVIDERS, type AiSdkProviderName } from "./ai-sdk-providers";
import { startAiSdkEntry, type StartOptions } from "./ai-sdk-start";

const MODEL: Record<string, string> = {
  image: "gpt-image-1",
  audio: "eleven_multilingual_v2",
  video: "veo-3.0-generate-001",
};
const FACTS = { id: "acme/model-1", usd: "0.04", unit: "image", today: "2026-12-01" };
/** What each started field is in the call, by its default name (ai-sdk-call.ts). */
const ARG: Record<string, string> = {
  prompt: "prompt",
  text: "text",
  n: "n",
  size: "size",
  aspect_ratio: "aspectRatio",
  seed: "seed",
  voice: "voice",
  speed: "speed",
  duration: "duration",
};
const EXAMPLE: Record<string, unknown> = {
  prompt: "a fox in the snow",
  text: "Hello there.",
  n: 2,
  size: "1024x1024",
  aspect_ratio: "16:9",
  seed: 7,
  voice: "alloy",
  speed: 1,
  duration: 8,
};

function start(options: Partial<StartOptions> = {}) {
  return startAiSdkEntry({ ...FACTS, providerKind: "ai-sdk", modelId: "gpt-image-1", ...options });
}

/** The entry as the server loads it in a providers file, with a provider of `package` (or openai-images). */
function load(entry: Record<string, unknown>, pkg: string | null) {
  const info = pkg ? AI_SDK_PROVIDERS[pkg as AiSdkProviderName] : null;
  const provider = {
    id: "acme",
    kind: pkg ? "ai-sdk" : "openai-images",
    ...(pkg ? { provider: pkg } : {}),
    ...(!info || info.baseUrlRequired ? { base_url: "http://127.0.0.1:8080" } : {}),
    api_key_env: "ACME_KEY",
    entries: [entry],
  };
  const [config] = parseProvidersFile(JSON.stringify({ providers: [provider] }), { ACME_KEY: "k" });
  // The studio's editor checks one stored entry the same way.
  checkEntryDocument(entry, { id: "acme", kind: provider.kind }, { baseDir: process.cwd(), env: {} });
  return config!.entries[0]!;
}

/** Every started field is the call's standard argument of its name; an example input goes there whole. */
function expectStandard(parsed: ReturnType<typeof load>) {
  const options = parsed.options as unknown as CallOptions;
  const fields = Object.keys(parsed.inputSchema.properties ?? {});
  for (const field of fields) expect(options.fields[field], field).toEqual({ arg: ARG[field] });
  const input = Object.fromEntries(fields.map((f) => [f, EXAMPLE[f]]));
  expect(entrySchemaCompiler().compile(parsed.inputSchema)(input)).toBe(true);
  const { args, providerOptions } = callArguments(options, input);
  expect(providerOptions).toEqual({});
  expect(Object.keys(args).sort()).toEqual(fields.map((f) => ARG[f]).sort());
}

describe("starting an AI SDK entry from a model id", () => {
  const cases = Object.entries(AI_SDK_PROVIDERS).flatMap(([pkg, info]) =>
    info.modalities.map((modality) => [pkg, modality] as [string, Modality]),
  );

  it.each(cases)("%s %s: the server takes it, and its fields are the call's arguments", (pkg, modality) => {
    const started = start({ aiSdkProvider: pkg, modality, modelId: MODEL[modality]! });
    const parsed = load(started.entry, pkg);
    expect(parsed).toMatchObject({ id: "acme/model-1", upstreamModel: MODEL[modality], modality, status: "stable" });
    expect(parsed.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    expect(parsed.inputSchema.required).toEqual([modality === "audio" ? "text" : "prompt"]);
    expectStandard(parsed);
    expect(started.notes[0]).toMatch(/standard arguments/);
  });

  it("fills a document the way an operator would write it", () => {
    const { entry, notes } = start({ aiSdkProvider: "openai" });
    expect(entry).toMatchObject({
      upstream_model: "gpt-image-1",
      name: "Gpt image 1",
      creator: "OpenAI",
      description: "gpt-image-1 through @ai-sdk/openai.",
      modality: "image",
      tasks: ["text-to-image"],
      revision: "2026-12-01",
      pricing: { unit: "image", usd: "0.04", drivers: ["n"], overrides: [] },
    });
    expect(Object.keys((entry.input_schema as { properties: object }).properties)).toEqual(["prompt", "n", "size"]);
    expect(notes).toContain("priced per image times n.");
  });

  it("offers only what the package reads: aspect ratios and seeds where they are taken", () => {
    const fields = (pkg: string, modality?: Modality) =>
      Object.keys((start({ aiSdkProvider: pkg, modality }).entry.input_schema as { properties: object }).properties);
    expect(fields("google")).toEqual(["prompt", "n", "aspect_ratio"]);
    expect(fields("black-forest-labs")).toEqual(["prompt", "n", "aspect_ratio", "seed"]);
    expect(fields("togetherai")).toEqual(["prompt", "n", "size", "seed"]);
    expect(fields("xai", "video")).toEqual(["prompt", "duration", "aspect_ratio"]);
    expect(fields("lmnt")).toEqual(["text", "voice", "speed"]);
  });

  it("keeps what the operator gives and names a host's model after the id's creator", () => {
    const given = start({
      aiSdkProvider: "elevenlabs",
      modelId: " eleven_multilingual_v2 ",
      name: "Multilingual v2",
      creator: "Eleven",
      unit: "run",
    }).entry;
    expect(given).toMatchObject({
      upstream_model: "eleven_multilingual_v2",
      name: "Multilingual v2",
      creator: "Eleven",
      modality: "audio",
      tasks: ["text-to-speech"],
      pricing: { drivers: [] },
    });
    const hosted = start({ id: "bfl/flux-dev", aiSdkProvider: "fal", modelId: "fal-ai/flux/dev" });
    expect(hosted.entry).toMatchObject({ name: "Flux dev", creator: "bfl" });
    expect(hosted.notes.join(" ")).toMatch(/creator "bfl" is taken from the entry's id/);
  });

  it("refuses a modality the package does not make, naming those it does", () => {
    expect(() => start({ aiSdkProvider: "elevenlabs", modality: "image" })).toThrow(
      new SchemaImportError('@ai-sdk/elevenlabs makes audio models only, not image: choose "audio".'),
    );
    expect(() => start({ aiSdkProvider: "google", modality: "audio" })).toThrow(/choose "image" or "video"/);
    expect(() => start({ providerKind: "openai-images", modality: "video" })).toThrow(/choose "image"/);
  });

  it("refuses an unknown package, naming the known ones", () => {
    expect(() => start({ aiSdkProvider: "acme" })).toThrow(SchemaImportError);
    expect(() => start({})).toThrow(/use one of openai, openai-compatible, google/);
  });

  it.each([
    ["", /The model id is empty/],
    ["   ", /The model id is empty/],
    ["gpt\u0000image", /must not contain a NUL character/],
    ["gpt\nimage", /must not contain control characters/],
    ["m".repeat(201), /201 characters long; upstream_model takes at most 200/],
  ])("refuses the model id %j", (modelId, message) => {
    expect(() => start({ aiSdkProvider: "openai", modelId })).toThrow(SchemaImportError);
    expect(() => start({ aiSdkProvider: "openai", modelId })).toThrow(message);
  });

  it("takes a model id of 200 characters, and refuses a fact the server would, naming its field", () => {
    expect(start({ aiSdkProvider: "openai", modelId: "m".repeat(200) }).entry.upstream_model).toHaveLength(200);
    expect(() => start({ aiSdkProvider: "openai", id: "Acme Model" })).toThrow(
      /The entry cannot be started: entry\.id must be/,
    );
    expect(() => start({ aiSdkProvider: "openai", usd: "four" })).toThrow(/entry\.pricing\.usd/);
  });
});

describe("starting an openai-images entry", () => {
  it("has the fields that kind sends: prompt, n and size as the call's, quality in the body", () => {
    const started = start({ providerKind: "openai-images", id: "acme/image-2", modelId: "dall-e-3" });
    expect(started.entry).toMatchObject({
      upstream_model: "dall-e-3",
      creator: "acme",
      modality: "image",
      description: "dall-e-3 on an OpenAI-compatible images endpoint.",
    });
    const parsed = load(started.entry, null);
    const options = parsed.options as unknown as CallOptions;
    expect(options.fields).toEqual({
      prompt: { arg: "prompt" },
      n: { arg: "n" },
      size: { arg: "size" },
      quality: { option: ["quality"] },
    });
    const input = { prompt: "a fox", n: 1, size: "1024x1024", quality: "hd" };
    expect(entrySchemaCompiler().compile(parsed.inputSchema)(input)).toBe(true);
    expect(callArguments(options, input)).toEqual({
      args: { prompt: "a fox", n: 1, size: "1024x1024" },
      providerOptions: { quality: "hd" },
    });
    expect(started.notes[0]).toMatch(/quality is sent in the body/);
  });
});
