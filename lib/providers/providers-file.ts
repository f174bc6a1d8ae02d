// The providers file (PROVIDERS_FILE): remote providers and the catalog entries each serves.
// Read once at start; any problem stops the start with a message naming the field.
//
// {
//   "providers": [
//     {
//       "id": "acme",                          // shown as a run's `provider`; lower-case, not "atelier"
//       "kind": "openai-images",               // the protocol: POST {base_url}/v1/images/generations
//       "base_url": "https://api.acme.example",
//       "api_key_env": "ACME_API_KEY",         // optional: the variable holding the key (sent as Bearer)
//       "timeout_ms": 60000,                   // optional, 100..3600000: limit for one call, results included
//       "job_timeout_ms": 3600000,             // optional, 1000..86400000: limit for a queued job (default 15 min)
//       "entries": [
//         {
//           "id": "acme/image-1",              // catalog id; never "atelier/…", no "@version"
//           "upstream_model": "image-1",       // sent as `model`
//           "name": "Acme Image 1",
//           "creator": "Acme",                 // optional, default the provider id
//           "description": "...",
//           "modality": "image",
//           "tasks": ["text-to-image"],
//           "revision": "2026-11-22",          // optional
//           "status": "stable",                // optional: "stable" or "beta"
//           "lifecycle": null,                 // optional: {deprecated_at, sunset_at, replaced_by}
//           "input_schema": { "type": "object", "additionalProperties": false, ... },
//                                              // JSON Schema 2020-12; its fields are sent as they are
//           "pricing": { "unit": "image", "usd": "0.04", "drivers": ["n"], "overrides": [] },
//           "examples": [{ "title": "A fox", "input": { "prompt": "a fox" } }]
//                                              // optional, at most 6; each input valid against input_schema
//         }
//       ]
//     }
//   ]
// }
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { parseEntry } from "./entry-config";
import {
  arrayAt,
  describe,
  fail,
  integerAt,
  objectAt,
  parseBaseUrl,
  ProvidersFileError,
  stringAt,
  type JsonObject,
} from "./common/json-fields";
import type { ParseContext, ProviderKind, RouteProvider } from "./common/kind";
import { PROVIDER_KINDS } from "./kinds";
import type { ProviderConfig, RemoteEntryConfig } from "./common/types";

export { ProvidersFileError } from "./common/json-fields";

const PROVIDER_FIELDS = ["id", "kind", "base_url", "api_key_env", "timeout_ms", "job_timeout_ms", "entries"] as const;
export const DEFAULT_TIMEOUT_MS = 60_000;

function parseApiKey(value: unknown, path: string, ctx: ParseContext): string | null {
  if (value === undefined) return null;
  const name = stringAt({ api_key_env: value }, "api_key_env", path, {
    pattern: /^[A-Za-z_][A-Za-z0-9_]*$/,
    patternText: "the name of an environment variable, such as ACME_API_KEY",
  });
  const key = ctx.env[name];
  if (key === undefined || key === "") {
    if (ctx.keysRequired === false) return null;
    fail(`${path}.api_key_env`, `names ${name}, which is not set; set it to the provider's API key.`);
  }
  return key;
}

/** A new Ajv under the settings of lib/core/catalog/input-validation.ts, so a schema that loads here also validates there. */
export function entrySchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true, verbose: true });
  addFormats(ajv);
  return ajv;
}

/** A provider's own settings (every field but `entries`), parsed; `fields` says which fields it may have. */
interface ProviderSettings {
  config: Omit<ProviderConfig, "entries">;
  kind: ProviderKind;
  raw: JsonObject;
}

function parseProviderSettings(
  value: unknown,
  path: string,
  ctx: ParseContext,
  options: { withEntries: boolean; storedKey?: string | null },
): ProviderSettings {
  // The kind first: it says which further fields the provider and its entries may have.
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(path, `must be an object; got ${describe(value)}.`);
  const kindName = stringAt(value as JsonObject, "kind", path, { oneOf: Object.keys(PROVIDER_KINDS) });
  const kind = PROVIDER_KINDS[kindName]!;
  const fields = PROVIDER_FIELDS.filter((f) => options.withEntries || f !== "entries");
  const provider = objectAt(value, path, [...fields, ...kind.providerFields]);
  const id = stringAt(provider, "id", path, {
    maxLength: 40,
    pattern: /^[a-z0-9]+(-[a-z0-9]+)*$/,
    patternText: 'lower-case letters, digits and dashes, such as "acme"',
  });
  if (id === "atelier") fail(`${path}.id`, 'must not be "atelier", which names the built-in models.');
  const baseUrl =
    kind.baseUrlRequired || provider.base_url !== undefined
      ? parseBaseUrl(stringAt(provider, "base_url", path), `${path}.base_url`)
      : "";
  const kindOptions = kind.parseProvider?.(provider, path, ctx) ?? {};
  if (options.storedKey != null && provider.api_key_env !== undefined)
    fail(`${path}.api_key_env`, "must be left out when the provider's key is stored (one or the other).");
  if (kind.keyRequired && options.storedKey == null && provider.api_key_env === undefined)
    fail(
      `${path}.api_key_env`,
      `is required: the name of the environment variable that holds the provider's key, such as ${kind.keyRequired.example}.`,
    );
  return {
    kind,
    raw: provider,
    config: {
      id,
      kind: kind.name,
      baseUrl,
      apiKey: options.storedKey ?? parseApiKey(provider.api_key_env, path, ctx),
      timeoutMs: integerAt(provider, "timeout_ms", path, { fallback: DEFAULT_TIMEOUT_MS, min: 100, max: 3_600_000 }),
      jobTimeoutMs:
        provider.job_timeout_ms === undefined
          ? null
          : integerAt(provider, "job_timeout_ms", path, { fallback: 0, min: 1_000, max: 24 * 3_600_000 }),
      options: kindOptions,
    },
  };
}

