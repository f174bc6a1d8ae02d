// The bodies /v1 answers and takes, as JSON Schema 2020-12 (OpenAPI 3.1's own dialect). Shapes
// are closed (`additionalProperties: false`) so that the API tests, which check every answer
// they receive against these (e2e/api/openapi-check.ts), catch a field the code adds and the
// document does not name.
import { EVENT_TYPES } from "../../lib/core/webhooks/webhook-endpoints";
import { ERROR_CODES } from "../../lib/primitives/error-codes";
import { ID_PREFIXES } from "../../lib/primitives/ids";
import { LIMITS } from "../../lib/primitives/limits";
import { SOURCES } from "../../lib/core/context";
import { MODALITIES } from "../../lib/core/catalog/model-definition";

export type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });
const closed = (
  properties: Record<string, JsonSchema>,
  required: string[] = Object.keys(properties),
  extra: JsonSchema = {},
): JsonSchema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
  ...extra,
});
const id = (kind: keyof typeof ID_PREFIXES, description?: string): JsonSchema => ({
  type: "string",
  pattern: `^${ID_PREFIXES[kind]}[0-9A-Za-z]+$`,
  ...(description ? { description } : {}),
});
const timestamp: JsonSchema = { type: "string", format: "date-time", description: "ISO 8601 UTC with milliseconds." };
const usd: JsonSchema = {
  type: "string",
  pattern: "^-?[0-9]+\\.[0-9]{2,6}$",
  description: 'A decimal string of US dollars, e.g. "0.04".',
  examples: ["0.04"],
};
const signedLink = (what: string): JsonSchema => ({
  type: "string",
  description: `${what}: a signed link, valid ${LIMITS.outputLinkHours} hours from the read that returned it; it needs no API key.`,
});

const GENERATION_STATUSES = ["queued", "running", "succeeded", "failed", "canceled"];

/** A cursor-paged list of `item`. */
const pagedList = (item: string): JsonSchema =>
  closed({
    object: { const: "list" },
    url: { type: "string", description: "The path this list was read from." },
    data: { type: "array", items: ref(item) },
    has_more: { type: "boolean" },
    next_cursor: {
      ...nullable({ type: "string", minLength: LIMITS.cursorLength.min, maxLength: LIMITS.cursorLength.max }),
      description: "Send it back as `cursor` for the next page; null on the last page.",
    },
  });

