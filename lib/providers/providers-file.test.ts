import { describe, expect, it } from "vitest";
import { validateModelInput } from "../core/catalog/input-validation";
import { priceInput } from "../core/runs/pricing";
import { JSON_SCHEMA_2020 } from "../primitives/json-schema";
import { PROVIDER_KINDS } from "./kinds";
import { parseProvidersFile, ProvidersFileError } from "./providers-file";

type Json = Record<string, unknown>;

function entry(overrides: Json = {}): Json {
  return {
    id: "acme/image-1",
    upstream_model: "image-1",
    name: "Acme Image 1",
    description: "Acme's first image model.",
    modality: "image",
    tasks: ["text-to-image"],
    input_schema: {
      type: "object",
      properties: {
        prompt: { type: "string", title: "Prompt", description: "What to draw." },
        n: { type: "integer", title: "Images", description: "How many.", minimum: 1, maximum: 4, default: 1 },
        quality: {
          type: "string",
          title: "Quality",
          description: "Detail.",
          enum: ["standard", "hd"],
          default: "standard",
        },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
    pricing: { unit: "image", usd: "0.04", drivers: ["n"], overrides: [{ when: { quality: "hd" }, usd: "0.08" }] },
    ...overrides,
  };
}

function provider(overrides: Json = {}, entries: Json[] = [entry()]): Json {
  return {
    id: "acme",
    kind: "openai-images",
    base_url: "https://api.acme.example/",
    api_key_env: "ACME_API_KEY",
    entries,
    ...overrides,
  };
}

const ENV = { ACME_API_KEY: "sk-acme" };

function parse(file: unknown, env: Record<string, string | undefined> = ENV) {
  return parseProvidersFile(typeof file === "string" ? file : JSON.stringify(file), env);
}

function problemWith(file: unknown, env?: Record<string, string | undefined>): string {
  try {
    parse(file, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ProvidersFileError);
    return (err as Error).message;
  }
  throw new Error("the file was accepted");
}

describe("parseProvidersFile", () => {
  it("reads a provider and its entries, filling the optional fields", () => {
    const [acme] = parse({ providers: [provider()] });
    expect(acme).toMatchObject({
      id: "acme",
      kind: "openai-images",
      baseUrl: "https://api.acme.example",
      apiKey: "sk-acme",
      timeoutMs: 60_000,
    });
    expect(acme!.entries[0]).toMatchObject({
      id: "acme/image-1",
      upstreamModel: "image-1",
      creator: "acme",
      revision: "2026-11-22",
      status: "stable",
      lifecycle: null,
      pricing: { unit: "image", usd: "0.04", drivers: ["n"], overrides: [{ when: { quality: "hd" }, usd: "0.08" }] },
    });
    expect(acme!.entries[0]!.inputSchema.$schema).toBe(JSON_SCHEMA_2020);
  });

  it("gives entries that validate and price input like built-in ones", () => {
    const [acme] = parse({ providers: [provider({ api_key_env: undefined, timeout_ms: 5000 })] });
    expect(acme!.apiKey).toBeNull();
    const { inputSchema, pricing } = acme!.entries[0]!;
    const input = validateModelInput(inputSchema, { prompt: "fox", n: 3, quality: "hd" }, { modelId: "acme/image-1" });
    expect(priceInput(pricing, input)).toBe(240_000);
    expect(priceInput(pricing, validateModelInput(inputSchema, { prompt: "fox" }, { modelId: "acme/image-1" }))).toBe(
      40_000,
    );
  });

  it("accepts an empty list of providers", () => {
    expect(parse({ providers: [] })).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ["bad JSON", "{ providers: [", "The providers file is not valid JSON"],
    [
      "a misspelt field",
      { providers: [provider({ apikey_env: "X" })] },
      "providers[0].apikey_env is not a known field; the fields are: id, kind, base_url, api_key_env, timeout_ms, job_timeout_ms, entries.",
    ],
    [
      "an unknown kind",
      { providers: [provider({ kind: "no-such-kind" })] },
      `providers[0].kind must be one of ${Object.keys(PROVIDER_KINDS)
        .map((k) => `"${k}"`)
        .join(", ")}; got "no-such-kind".`,
    ],
    [
      "a job timeout out of range",
      { providers: [provider({ job_timeout_ms: 10 })] },
      "providers[0].job_timeout_ms must be a whole number from 1000 to 86400000; got 10.",
    ],
    ["a reserved provider id", { providers: [provider({ id: "atelier" })] }, 'providers[0].id must not be "atelier"'],
    [
      "a relative base URL",
      { providers: [provider({ base_url: "api.acme.example" })] },
      "providers[0].base_url must be an absolute http(s) URL",
    ],
    [
      "a timeout out of range",
      { providers: [provider({ timeout_ms: 10 })] },
      "providers[0].timeout_ms must be a whole number from 100 to 3600000; got 10.",
    ],
    ["no entries", { providers: [provider({}, [])] }, "providers[0].entries must hold at least 1 item."],
    [
      "a price that is not a decimal string",
      { providers: [provider({}, [entry(), entry({ id: "acme/image-2", pricing: { unit: "image", usd: 0.04 } })])] },
      'providers[0].entries[1].pricing.usd must be a decimal string of at most 6 places, such as "0.04"; got 0.04.',
    ],
    [
      "an atelier/ id",
      { providers: [provider({}, [entry({ id: "atelier/gradient" })])] },
      'providers[0].entries[0].id must not start with "atelier/"',
    ],
    [
      "an id outside the pattern",
      { providers: [provider({}, [entry({ id: "Acme Image" })])] },
      'providers[0].entries[0].id must be "<creator>/<name>"',
    ],
    [
      "a versioned id",
      { providers: [provider({}, [entry({ id: "acme/image@2" })])] },
      "providers[0].entries[0].id must not carry an @version",
    ],
    [
      "a modality the adapter cannot make",
      { providers: [provider({}, [entry({ modality: "video" })])] },
      'providers[0].entries[0].modality must be one of "image"; got "video".',
    ],
    [
      "an empty task list",
      { providers: [provider({}, [entry({ tasks: [] })])] },
      "providers[0].entries[0].tasks must hold at least 1 item.",
    ],
    [
      "a date that is not one",
      { providers: [provider({}, [entry({ revision: "2026-02-30" })])] },
      "providers[0].entries[0].revision must be a date such as 2026-11-22",
    ],
    [
      "a driver that is not an input field",
      { providers: [provider({}, [entry({ pricing: { unit: "image", usd: "0.04", drivers: ["num_images"] } })])] },
      'providers[0].entries[0].pricing.drivers[0] must name a field of input_schema (prompt, n, quality); got "num_images".',
    ],
    [
      "an override on an unknown field",
      {
        providers: [
          provider({}, [
            entry({ pricing: { unit: "image", usd: "0.04", overrides: [{ when: { size: "big" }, usd: "1" }] } }),
          ]),
        ],
      },
      "providers[0].entries[0].pricing.overrides[0].when.size is not a known field; the fields are: prompt, n, quality.",
    ],
  ])("refuses %s, naming the field", (_name, file, message) => {
    expect(problemWith(file)).toContain(message);
  });

  it("refuses an input_schema that does not compile, or lets unknown fields through", () => {
    const schema = entry().input_schema as Json;
    const withTypo = { ...schema, properties: { prompt: { type: "string", tittle: "Prompt" } } };
    expect(problemWith({ providers: [provider({}, [entry({ input_schema: withTypo })])] })).toMatch(
      /^providers\[0\]\.entries\[0\]\.input_schema is not a valid JSON Schema 2020-12 \(strict mode\): .*tittle/,
    );
    const open = { ...schema, additionalProperties: true };
    expect(problemWith({ providers: [provider({}, [entry({ input_schema: open })])] })).toBe(
      "providers[0].entries[0].input_schema.additionalProperties must be false, so that unknown input fields are refused.",
    );
    const draft7 = { ...schema, $schema: "http://json-schema.org/draft-07/schema#" };
    expect(problemWith({ providers: [provider({}, [entry({ input_schema: draft7 })])] })).toContain(
      "input_schema.$schema must be",
    );
    const noPrompt = { ...schema, properties: { text: { type: "string" } }, required: ["text"] };
    expect(
      problemWith({
        providers: [provider({}, [entry({ input_schema: noPrompt, pricing: { unit: "run", usd: "1" } })])],
      }),
    ).toContain("providers[0].entries[0].input_schema.properties.prompt must be a required string field");
  });

  it("needs the key's variable to be set", () => {
    expect(problemWith({ providers: [provider()] }, {})).toBe(
      "providers[0].api_key_env names ACME_API_KEY, which is not set; set it to the provider's API key.",
    );
    expect(problemWith({ providers: [provider()] }, { ACME_API_KEY: "" })).toContain("which is not set");
  });

  it("refuses ids used twice", () => {
    expect(problemWith({ providers: [provider({}, [entry(), entry()])] })).toBe(
      'providers[0].entries[1].id repeats "acme/image-1"; entry ids must be unique.',
    );
    expect(problemWith({ providers: [provider(), provider({}, [entry({ id: "acme/image-2" })])] })).toBe(
      'providers[1].id repeats "acme"; provider ids must be unique.',
    );
  });

  it("reads a lifecycle", () => {
    const lifecycle = {
      deprecated_at: "2026-12-01T00:00:00Z",
      sunset_at: "2027-03-01T00:00:00Z",
      replaced_by: "acme/image-2",
    };
    const [acme] = parse({ providers: [provider({}, [entry({ lifecycle })])] });
    expect(acme!.entries[0]!.lifecycle).toEqual({
      ...lifecycle,
      deprecated_at: "2026-12-01T00:00:00.000Z",
      sunset_at: "2027-03-01T00:00:00.000Z",
    });
    expect(
      problemWith({
        providers: [provider({}, [entry({ lifecycle: { ...lifecycle, sunset_at: "2026-01-01T00:00:00Z" } })])],
      }),
    ).toBe("providers[0].entries[0].lifecycle.sunset_at must not be before deprecated_at.");
  });
});
