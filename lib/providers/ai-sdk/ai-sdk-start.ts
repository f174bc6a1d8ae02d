// The studio's "Add a model" for an AI SDK or openai-images provider. These publish no schema to
// import, so the operator gives the model id and gets a starting document to edit: its fields are
// the call's standard arguments for the modality (a field named like one is that argument,
// ai-sdk-call.ts), only those the package reads (read from its code: it drops the others with a
// warning only, so such a field would do nothing). The document is checked by the providers
// file's own parser before it is handed back, so what the editor starts from is one the server takes.
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../../primitives/json-schema";
import type { Modality } from "../../core/catalog/model-definition";
import { checkPlainDocument, ProvidersFileError } from "../common/json-fields";
import { humanize, SchemaImportError } from "../common/openapi-schema";
import { costField, defaultTasks, type EntryFacts, type ImportedEntry } from "../import-entry";
import { parseEntryDocument } from "../providers-file";
import { AI_SDK_PROVIDERS, aiSdkProvider, type AiSdkProviderName } from "./ai-sdk-providers";

export interface StartOptions extends EntryFacts {
  providerKind: "ai-sdk" | "openai-images";
  /** An ai-sdk provider's package (its `provider` field), a key of AI_SDK_PROVIDERS. */
  aiSdkProvider?: string;
  /** The id the package takes, written as upstream_model: gpt-image-1, eleven_multilingual_v2… */
  modelId: string;
  /** The entry's revision, YYYY-MM-DD; default today (UTC). */
  today?: string;
}

/** upstream_model's limit in the providers file (entry-config.ts). */
const MODEL_ID_MAX = 200;
const SEED_MAX = 2 ** 32 - 1;

/** Makers of their own models; the others host other makers' models (or are any server). */
const MAKERS: Partial<Record<AiSdkProviderName, string>> = {
  openai: "OpenAI",
  google: "Google",
  luma: "Luma AI",
  "black-forest-labs": "Black Forest Labs",
  xai: "xAI",
  elevenlabs: "ElevenLabs",
  lmnt: "LMNT",
};

/** Packages whose image models take aspect_ratio, not size: they drop size, or most of their models know no size. */
const ASPECT_RATIO_IMAGES = new Set<string>(["google", "replicate", "luma", "black-forest-labs", "xai", "fireworks"]);
/** Packages whose models drop the call's seed, by modality. */
const NO_SEED: Record<string, readonly string[]> = {
  image: ["openai", "openai-compatible", "google", "luma", "xai"],
  video: ["xai"],
};
/** Speech speed where the provider's range is narrower than OpenAI's 0.25–4 (LMNT's package, ElevenLabs' API docs). */
const SPEED_RANGE: Record<string, [number, number]> = { lmnt: [0.25, 2], elevenlabs: [0.7, 1.2] };

const prompt: JsonSchemaObject = { type: "string", minLength: 1, maxLength: 4000, description: "What to make." };
const size: JsonSchemaObject = {
  type: "string",
  pattern: "^\\d+x\\d+$",
  description: "Width x height in pixels, such as 1024x1024; left out, the model's default.",
};
const aspectRatio: JsonSchemaObject = {
  type: "string",
  pattern: "^\\d+:\\d+$",
  description: "Width:height, such as 16:9; left out, the model's default.",
};
const seed: JsonSchemaObject = {
  type: "integer",
  minimum: 0,
  maximum: SEED_MAX,
  description: "The same seed and input give the same result, where the model allows.",
};

/** Sent in the body under its own name by openai-images (only prompt, n and size are the call's). */
const quality: JsonSchemaObject = {
  type: "string",
  minLength: 1,
  maxLength: 20,
  description: "Sent as it is: gpt-image-1 takes low, medium, high or auto; dall-e-3 standard or hd.",
};

function fields(modality: "image" | "audio" | "video", pkg: string): Record<string, JsonSchemaObject> {
  const seeded = !NO_SEED[modality]?.includes(pkg);
  if (modality === "audio") {
    const [low, high] = SPEED_RANGE[pkg] ?? [0.25, 4];
    return {
      text: { type: "string", minLength: 1, maxLength: 4000, description: "What to say." },
      voice: {
        type: "string",
        minLength: 1,
        maxLength: 100,
        description: "A voice the model has; left out, its default.",
      },
      speed: { type: "number", minimum: low, maximum: high, description: "1 is the voice's normal speed." },
    };
  }
  if (modality === "video") {
    return {
      prompt,
      duration: { type: "integer", minimum: 1, maximum: 60, description: "Seconds; left out, the model's default." },
      aspect_ratio: aspectRatio,
      ...(seeded ? { seed } : {}),
    };
  }
  const n: JsonSchemaObject = { type: "integer", minimum: 1, maximum: 4, default: 1, title: "Number of images" };
  if (pkg === "openai-images") return { prompt, n, size, quality };
  return {
    prompt,
    n,
    ...(ASPECT_RATIO_IMAGES.has(pkg) ? { aspect_ratio: aspectRatio } : { size }),
    ...(seeded ? { seed } : {}),
  };
}

