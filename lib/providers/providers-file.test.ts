import { describe, expect, it } from "vitest";
import { exampleInputOf } from "../core/catalog/example-outputs";
import { validateModelInput } from "../core/catalog/input-validation";
import { priceInput } from "../core/runs/pricing";
import { providerCostMicros } from "../core/runs/provider-cost";
import { JSON_SCHEMA_2020 } from "../primitives/json-schema";
import { PROVIDER_KINDS } from "./kinds";
import { parseProvidersFile, ProvidersFileError } from "./providers-file";
import { remoteModels } from "./index";

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
      "providers[0].apikey_env is not a known field; the fields are: id, kind, base_url, api_key_env, timeout_ms, job_timeout_ms, entries, pool.",
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

describe("an entry's cost (what a run costs upstream)", () => {
  const withCost = (cost: unknown) => ({ providers: [provider({}, [entry({ cost })])] });
  const costOf = (cost: unknown) => parse(withCost(cost))[0]!.entries[0]!.cost;

  it("is absent unless declared; per unit it is read as pricing is, per second as a rate", () => {
    expect(parse({ providers: [provider()] })[0]!.entries[0]!.cost).toBeNull();
    expect(costOf(null)).toBeNull();
    expect(costOf({ unit: "image", usd: "0.002", drivers: ["n"], overrides: [{ when: { quality: "hd" }, usd: "0.005" }] })).toEqual({
      per: "unit",
      pricing: { unit: "image", usd: "0.002", drivers: ["n"], overrides: [{ when: { quality: "hd" }, usd: "0.005" }] },
    }); // prettier-ignore
    expect(costOf({ unit: "run", usd: "0" })).toEqual({
      per: "unit",
      pricing: { unit: "run", usd: "0", drivers: [], overrides: [] },
    });
    expect(costOf({ per_second_usd: "0.000225" })).toEqual({ per: "second", usd: "0.000225" });
  });

  it("costs a run from its input as the price does (drivers, overrides), and per second from the time", () => {
    const [acme] = parse(withCost({ unit: "image", usd: "0.002", drivers: ["n"], overrides: [{ when: { quality: "hd" }, usd: "0.005" }] })); // prettier-ignore
    const { inputSchema, cost } = acme!.entries[0]!;
    const input = validateModelInput(inputSchema, { prompt: "fox", n: 3 }, { modelId: "acme/image-1" });
    const time = { reportedSeconds: null, wallMs: 0 };
    expect(providerCostMicros(cost!, input, time)).toBe(6_000);
    expect(providerCostMicros(cost!, { ...input, quality: "hd" }, time)).toBe(15_000);
    const perSecond = costOf({ per_second_usd: "0.000225" })!;
    // 0.4 s at $0.000225 a second: 90 micro-dollars; 1.23 s: 276.75, rounded up.
    expect(providerCostMicros(perSecond, input, { reportedSeconds: 0.4, wallMs: 60_000 })).toBe(90);
    expect(providerCostMicros(perSecond, input, { reportedSeconds: 1.23, wallMs: 60_000 })).toBe(277);
    // No time reported (or one not to believe): the wall time counts.
    for (const reportedSeconds of [null, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e12])
      expect(providerCostMicros(perSecond, input, { reportedSeconds, wallMs: 2_000 })).toBe(450);
    expect(providerCostMicros(undefined, input, time)).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ["a number", { unit: "image", usd: 0.002 }, 'providers[0].entries[0].cost.usd must be a decimal string of at most 6 places, such as "0.04"; got 0.002.'], // prettier-ignore
    ["a negative amount", { unit: "image", usd: "-0.002" }, 'providers[0].entries[0].cost.usd must be a decimal string of at most 6 places, such as "0.04"; got "-0.002".'], // prettier-ignore
    ["seven decimals", { unit: "image", usd: "0.0000001" }, "providers[0].entries[0].cost.usd must be a decimal string of at most 6 places"], // prettier-ignore
    ["a huge amount", { unit: "image", usd: "10000000000" }, "providers[0].entries[0].cost.usd must be a decimal string"], // prettier-ignore
    ["an exponent", { unit: "image", usd: "1e3" }, "providers[0].entries[0].cost.usd must be a decimal string"],
    ["a NUL byte in the amount", { unit: "image", usd: "0.002\u0000" }, "providers[0].entries[0].cost.usd must be a decimal string"], // prettier-ignore
    ["a NUL byte in the unit", { unit: "ima\u0000ge", usd: "0.002" }, "providers[0].entries[0].cost.unit must be a word such as \"image\", without control characters"], // prettier-ignore
    ["no unit", { usd: "0.002" }, "providers[0].entries[0].cost.unit is required."],
    ["an unknown key", { unit: "image", usd: "0.002", currency: "EUR" }, "providers[0].entries[0].cost.currency is not a known field; the fields are: unit, usd, drivers, overrides."], // prettier-ignore
    ["a prototype key", JSON.parse('{"unit": "image", "usd": "0.002", "__proto__": {"usd": "9"}}'), "providers[0].entries[0].cost.__proto__ is not a known field"], // prettier-ignore
    ["a driver that is not an input field", { unit: "image", usd: "0.002", drivers: ["num_images"] }, 'providers[0].entries[0].cost.drivers[0] must name a field of input_schema (prompt, n, quality); got "num_images".'], // prettier-ignore
    ["both shapes at once", { unit: "image", usd: "0.002", per_second_usd: "0.0001" }, "providers[0].entries[0].cost.unit is not a field of a per-second cost: a cost is either"], // prettier-ignore
    ["a per-second rate that is a number", { per_second_usd: 0.0001 }, 'providers[0].entries[0].cost.per_second_usd must be a decimal string of at most 6 places, such as "0.04"; got 0.0001.'], // prettier-ignore
    ["a negative per-second rate", { per_second_usd: "-0.0001" }, "providers[0].entries[0].cost.per_second_usd must be a decimal string"], // prettier-ignore
    ["a per-second rate of seven decimals", { per_second_usd: "0.0000225" }, "providers[0].entries[0].cost.per_second_usd must be a decimal string"], // prettier-ignore
    ["a huge per-second rate", { per_second_usd: "99999999999.5" }, "providers[0].entries[0].cost.per_second_usd must be a decimal string"], // prettier-ignore
    ["a NUL byte in the per-second rate", { per_second_usd: "0.0001\u0000" }, "providers[0].entries[0].cost.per_second_usd must be a decimal string"], // prettier-ignore
    ["a per-second cost with drivers", { per_second_usd: "0.0001", drivers: ["n"] }, "providers[0].entries[0].cost.drivers is not a field of a per-second cost"], // prettier-ignore
    ["a string", "0.002", 'providers[0].entries[0].cost must be an object; got "0.002".'],
    ["an array", [{ unit: "image", usd: "0.002" }], "providers[0].entries[0].cost must be an object; got an array."],
  ])("refuses %s, naming the field", (_name, cost, message) => {
    expect(problemWith(withCost(cost))).toContain(message);
  });
});

