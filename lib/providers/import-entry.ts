// The core of `admin provider import`: a providers-file entry made from the provider's own schema
// (a Replicate model or version through the `replicate` client; a fal endpoint through the OpenAPI
// document fal publishes for it), converted to JSON Schema 2020-12 (openapi-schema.ts), with the
// price the operator sets; and that entry written into a providers file's JSON text, keeping every
// other provider, entry and field. Both results are checked exactly as the server will load them.
import Replicate from "replicate";
import type { JsonSchemaObject } from "../primitives/json-schema";
import type { Modality } from "../core/catalog/model-definition";
import { isFileField } from "../core/catalog/file-inputs";
import { validateModelInput } from "../core/catalog/input-validation";
import { checkPlainDocument } from "./common/json-fields";
import { humanize, convertOpenApiInput, SchemaImportError } from "./common/openapi-schema";
import { parseProvidersFile } from "./providers-file";
import { detailOf } from "./common/replicate-fal-shared";
import { parseReplicateModel, REPLICATE_BASE_URL, replicateWireFetch } from "./replicate/replicate";
import { FAL_OPENAPI_URL, isFalEndpoint } from "./fal/fal";

export { SchemaImportError } from "./common/openapi-schema";

/** Where fal publishes each endpoint's OpenAPI document (GET {host}/api/openapi/queue/openapi.json?endpoint_id=…). */

export type ImportSource = { kind: "replicate"; model: string } | { kind: "fal"; endpoint: string };

/** What the operator says of an imported entry, whatever its source: its catalog id, price and overrides of what is read. */
export interface EntryFacts {
  /** The catalog id, "<creator>/<name>". */
  id: string;
  usd: string;
  unit: string;
  /** Pricing drivers; default: the model's count of outputs (num_outputs, num_images) when the unit is per image. */
  drivers?: string[];
  /**
   * What a run costs upstream (the entry's `cost`, ops-only): per unit, in the price's unit and
   * with its drivers (`usd`), or per second of provider time (`perSecondUsd`). Absent: no cost.
   */
  cost?: { usd: string } | { perSecondUsd: string };
  name?: string;
  creator?: string;
  description?: string;
  /** Default: read from the source (fal's category, a workflow's output nodes), else guessed; image when nothing says. */
  modality?: Modality;
  tasks?: string[];
}

export interface ImportOptions extends EntryFacts {
  source: ImportSource;
  /** Replicate's API token (its model API needs one); fal's documents are public. */
  apiKey?: string | null;
  /** Replicate's API base (default https://api.replicate.com/v1) or fal's document host (default https://fal.ai). */
  baseUrl?: string;
  /** The entry's revision, YYYY-MM-DD; default today (UTC). */
  today?: string;
  signal?: AbortSignal;
}