/** One provider of the file and its entries, parsed, with the documents the store keeps for them. */
interface ParsedProvider {
  config: ProviderConfig;
  document: ProviderDocuments;
}

function parseProvider(value: unknown, path: string, ctx: ParseContext, ajv: Ajv2020): ParsedProvider {
  const settings = parseProviderSettings(value, path, ctx, { withEntries: true });
  const { kind, raw, config } = settings;
  // None is allowed: a provider may serve only as another entry's route target.
  const entries = arrayAt(raw.entries, `${path}.entries`).map((entry, i) => {
    const parsed = parseEntry(entry, `${path}.entries[${i}]`, { id: config.id, kind, settings: raw }, ajv, ctx);
    const inline = kind.inlineEntry ? kind.inlineEntry(entry as JsonObject, parsed.options) : (entry as JsonObject);
    return { parsed, document: inline };
  });
  const { entries: _entries, ...settingsDocument } = raw;
  return {
    config: { ...config, entries: entries.map((e) => e.parsed) },
    document: {
      id: config.id,
      kind: kind.name,
      settings: settingsDocument,
      entries: entries.map((e) => ({ id: e.parsed.id, document: e.document })),
    },
  };
}

/** What the store keeps of one provider of the file: its settings without `entries`, each entry standing alone. */
export interface ProviderDocuments {
  id: string;
  kind: string;
  settings: JsonObject;
  entries: Array<{ id: string; document: JsonObject }>;
}

function parseFile(text: string, env: Record<string, string | undefined>, baseDir: string): ParsedProvider[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProvidersFileError(`The providers file is not valid JSON: ${(err as Error).message}`);
  }
  const root = objectAt(json, "(the file)", ["$schema", "$comment", "providers"]);
  const ajv = entrySchemaCompiler();
  // Every provider of the file, by id and kind, for entries' `routes` (one may name a later one).
  const named = Array.isArray(root.providers) ? (root.providers as unknown[]) : [];
  const providerKinds = new Map<string, RouteProvider>();
  for (const p of named) {
    const { id, kind } = (p ?? {}) as { id?: unknown; kind?: unknown };
    if (typeof id === "string" && typeof kind === "string" && Object.hasOwn(PROVIDER_KINDS, kind))
      providerKinds.set(id, { kind: PROVIDER_KINDS[kind]!, settings: p as JsonObject });
  }
  const ctx: ParseContext = { baseDir, env, providers: providerKinds };
  const providers = arrayAt(root.providers, "providers").map((p, i) => parseProvider(p, `providers[${i}]`, ctx, ajv));
  const seenProviders = new Set<string>();
  const seenEntries = new Set<string>();
  providers.forEach(({ config: provider }, i) => {
    if (seenProviders.has(provider.id))
      fail(`providers[${i}].id`, `repeats "${provider.id}"; provider ids must be unique.`);
    seenProviders.add(provider.id);
    provider.entries.forEach((entry, j) => {
      if (seenEntries.has(entry.id))
        fail(`providers[${i}].entries[${j}].id`, `repeats "${entry.id}"; entry ids must be unique.`);
      seenEntries.add(entry.id);
    });
  });
  return providers;
}

/**
 * The providers of a providers file, validated, with their keys resolved from `env` (given by
 * lib/boot/config.ts, the only reader of process.env), relative paths read from `baseDir` (the file's
 * folder). Throws ProvidersFileError naming the field.
 */
export function parseProvidersFile(
  text: string,
  env: Record<string, string | undefined>,
  baseDir = process.cwd(),
): ProviderConfig[] {
  return parseFile(text, env, baseDir).map((p) => p.config);
}

/**
 * The providers file parsed (as parseProvidersFile) and as the documents the store keeps
 * (lib/providers/stored-catalog/apply-file.ts), each entry standing alone (a workflow file read in).
 */
export function providersFileDocuments(
  text: string,
  env: Record<string, string | undefined>,
  baseDir = process.cwd(),
): { providers: ProviderConfig[]; documents: ProviderDocuments[] } {
  const parsed = parseFile(text, env, baseDir);
  return { providers: parsed.map((p) => p.config), documents: parsed.map((p) => p.document) };
}

/**
 * One provider's settings as the store keeps them (the file's provider object without `entries`),
 * validated by the file's rules; `storedKey` is its pasted key, when it has one instead of
 * `api_key_env`. Messages name `path` ("provider.base_url …").
 */
export function parseProviderDocument(
  document: unknown,
  ctx: ParseContext,
  options: { storedKey?: string | null; path?: string } = {},
): Omit<ProviderConfig, "entries"> {
  return parseProviderSettings(document, options.path ?? "provider", ctx, {
    withEntries: false,
    storedKey: options.storedKey,
  }).config;
}

/** One entry as the store keeps it, validated by the file's rules for an entry of `provider`. */
export function parseEntryDocument(
  document: unknown,
  provider: { id: string; kind: string },
  ctx: ParseContext,
  path = "entry",
): RemoteEntryConfig {
  const kind = PROVIDER_KINDS[provider.kind];
  if (!kind) fail("provider.kind", `is "${provider.kind}", which no provider kind is.`);
  return parseEntry(document, path, { id: provider.id, kind }, entrySchemaCompiler(), ctx);
}