describe("an entry's examples (what the model page's form opens with)", () => {
  const withExamples = (examples: unknown) => ({ providers: [provider({}, [entry({ examples })])] });
  const fox = { title: "A fox", input: { prompt: "a fox in the snow", n: 2 } };

  it("are absent unless declared, and reach the definition, whose first is the example input", () => {
    expect(parse({ providers: [provider()] })[0]!.entries[0]!.examples).toBeUndefined();
    expect(parse(withExamples([]))[0]!.entries[0]!.examples).toBeUndefined();
    const hd = { title: "In detail", input: { prompt: "a heron", quality: "hd" } };
    const providers = parse(withExamples([fox, hd]));
    expect(providers[0]!.entries[0]!.examples).toEqual([fox, hd]);
    const [definition] = remoteModels(providers);
    expect(definition!.examples).toEqual([fox, hd]);
    // Kept as written; the schema's defaults fill the rest only when it is used.
    expect(exampleInputOf(definition!)).toEqual({ prompt: "a fox in the snow", n: 2, quality: "standard" });
    const six = [1, 2, 3, 4, 5, 6].map((i) => ({ ...fox, title: `Fox ${i}` }));
    expect(parse(withExamples(six))[0]!.entries[0]!.examples).toHaveLength(6);
  });

  it.each<[string, unknown, string]>([
    ["not an array", fox, "providers[0].entries[0].examples must be an array; got an object."],
    ["two examples of one title", [fox, { ...fox, input: { prompt: "a fox" } }], 'providers[0].entries[0].examples[1].title must differ from the other examples\' titles; "A fox" is given twice.'], // prettier-ignore
    ["seven examples", Array(7).fill(fox), "providers[0].entries[0].examples must hold at most 6 items; got 7."],
    ["an example that is not an object", ["a fox"], 'providers[0].entries[0].examples[0] must be an object; got "a fox".'], // prettier-ignore
    ["no title", [{ input: fox.input }], "providers[0].entries[0].examples[0].title is required."],
    ["an empty title", [{ ...fox, title: " " }], 'providers[0].entries[0].examples[0].title must be a non-empty string; got " ".'], // prettier-ignore
    ["a long title", [{ ...fox, title: "x".repeat(101) }], "providers[0].entries[0].examples[0].title must be at most 100 characters long."], // prettier-ignore
    ["a NUL byte in a title", [fox, { ...fox, title: "a\u0000fox" }], 'providers[0].entries[0].examples[1].title must be a short title such as "Neon city at night", without control characters; got "a\\u0000fox".'], // prettier-ignore
    ["no input", [{ title: "A fox" }], "providers[0].entries[0].examples[0].input is required."],
    ["an input that is not an object", [{ ...fox, input: ["fox"] }], "providers[0].entries[0].examples[0].input must be an object; got an array."], // prettier-ignore
    ["an input out of bounds", [fox, { title: "Many", input: { prompt: "fox", n: 9 } }], "providers[0].entries[0].examples[1].input.n must be from 1 to 4; got 9."], // prettier-ignore
    ["an input of the wrong type", [{ ...fox, input: { prompt: 7 } }], "providers[0].entries[0].examples[0].input.prompt must be of type string; got an integer."], // prettier-ignore
    ["an input missing a required field", [{ ...fox, input: { n: 2 } }], "providers[0].entries[0].examples[0].input.prompt is required. What to draw."], // prettier-ignore
    ["an input with a field the schema lacks", [{ ...fox, input: { prompt: "fox", seed: 1 } }], "providers[0].entries[0].examples[0].input.seed is not an input of acme/image-1. Its inputs are: prompt, n, quality."], // prettier-ignore
    ["a constructor key in an input", [{ ...fox, input: JSON.parse('{"prompt": "fox", "constructor": {"x": 1}}') }], 'providers[0].entries[0].examples[0].input.constructor is not allowed: "constructor" is a reserved name.'], // prettier-ignore
    ["a __proto__ key in an input", [{ ...fox, input: JSON.parse('{"prompt": "fox", "__proto__": {"n": 3}}') }], 'providers[0].entries[0].examples[0].input.__proto__ is not allowed: "__proto__" is a reserved name.'], // prettier-ignore
    ["a NUL byte in an input", [{ ...fox, input: { prompt: "fo\u0000x" } }], "providers[0].entries[0].examples[0].input.prompt must not contain a NUL character (\\u0000)."], // prettier-ignore
    ["an unknown key", [{ ...fox, output: "a fox" }], "providers[0].entries[0].examples[0].output is not a known field; the fields are: title, input."], // prettier-ignore
    ["a __proto__ key in an example", [JSON.parse('{"title": "A fox", "input": {"prompt": "fox"}, "__proto__": {}}')], "providers[0].entries[0].examples[0].__proto__ is not a known field; the fields are: title, input."], // prettier-ignore
  ])("refuses %s, naming the field", (_name, examples, message) => {
    expect(problemWith(withExamples(examples))).toBe(message);
  });
});