export interface ImportedEntry {
  /** The providers-file entry, ready to write. */
  entry: Record<string, unknown>;
  /** Fields of the provider's schema left out, and why. */
  dropped: Array<{ field: string; reason: string }>;
  /** What the import guessed and the operator may want to check. */
  notes: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function modalityFromWords(text: string): Modality | null {
  if (/\bvideo|clip|animat/i.test(text)) return "video";
  if (/3d\b|\bglb\b|\bgltf\b/i.test(text)) return "3d";
  if (/\b(speech|tts|voice|audio|music|song|sound)/i.test(text)) return "audio";
  if (/\b(image|photo|picture|flux|diffusion|upscal)/i.test(text)) return "image";
  return null;
}

/** The tasks an entry of `modality` with this schema does (file inputs make it …-to-… from them). */
export function defaultTasks(modality: Modality, schema: JsonSchemaObject, words: string): string[] {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const fileOf = (type: string) =>
    Object.entries(props).filter(([, p]) => isFileField(p) && String(p.contentMediaType).startsWith(type));
  const images = fileOf("image/");
  const requiredImage = images.some(([name]) => required.has(name));
  const hasText = Object.values(props).some((p) => p.type === "string" && !isFileField(p));
  if (modality === "image")
    return requiredImage
      ? ["image-to-image"]
      : images.length > 0
        ? ["text-to-image", "image-to-image"]
        : ["text-to-image"];
  if (modality === "video")
    return requiredImage
      ? ["image-to-video"]
      : images.length > 0
        ? ["text-to-video", "image-to-video"]
        : ["text-to-video"];
  if (modality === "3d")
    return requiredImage ? ["image-to-3d"] : images.length > 0 ? ["text-to-3d", "image-to-3d"] : ["text-to-3d"];
  if (fileOf("audio/").length > 0 && !hasText) return ["audio-to-audio"];
  return /speech|tts|voice|speak/i.test(words) ? ["text-to-speech"] : ["text-to-audio"];
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

async function replicateSchema(options: ImportOptions, model: string, signal?: AbortSignal) {
  const ref = parseReplicateModel(model);
  if (!ref) throw new SchemaImportError(`"${model}" is not a Replicate model: use owner/name or owner/name:version.`);
  const wire = replicateWireFetch();
  const client = new Replicate({
    auth: options.apiKey || "missing-key",
    baseUrl: options.baseUrl ?? REPLICATE_BASE_URL,
    fetch: wire.fetch,
    useFileOutput: false,
    userAgent: "atelier",
  });
  const [owner, name] = ref.model.split("/") as [string, string];
  try {
    const info = await client.models.get(owner, name, { signal });
    const version = ref.version
      ? await client.models.versions.get(owner, name, ref.version, { signal })
      : info.latest_version;
    if (!version?.openapi_schema) throw new SchemaImportError(`${ref.model} has no published version with a schema.`);
    // Official models run through the model's endpoint (always its latest version); others must name a version.
    const upstream = ref.version
      ? `${ref.model}:${ref.version}`
      : info.is_official
        ? ref.model
        : `${ref.model}:${version.id}`;
    return {
      info,
      document: version.openapi_schema as Json,
      upstream,
      pinned: !ref.version && !info.is_official ? version.id : null,
    };
  } catch (err) {
    if (err instanceof SchemaImportError) throw err;
    const response = (err as { response?: unknown }).response;
    if (response instanceof Response) {
      const detail = detailOf(wire.bodyOf(response) ?? "") ?? `HTTP ${response.status}`;
      throw new SchemaImportError(
        `Replicate answered ${response.status} for ${ref.model}: ${detail}${response.status === 401 ? " (check the API token)" : ""}`,
      );
    }
    throw new SchemaImportError(`Replicate could not be asked about ${ref.model}: ${(err as Error).message}`);
  }
}

/**
 * Replicate's `default_example` as the entry's one example, when its input is one the entry would
 * run: one naming a file by URL (the entry takes file ids) or a field the conversion dropped is
 * left out with a note, rather than writing an entry the server would refuse.
 */
function defaultExample(input: unknown, schema: JsonSchemaObject, id: string, notes: string[]): Json {
  if (!isObject(input)) return {};
  try {
    checkPlainDocument(input, "input");
    validateModelInput(schema, input, { modelId: id });
  } catch (err) {
    notes.push(`Replicate's default example was left out: ${(err as Error).message}`);
    return {};
  }
  return { examples: [{ title: "Default example", input }] };
}

async function falDocument(options: ImportOptions, endpoint: string, signal?: AbortSignal): Promise<Json> {
  const url = `${(options.baseUrl ?? FAL_OPENAPI_URL).replace(/\/+$/, "")}/api/openapi/queue/openapi.json?endpoint_id=${encodeURIComponent(endpoint)}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/json" }, signal });
  } catch (err) {
    throw new SchemaImportError(`fal's schema for ${endpoint} could not be fetched: ${(err as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok)
    throw new SchemaImportError(
      `fal answered ${response.status} for ${endpoint}'s schema: ${detailOf(text) ?? "no detail"}`,
    );
  try {
    const doc = JSON.parse(text) as unknown;
    if (isObject(doc)) return doc;
  } catch {
    // told below
  }
  throw new SchemaImportError(`fal's schema for ${endpoint} is not a JSON OpenAPI document.`);
}

/** The input schema of a fal endpoint: its POST path's request body, else the one schema named …Input. */
function falInputSchema(doc: Json, endpoint: string): Json {
  const paths = isObject(doc.paths) ? doc.paths : {};
  const post = (
    paths[`/${endpoint}`] as { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } } | undefined
  )?.post;
  const body = post?.requestBody?.content?.["application/json"]?.schema;
  if (isObject(body)) return body;
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const inputs = Object.entries(schemas).filter(([name, s]) => name.endsWith("Input") && isObject(s));
  if (inputs.length === 1) return inputs[0]![1] as Json;
  throw new SchemaImportError(`fal's document for ${endpoint} has no request body schema for POST /${endpoint}.`);
}

/** A ready providers-file entry from the provider's own schema and the operator's price. */
export async function importEntry(options: ImportOptions): Promise<ImportedEntry> {
  const notes: string[] = [];
  let document: Json;
  let input: Json;
  let upstream: string;
  let words: string;
  let name: string;
  let creator: string;
  let description: string;
  let modality = options.modality ?? null;
  let tasks = options.tasks ?? null;
  let exampleInput: unknown;
  if (options.source.kind === "replicate") {
    const found = await replicateSchema(options, options.source.model, options.signal);
    document = found.document;
    const schemas =
      isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
    if (!isObject(schemas.Input))
      throw new SchemaImportError(`${options.source.model}'s schema has no components.schemas.Input.`);
    input = schemas.Input;
    upstream = found.upstream;
    if (found.pinned)
      notes.push(
        `pinned to version ${found.pinned}: a community model runs by version (re-import to move to a newer one).`,
      );
    name = humanize(found.info.name);
    creator = found.info.owner;
    description = found.info.description?.trim() || `${found.info.owner}/${found.info.name} on Replicate.`;
    words = `${found.info.name} ${description}`;
    exampleInput = found.info.default_example?.input;
  } else {
    const endpoint = options.source.endpoint;
    if (!isFalEndpoint(endpoint))
      throw new SchemaImportError(`"${endpoint}" is not a fal endpoint id such as fal-ai/flux/dev.`);
    document = await falDocument(options, endpoint, options.signal);
    input = falInputSchema(document, endpoint);
    upstream = endpoint;
    const info = isObject(document.info) ? document.info : {};
    const meta = isObject(info["x-fal-metadata"]) ? info["x-fal-metadata"] : {};
    const category = typeof meta.category === "string" ? meta.category : "";
    const family = /-to-(image|video|audio|speech|music|3d)$/.exec(category)?.[1];
    modality ??= family === "image" || family === "video" || family === "3d" ? family : family ? "audio" : null;
    if (!tasks && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(category)) tasks = [category];
    const parts = endpoint.split("/");
    name = humanize(parts.slice(1).join(" "));
    creator = parts[0]!;
    description =
      typeof info.description === "string" && info.description.trim() ? info.description.trim() : `${endpoint} on fal.`;
    words = `${endpoint} ${description}`;
  }

  const converted = convertOpenApiInput(input, document);
  if (!modality) {
    modality = modalityFromWords(words) ?? "image";
    notes.push(`modality "${modality}" guessed from the model's name and description; pass --modality to change it.`);
  }
  tasks ??= defaultTasks(modality, converted.schema, words);
  const fields = Object.keys(converted.schema.properties ?? {});
  let drivers = options.drivers;
  if (!drivers) {
    const count = ["num_outputs", "num_images"].find((f) => fields.includes(f));
    drivers = count && /^image/i.test(options.unit) ? [count] : [];
    if (drivers.length > 0) notes.push(`priced per image times ${drivers[0]}; pass --drivers to change it.`);
  }
  const entry: Record<string, unknown> = {
    id: options.id,
    upstream_model: upstream,
    name: (options.name ?? name).slice(0, 100),
    creator: (options.creator ?? creator).slice(0, 100),
    description: (options.description ?? description).slice(0, 1000),
    modality,
    tasks,
    revision: options.today ?? today(),
    status: "stable",
    input_schema: converted.schema,
    ...(converted.fileListFields.length > 0 ? { file_list_inputs: converted.fileListFields } : {}),
    pricing: { unit: options.unit, usd: options.usd, drivers, overrides: [] },
    ...costField(options, drivers),
    ...defaultExample(exampleInput, converted.schema, options.id, notes),
  };
  return { entry, dropped: converted.dropped, notes };
}

/** The entry's `cost` field from the operator's facts, beside a price of `unit` and `drivers`; {} for none. */
export function costField(facts: EntryFacts, drivers: string[]): Record<string, unknown> {
  if (!facts.cost) return {};
  if ("perSecondUsd" in facts.cost) return { cost: { per_second_usd: facts.cost.perSecondUsd } };
  return { cost: { unit: facts.unit, usd: facts.cost.usd, drivers, overrides: [] } };
}

export interface ProviderDefaults {
  id: string;
  kind: "replicate" | "fal" | "comfyui";
  /** Used only when the file has no provider of that id yet (a ComfyUI box usually needs none). */
  apiKeyEnv?: string;
  /** Used only when the file has no provider of that id yet; required then for a comfyui provider. */
  baseUrl?: string;
}

/**
 * The providers file's text with `entry` added to provider `provider.id` (created when missing),
 * every other provider, entry and field kept. Refuses an entry id already present unless
 * `replace`. The result is checked as the server loads it (keys stand in for the variables).
 */
export function addEntryToProvidersFile(
  text: string | null,
  provider: ProviderDefaults,
  entry: Record<string, unknown>,
  options: { replace?: boolean; baseDir?: string } = {},
): string {
  let root: Json;
  try {
    root = text && text.trim() ? (JSON.parse(text) as Json) : { providers: [] };
  } catch (err) {
    throw new SchemaImportError(`The providers file is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(root) || !Array.isArray(root.providers ?? []))
    throw new SchemaImportError("The providers file must be an object with a providers array.");
  const providers = (root.providers ?? []) as Json[];
  root.providers = providers;
  for (const other of providers) {
    if (other.id === provider.id) continue;
    if (Array.isArray(other.entries) && other.entries.some((e) => isObject(e) && e.id === entry.id)) {
      throw new SchemaImportError(`The entry ${String(entry.id)} is already served by provider ${String(other.id)}.`);
    }
  }
  let target = providers.find((p) => isObject(p) && p.id === provider.id);
  if (!target) {
    if (provider.kind === "comfyui" && !provider.baseUrl) {
      throw new SchemaImportError(
        `The file has no provider ${provider.id}: a new comfyui provider needs the ComfyUI server's base URL (--base-url http://127.0.0.1:8188).`,
      );
    }
    target = {
      id: provider.id,
      kind: provider.kind,
      ...(provider.baseUrl ? { base_url: provider.baseUrl } : {}),
      ...(provider.apiKeyEnv ? { api_key_env: provider.apiKeyEnv } : {}),
      entries: [],
    };
    providers.push(target);
  } else if (target.kind !== provider.kind) {
    throw new SchemaImportError(
      `The provider ${provider.id} is of kind "${String(target.kind)}", not "${provider.kind}".`,
    );
  }
  const entries = Array.isArray(target.entries) ? (target.entries as Json[]) : [];
  target.entries = entries;
  const at = entries.findIndex((e) => isObject(e) && e.id === entry.id);
  if (at >= 0 && !options.replace)
    throw new SchemaImportError(
      `The provider ${provider.id} already has the entry ${String(entry.id)} (pass --replace to overwrite it).`,
    );
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  const result = `${JSON.stringify(root, null, 2)}\n`;
  const env: Record<string, string> = {};
  for (const p of providers) if (typeof p.api_key_env === "string") env[p.api_key_env] = "checking-the-file";
  parseProvidersFile(result, env, options.baseDir);
  return result;
}
