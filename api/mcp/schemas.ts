// The JSON Schemas of the MCP tools' arguments and results. Arguments are checked with the same
// Ajv 2020 as model inputs (additionalProperties: false, so a misspelt argument is named); results
// are described loosely enough that every answer the core gives validates in the client, which
// checks `structuredContent` against them.
import type { JsonSchemaObject } from "../../lib/primitives/json-schema";
import { LIMITS } from "../../lib/primitives/limits";
import { GENERATION_STATUSES } from "../../lib/core/runs/run-states";
import { SOURCES } from "../../lib/core/context";
import { MODALITIES } from "../../lib/core/catalog/model-definition";

function args(properties: Record<string, JsonSchemaObject>, required: string[] = []): JsonSchemaObject {
  return { type: "object", additionalProperties: false, properties, required };
}

const modelId: JsonSchemaObject = {
  type: "string",
  minLength: 1,
  maxLength: LIMITS.modelIdLength,
  description: "A catalog ID such as atelier/gradient, or a preset with its version such as atelier/promo-video@1.",
};
const modelInput: JsonSchemaObject = {
  type: "object",
  description:
    "The model's own input: the fields of its input_schema (get_model shows it). Defaults fill what is left out.",
};
const waitSeconds: JsonSchemaObject = {
  type: "integer",
  minimum: 0,
  maximum: LIMITS.preferWaitSeconds,
  description: `How long to wait for the run to finish before answering, in seconds (at most ${LIMITS.preferWaitSeconds}).`,
};
const generationId: JsonSchemaObject = {
  type: "string",
  minLength: 1,
  maxLength: 100,
  description: "The run's ID, gen_…",
};

export const ARGUMENTS = {
  list_models: args({
    modality: { type: "string", enum: [...MODALITIES], description: "Only models that make this kind of output." },
    task: {
      type: "string",
      minLength: 1,
      maxLength: 100,
      description: "Only models that do this task, e.g. text-to-image, text-to-speech.",
    },
    search: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: "Words to find in a model's ID, name, creator or description.",
    },
  }),
  get_model: args({ id: modelId }, ["id"]),
  quote: args({ model: modelId, input: modelInput }, ["model"]),
  generate: args(
    {
      model: modelId,
      input: modelInput,
      wait_seconds: { ...waitSeconds, default: LIMITS.mcpDefaultWaitSeconds },
      idempotency_key: {
        type: "string",
        minLength: LIMITS.idempotencyKeyLength.min,
        maxLength: LIMITS.idempotencyKeyLength.max,
        description:
          "Send the same key again (with the same model and input) to get the same run instead of a second one.",
      },
    },
    ["model"],
  ),
  get_generation: args({ id: generationId, wait_seconds: { ...waitSeconds, default: 0 } }, ["id"]),
  cancel_generation: args({ id: generationId }, ["id"]),
  list_generations: args({
    limit: {
      type: "integer",
      minimum: LIMITS.pageSize.min,
      maximum: LIMITS.pageSize.max,
      description: `How many runs, newest first (default ${LIMITS.pageSize.default}).`,
    },
    cursor: {
      type: "string",
      minLength: LIMITS.cursorLength.min,
      maxLength: LIMITS.cursorLength.max,
      description: "next_cursor of the previous page.",
    },
    model: modelId,
    source: {
      type: "string",
      minLength: 1,
      maxLength: 100,
      description: `Where runs were started, comma-separated: ${SOURCES.join(", ")}.`,
    },
    status: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: `Comma-separated statuses: ${GENERATION_STATUSES.join(", ")}.`,
    },
    batch: { type: "string", minLength: 1, maxLength: 100, description: "Only the runs of this batch, batch_…" },
  }),
  get_credits: args({}),
  upload_image: args(
    {
      data: {
        type: "string",
        minLength: 1,
        // base64 of imageUploadBytes, with room for a data: URI prefix; the decoded size is checked as POST /v1/files does.
        maxLength: Math.ceil((LIMITS.imageUploadBytes * 4) / 3) + 200,
        description: "The image (PNG, JPEG, WebP or GIF, at most 4 MB) in base64, bare or as a data: URI.",
      },
      filename: { type: "string", minLength: 1, maxLength: 255, description: "A name to keep with the file." },
    },
    ["data"],
  ),
  keep_output: args(
    {
      generation_id: generationId,
      index: {
        type: "integer",
        minimum: LIMITS.outputIndex.min,
        maximum: LIMITS.outputIndex.max,
        description: "The output's position in the run's output list, from 0.",
      },
    },
    ["generation_id", "index"],
  ),
} satisfies Record<string, JsonSchemaObject>;

export type ToolName = keyof typeof ARGUMENTS;

const usd: JsonSchemaObject = { type: "string", description: "US dollars, a decimal string." };
const nullableString: JsonSchemaObject = { type: ["string", "null"] };

const generation: JsonSchemaObject = {
  type: "object",
  required: ["id", "object", "model", "status", "output"],
  properties: {
    id: { type: "string" },
    object: { const: "generation" },
    model: { type: "string" },
    modality: { type: "string" },
    status: { type: "string", enum: [...GENERATION_STATUSES] },
    provider: nullableString,
    input: { type: "object" },
    output: {
      type: "array",
      items: {
        type: "object",
        required: ["type", "url", "content_type"],
        properties: {
          type: { type: "string" },
          url: { type: "string" },
          content_type: { type: "string" },
          expires_at: { type: "string" },
        },
      },
    },
    preview: { type: ["object", "null"] },
    error: { type: ["object", "null"] },
    usage: { type: "object", properties: { cost_usd: nullableString } },
    source: { type: "string" },
    batch_id: nullableString,
    created_at: { type: "string" },
    started_at: nullableString,
    completed_at: nullableString,
  },
};

const file: JsonSchemaObject = {
  type: "object",
  required: ["id", "object", "url"],
  properties: {
    id: { type: "string" },
    object: { const: "file" },
    content_type: { type: "string" },
    url: { type: "string" },
    expires_at: { type: "string" },
  },
};

const modelSummary: JsonSchemaObject = {
  type: "object",
  required: ["id", "name", "modality", "tasks", "price"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    modality: { type: "string" },
    tasks: { type: "array", items: { type: "string" } },
    price: { type: "string", description: "What a run costs, e.g. $0.04 / image." },
    available: { type: "boolean", description: "Whether it takes runs now." },
    deprecation: { type: ["object", "null"] },
  },
};

export const RESULTS: Record<ToolName, JsonSchemaObject> = {
  list_models: { type: "object", required: ["models"], properties: { models: { type: "array", items: modelSummary } } },
  get_model: {
    type: "object",
    required: ["id", "input_schema"],
    properties: { id: { type: "string" }, input_schema: { type: "object" }, pricing: { type: "object" } },
  },
  quote: {
    type: "object",
    required: ["object", "model", "cost_usd", "hold_usd"],
    properties: { object: { const: "quote" }, model: { type: "string" }, cost_usd: usd, hold_usd: usd },
  },
  generate: generation,
  get_generation: generation,
  cancel_generation: generation,
  list_generations: {
    type: "object",
    required: ["data", "has_more"],
    properties: {
      data: { type: "array", items: generation },
      has_more: { type: "boolean" },
      next_cursor: nullableString,
    },
  },
  get_credits: {
    type: "object",
    required: ["available_usd", "held_usd"],
    properties: { available_usd: usd, held_usd: usd },
  },
  upload_image: file,
  keep_output: file,
};