describe("an entry's routes (other providers serving it)", () => {
  const backup = (overrides: Json = {}) =>
    provider({ id: "backup", base_url: "https://api.backup.example", ...overrides }, []);
  const routed = (routes: unknown, others: Json[] = [backup()]) => ({
    providers: [provider({}, [entry({ routes })]), ...others],
  });

  it("reads targets naming the file's providers, with their own upstream model, cost and weight", () => {
    const [own, other] = parse(
      routed({
        policy: "weighted",
        weight: 3,
        targets: [{ provider: "backup", upstream_model: "image-1b", weight: 2, cost: { unit: "image", usd: "0.01" } }],
      }),
    );
    // A provider with no entries of its own serves as a target only.
    expect(other!.entries).toEqual([]);
    expect(own!.entries[0]!.routes).toMatchObject({
      policy: "weighted",
      weight: 3,
      targets: [{ providerId: "backup", upstreamModel: "image-1b", weight: 2, cost: { per: "unit" } }],
    });
    expect(
      parse(routed({ targets: [{ provider: "backup", upstream_model: "x" }] }))[0]!.entries[0]!.routes,
    ).toMatchObject({
      policy: "ordered",
      weight: 1,
    });
  });

  it.each<[string, unknown, Json[] | undefined, string]>([
    [
      "an unknown policy",
      { policy: "random", targets: [{ provider: "backup", upstream_model: "x" }] },
      undefined,
      'providers[0].entries[0].routes.policy must be one of "ordered", "weighted", "cheapest", "fastest"',
    ],
    ["no targets", { targets: [] }, undefined, "providers[0].entries[0].routes.targets must hold at least 1 item."],
    [
      "a provider the file lacks",
      { targets: [{ provider: "nowhere", upstream_model: "x" }] },
      undefined,
      "providers[0].entries[0].routes.targets[0].provider names no provider of the catalog; the providers are: acme, backup.",
    ],
    [
      "its own provider",
      { targets: [{ provider: "acme", upstream_model: "x" }] },
      undefined,
      'providers[0].entries[0].routes.targets[0].provider repeats "acme"',
    ],
    [
      "a provider twice",
      {
        targets: [
          { provider: "backup", upstream_model: "x" },
          { provider: "backup", upstream_model: "y" },
        ],
      },
      undefined,
      'providers[0].entries[0].routes.targets[1].provider repeats "backup"',
    ],
    [
      "no upstream model where the kind needs one",
      { targets: [{ provider: "backup" }] },
      undefined,
      "providers[0].entries[0].routes.targets[0].upstream_model is required.",
    ],
    [
      "a field the target's kind does not know",
      { targets: [{ provider: "backup", upstream_model: "x", workflow: {} }] },
      undefined,
      "providers[0].entries[0].routes.targets[0].workflow is not a known field",
    ],
    [
      "a weight of 0",
      { targets: [{ provider: "backup", upstream_model: "x", weight: 0 }] },
      undefined,
      "providers[0].entries[0].routes.targets[0].weight must be a whole number from 1 to 100; got 0.",
    ],
    [
      "a cost that is not a decimal",
      { targets: [{ provider: "backup", upstream_model: "x", cost: { unit: "image", usd: 0.01 } }] },
      undefined,
      "providers[0].entries[0].routes.targets[0].cost.usd must be a decimal string",
    ],
    [
      "a prototype key",
      JSON.parse('{"targets": [{"provider": "backup", "upstream_model": "x", "__proto__": {}}]}'),
      undefined,
      "providers[0].entries[0].routes.targets[0].__proto__ is not a known field",
    ],
    [
      "an ai-sdk provider whose package makes no image (speech only)",
      { targets: [{ provider: "voices", upstream_model: "eleven_v3" }] },
      [{ id: "voices", kind: "ai-sdk", provider: "elevenlabs", api_key_env: "ACME_API_KEY", entries: [] }],
      "providers[0].entries[0].routes.targets[0].provider names a provider that makes no image: @ai-sdk/elevenlabs makes audio (speech) only.",
    ],
  ])("refuses %s, naming the field", (_what, routes, others, message) => {
    expect(problemWith(routed(routes, others))).toContain(message);
  });

  it("takes an ai-sdk target whose package makes the entry's modality, held to the same rule as its own entries", () => {
    const local = { id: "local", kind: "ai-sdk", provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
    const [own] = parse(
      routed({ targets: [{ provider: "local", upstream_model: "sd-turbo" }] }, [{ ...local, entries: [] }]),
    );
    expect(own!.entries[0]!.routes!.targets).toMatchObject([{ providerId: "local", upstreamModel: "sd-turbo" }]);
    // The direct check, for comparison: the same package rule on the provider's own entry.
    const voices = { id: "voices", kind: "ai-sdk", provider: "elevenlabs", api_key_env: "ACME_API_KEY" };
    expect(problemWith({ providers: [{ ...voices, entries: [entry()] }] })).toBe(
      'providers[0].entries[0].modality must be one of "audio": @ai-sdk/elevenlabs makes audio (speech) only; got "image".',
    );
  });
});