/** What the operator should narrow in the started fields. */
function fieldsNote(modality: string, names: string[], modelId: string, optionsKey: string | null): string {
  if (optionsKey === null)
    return `prompt, n and size are the call's arguments and quality is sent in the body as it is: narrow size to the sizes ${modelId} makes and quality to its values (or remove it).`;
  const narrow =
    modality === "audio"
      ? "voice to its voices"
      : modality === "video"
        ? "duration and aspect_ratio to its choices"
        : `${names.includes("size") ? "size to its sizes" : "aspect_ratio to its ratios"}, n to how many it makes at once`;
  return `the fields are the AI SDK's standard arguments of a ${modality} call (${names.join(", ")}): narrow them to what ${modelId} takes (${narrow}); another field goes to providerOptions.${optionsKey} under its own name.`;
}

function checkModelId(raw: unknown): string {
  const id = typeof raw === "string" ? raw.trim() : "";
  if (id.includes("\u0000")) throw new SchemaImportError("The model id must not contain a NUL character (\\u0000).");
  if (!id)
    throw new SchemaImportError(
      "The model id is empty: give the id the provider's API takes, such as gpt-image-1 or eleven_multilingual_v2.",
    );
  if (/\p{Cc}/u.test(id)) throw new SchemaImportError("The model id must not contain control characters.");
  if (id.length > MODEL_ID_MAX)
    throw new SchemaImportError(
      `The model id is ${id.length} characters long; upstream_model takes at most ${MODEL_ID_MAX}.`,
    );
  return id;
}

/** A starting entry document for `modelId` with the call's standard fields, checked as the server will. */
export function startAiSdkEntry(options: StartOptions): ImportedEntry {
  const modelId = checkModelId(options.modelId);
  const openAiImages = options.providerKind === "openai-images";
  const info = openAiImages ? null : aiSdkProvider(options.aiSdkProvider ?? "");
  if (!openAiImages && !info)
    throw new SchemaImportError(
      `"${options.aiSdkProvider ?? ""}" is not an AI SDK provider package: use one of ${Object.keys(AI_SDK_PROVIDERS).join(", ")}.`,
    );
  const pkg = openAiImages ? "openai-images" : options.aiSdkProvider!;
  const makes: readonly Modality[] = info?.modalities ?? ["image"];
  const modality = options.modality ?? makes[0]!;
  if (!makes.includes(modality) || (modality !== "image" && modality !== "audio" && modality !== "video"))
    throw new SchemaImportError(
      `${info ? info.package : "An openai-images provider"} makes ${makes.join(", ")} models only, not ${modality}: choose ${makes.map((m) => `"${m}"`).join(" or ")}.`,
    );

  const properties = fields(modality, pkg);
  const required = modality === "audio" ? "text" : "prompt";
  const schema: JsonSchemaObject = {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    additionalProperties: false,
    required: [required],
    properties: Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, { title: humanize(k), ...p }])),
  };
  const names = Object.keys(properties);
  const maker = MAKERS[pkg as AiSdkProviderName];
  const creator = options.creator ?? maker ?? options.id.split("/")[0]!;
  const path = modelId.split("/");
  const name = options.name ?? (humanize(path.slice(path.length > 1 ? 1 : 0).join(" ")) || humanize(modelId));
  const drivers = options.drivers ?? (/^image/i.test(options.unit) && names.includes("n") ? ["n"] : []);

  const notes = [fieldsNote(modality, names, modelId, info?.optionsKey ?? null)];
  if (!options.creator && !maker)
    notes.push(`creator "${creator}" is taken from the entry's id: set the model's maker.`);
  if (!options.drivers && drivers.length > 0) notes.push("priced per image times n.");
  if (!options.drivers && modality === "video" && /^sec/i.test(options.unit))
    notes.push(
      'priced per second with no driver: give duration the model\'s default and add "duration" to drivers, or a run is priced as one second.',
    );

  const entry: Record<string, unknown> = {
    id: options.id,
    upstream_model: modelId,
    name: name.slice(0, 100),
    creator: creator.slice(0, 100),
    description: (
      options.description ??
      `${modelId} ${openAiImages ? "on an OpenAI-compatible images endpoint" : `through ${info!.package}`}.`
    ).slice(0, 1000),
    modality,
    tasks: options.tasks ?? defaultTasks(modality, schema, "speech"),
    revision: options.today ?? new Date().toISOString().slice(0, 10),
    status: "stable",
    input_schema: schema,
    pricing: { unit: options.unit, usd: options.usd, drivers, overrides: [] },
    ...costField(options, drivers),
  };
  try {
    parseEntryDocument(entry, { id: "start", kind: options.providerKind }, { baseDir: process.cwd(), env: {} });
    checkPlainDocument(entry, "entry");
  } catch (err) {
    if (err instanceof ProvidersFileError) throw new SchemaImportError(`The entry cannot be started: ${err.message}`);
    throw err;
  }
  return { entry, dropped: [], notes };
}