export const SCHEMAS: Record<string, JsonSchema> = {
  Error: closed({
    error: closed({
      type: { type: "string", enum: [...new Set(Object.values(ERROR_CODES).map((e) => e.type))] },
      code: {
        type: "string",
        enum: Object.keys(ERROR_CODES),
        description: "Stable: branch on `type` and `code`, never on `message`.",
      },
      message: { type: "string", description: "For a person; may change." },
      param: {
        ...nullable({ type: "string" }),
        description: "The field at fault, such as `input.prompt` or `requests[2].webhook`; else null.",
      },
      doc_url: nullable({ type: "string" }),
      request_id: id("request"),
    }),
  }),
  Pricing: closed({
    unit: { type: "string", description: 'What one `usd` buys: "image", "second", "character", "run".' },
    usd: usd,
    drivers: {
      type: "array",
      items: { type: "string" },
      description:
        "Input fields whose values multiply the price (a number as itself, a string or array as its length).",
    },
    overrides: {
      type: "array",
      description: "The first whose every field matches the input (after defaults) replaces `usd`.",
      items: closed({
        when: {
          type: "object",
          additionalProperties: {
            anyOf: [
              { type: ["string", "number", "boolean"] },
              { type: "array", items: { type: ["string", "number", "boolean"] } },
            ],
          },
        },
        usd: usd,
      }),
    },
  }),
  Deprecation: closed({
    deprecated_at: timestamp,
    sunset_at: { ...timestamp, description: "After it the entry, its quotes and runs answer 410 gone." },
    replaced_by: nullable({ type: "string" }),
  }),
  Availability: closed({
    status: { type: "string", enum: ["available", "out_of_service", "not_installed"] },
    message: {
      ...nullable({ type: "string" }),
      description: "Why it is out of service or what is missing and the fix; null when available.",
    },
    until: {
      ...nullable(timestamp),
      description: "When it is expected back; null when available, not installed or not known.",
    },
  }),
  Model: closed({
    id: {
      type: "string",
      maxLength: LIMITS.modelIdLength,
      description: "`<creator>/<name>`, a preset with `@<version>`.",
      examples: ["atelier/gradient"],
    },
    object: { const: "model" },
    type: { type: "string", enum: ["model", "preset"] },
    name: { type: "string" },
    creator: { type: "string" },
    modality: { type: "string", enum: [...MODALITIES] },
    tasks: { type: "array", items: { type: "string" } },
    description: { type: "string" },
    revision: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    version: nullable({ type: "string", pattern: "^[1-9][0-9]{0,3}$" }),
    latest: { type: "boolean" },
    status: { type: "string", enum: ["stable", "beta"] },
    deprecation: nullable(ref("Deprecation")),
    pricing: ref("Pricing"),
    availability: ref("Availability"),
  }),
  ModelList: closed({ object: { const: "list" }, data: { type: "array", items: ref("Model") } }),
  Quote: closed({
    object: { const: "quote" },
    model: { type: "string" },
    revision: { type: "string" },
    input: { type: "object", description: "The input as it would run, defaults filled in." },
    cost_usd: usd,
    hold_usd: usd,
  }),
  Credits: closed({ object: { const: "credits" }, available_usd: usd, held_usd: usd }),
  Workspace: closed({
    id: id("workspace"),
    object: { const: "workspace" },
    name: { type: "string" },
    created_at: timestamp,
  }),
  OutputItem: closed(
    {
      type: { type: "string", enum: [...MODALITIES] },
      url: signedLink("The output"),
      expires_at: timestamp,
      content_type: {
        type: "string",
        description: "image/…, video/mp4, audio/…, or model/gltf-binary (a .glb) for 3D.",
      },
      width: { type: "integer", minimum: 1 },
      height: { type: "integer", minimum: 1 },
      duration: { type: "number", minimum: 0, description: "Seconds (video and audio)." },
      vertices: { type: "integer", minimum: 0, description: "3D: vertices over all of the model's primitives." },
      triangles: { type: "integer", minimum: 0, description: "3D: triangles over all of the model's primitives." },
      bounding_box: closed(
        {
          min: {
            type: "array",
            items: { type: "number" },
            minItems: 3,
            maxItems: 3,
            description: "Least x, y, z in metres (glTF: y up).",
          },
          max: {
            type: "array",
            items: { type: "number" },
            minItems: 3,
            maxItems: 3,
            description: "Greatest x, y, z in metres.",
          },
        },
        ["min", "max"],
      ),
      poster: closed({
        url: signedLink("A still of the video or the 3D model"),
        expires_at: timestamp,
        width: { type: "integer" },
        height: { type: "integer" },
      }),
    },
    ["type", "url", "expires_at", "content_type"],
  ),
  Preview: closed({
    url: signedLink("The preview"),
    expires_at: timestamp,
    content_type: { type: "string" },
    width: { type: "integer" },
    height: { type: "integer" },
  }),
  Generation: closed({
    id: id("generation"),
    object: { const: "generation" },
    model: { type: "string" },
    modality: { type: "string", enum: [...MODALITIES] },
    status: { type: "string", enum: GENERATION_STATUSES },
    provider: {
      ...nullable({ type: "string" }),
      description: "`atelier` for built-in models, the provider's id for remote ones; null until it starts.",
    },
    revision: { type: "string" },
    input: { type: "object", description: "The input as run, defaults filled in." },
    output: { type: "array", items: ref("OutputItem"), description: "Empty until succeeded." },
    preview: {
      ...nullable(ref("Preview")),
      description: "A preset's first image while it still runs; once shown, the run can no longer be canceled.",
    },
    error: nullable(closed({ message: { type: "string" } })),
    progress: {
      ...nullable({ type: "number", minimum: 0, maximum: 1 }),
      description: "How far a running run is, when its model tells; else null.",
    },
    queue_position: {
      ...nullable({ type: "integer", minimum: 1 }),
      description: "While queued: 1 for the next run to start; else null.",
    },
    usage: closed({
      cost_usd: { ...nullable(usd), description: "Null until charged (a failed or canceled run is not)." },
    }),
    source: { type: "string", enum: [...SOURCES] },
    batch_id: nullable(id("batch")),
    created_at: timestamp,
    started_at: nullable(timestamp),
    completed_at: nullable(timestamp),
  }),
  GenerationList: pagedList("Generation"),
  Batch: closed({
    id: id("batch"),
    object: { const: "batch" },
    data: { type: "array", items: ref("Generation"), description: "In request order." },
    created_at: timestamp,
  }),
  File: closed({
    id: id("file"),
    object: { const: "file" },
    content_type: { type: "string" },
    bytes: { type: "integer", minimum: 0 },
    width: nullable({ type: "integer" }),
    height: nullable({ type: "integer" }),
    duration: nullable({ type: "number" }),
    filename: nullable({ type: "string" }),
    url: signedLink("The file"),
    expires_at: timestamp,
    created_at: timestamp,
  }),
  FileList: pagedList("File"),
  Upload: closed({
    id: id("upload"),
    object: { const: "upload" },
    status: { type: "string", enum: ["pending", "completed"] },
    filename: { type: "string" },
    content_type: { type: "string" },
    bytes: { type: "integer", minimum: 1 },
    upload_url: {
      ...nullable({ type: "string" }),
      description: "PUT the bytes here (no API key) until `expires_at`; null once completed.",
    },
    expires_at: timestamp,
    file: nullable(ref("File")),
    created_at: timestamp,
  }),
  UploadReceipt: closed({
    id: id("upload"),
    received_bytes: { type: "integer", minimum: 0, description: "Bytes received so far; complete the upload next." },
  }),
  WebhookEndpoint: closed({
    id: id("webhook"),
    object: { const: "webhook_endpoint" },
    url: { type: "string", maxLength: LIMITS.webhookUrlLength },
    description: { type: "string" },
    event_types: {
      type: "array",
      items: { type: "string", enum: [...EVENT_TYPES] },
      description: "Empty: every type.",
    },
    enabled: { type: "boolean" },
    disabled_reason: nullable({ type: "string" }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  WebhookEndpointList: pagedList("WebhookEndpoint"),
  DeletedWebhookEndpoint: closed({
    id: id("webhook"),
    object: { const: "webhook_endpoint" },
    deleted: { const: true },
  }),
  WebhookSecret: closed({
    object: { const: "webhook_secret" },
    secret: { type: "string", pattern: "^whsec_" },
    previous_expires_at: {
      ...nullable(timestamp),
      description: "Until when the previous secret still signs deliveries (two signatures); null when there is none.",
    },
  }),
  Event: closed({
    id: id("event"),
    object: { const: "event" },
    type: { type: "string", enum: [...EVENT_TYPES] },
    timestamp: timestamp,
    data: { ...ref("Generation"), description: "The Generation as it ended." },
  }),
  EventList: pagedList("Event"),
  DeliveryAttempt: closed({
    attempt: { type: "integer", minimum: 1 },
    at: timestamp,
    response_status: nullable({ type: "integer" }),
    latency_ms: { type: "integer", minimum: 0 },
    response_body: { type: "string", description: "The first 20 kB of the answer, as text." },
    error: nullable({ type: "string" }),
  }),
  Delivery: closed({
    id: id("delivery"),
    object: { const: "webhook_delivery" },
    event_id: id("event"),
    webhook_id: { ...nullable(id("webhook")), description: "Null for a run's own `webhook` URL." },
    url: { type: "string" },
    status: { type: "string", enum: ["pending", "succeeded", "failed"] },
    attempts: { type: "array", items: ref("DeliveryAttempt") },
    next_attempt_at: nullable(timestamp),
    created_at: timestamp,
  }),
  DeliveryList: pagedList("Delivery"),
  ResentDeliveries: closed({ object: { const: "list" }, data: { type: "array", items: ref("Delivery") } }),
  WebhookPayload: closed({
    type: { type: "string", enum: [...EVENT_TYPES] },
    timestamp: timestamp,
    data: ref("Generation"),
  }),

  // Request bodies.
  GenerationRequest: closed(
    {
      model: { type: "string", minLength: 1, maxLength: LIMITS.modelIdLength, examples: ["atelier/gradient"] },
      input: {
        type: "object",
        description: "The model's input: its `input_schema` (GET /v1/models/{creator}/{name}).",
        examples: [{ prompt: "a lighthouse at dawn" }],
      },
      webhook: {
        type: "string",
        maxLength: LIMITS.webhookUrlLength,
        description: "Receives the run's ending event, signed with the workspace's default secret.",
      },
    },
    ["model"],
  ),
  BatchRequest: closed({
    requests: {
      type: "array",
      minItems: LIMITS.batchSize.min,
      maxItems: LIMITS.batchSize.max,
      items: ref("GenerationRequest"),
    },
  }),
  UploadRequest: closed({
    filename: { type: "string", minLength: 1 },
    content_type: { type: "string", examples: ["video/mp4"] },
    bytes: { type: "integer", minimum: 1 },
  }),
  WebhookEndpointRequest: closed(
    {
      url: { type: "string", maxLength: LIMITS.webhookUrlLength },
      description: { type: "string", maxLength: 500 },
      event_types: { type: "array", items: { type: "string", enum: [...EVENT_TYPES] } },
      enabled: { type: "boolean" },
    },
    ["url"],
  ),
  WebhookEndpointUpdate: closed(
    {
      url: { type: "string", maxLength: LIMITS.webhookUrlLength },
      description: { type: "string", maxLength: 500 },
      event_types: { type: "array", items: { type: "string", enum: [...EVENT_TYPES] } },
      enabled: { type: "boolean" },
    },
    [],
  ),
  EmptyBody: closed({}, [], { description: "No fields; an empty body reads as {}." }),
  ResendRequest: closed({ webhook_id: id("webhook") }, []),
};

/** A model entry with the JSON Schema of its input. */
SCHEMAS.ModelWithSchema = {
  ...SCHEMAS.Model,
  properties: {
    ...(SCHEMAS.Model!.properties as Record<string, JsonSchema>),
    input_schema: { type: "object", description: "JSON Schema 2020-12 of `input`; unknown fields are refused." },
  },
  required: [...(SCHEMAS.Model!.required as string[]), "input_schema"],
};
