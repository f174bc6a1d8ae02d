// What each /v1 route is, for the OpenAPI document: one entry per route the router serves, keyed
// "METHOD /hono/path" exactly as the route files register it (document.test.ts fails when a
// route and this table disagree). Error answers every route shares are added by document.ts.
import type { ErrorCode } from "../../lib/primitives/error-codes";
import { LIMITS } from "../../lib/primitives/limits";
import { AUDIT_FAMILIES } from "../../lib/core/audit/audit-actions";
import { USAGE_GROUPS } from "../../lib/core/usage/usage-shape";

/** How a route is authorized: an API key, nothing (public catalog), or its own signed URL. */
export type Access = "key" | "public" | "signed";

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description: string;
  schema: Record<string, unknown>;
}

/** Headers an answer may carry, beyond those on every answer. */
export type AnswerHeader =
  | "Location"
  | "Retry-After"
  | "Idempotent-Replayed"
  | "Preference-Applied"
  | "Vary"
  | "Deprecation"
  | "Sunset"
  | "Link"
  | "Cache-Control"
  | "Allow";

export interface Operation {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** The scope an API key needs (docs/api.md, "Authentication and scopes"). */
  scope?: "generations:read" | "generations:write" | "workspace:read";
  parameters?: Parameter[];
  /** A component schema name, with its media type (application/json by default). */
  body?:
    | { schema: string; required?: boolean }
    | { content: Record<string, { schema: Record<string, unknown> }>; description: string };
  /** The success answer: status, component schema (or a raw media type), headers. */
  success: {
    status: number;
    schema?: string;
    content?: Record<string, { schema: Record<string, unknown> }>;
    description: string;
    headers?: AnswerHeader[];
  };
  /** Other non-error answers (a range's 206). */
  alsoAnswers?: Array<{ status: number; description: string }>;
  /** Error codes beyond the shared ones (document.ts: auth, validation, rate limits, 500, 503). */
  errors?: Array<ErrorCode | { status: number; code: ErrorCode }>;
  /** The SDK call, for the reference page's examples. */
  sdk: string;
}

const ID = (what: string, prefix: string): Parameter => ({
  name: "id",
  in: "path",
  required: true,
  description: `The ${what}'s ID (\`${prefix}…\`).`,
  schema: { type: "string" },
});
const LIMIT: Parameter = {
  name: "limit",
  in: "query",
  description: `Page size, ${LIMITS.pageSize.min} to ${LIMITS.pageSize.max}.`,
  schema: {
    type: "integer",
    minimum: LIMITS.pageSize.min,
    maximum: LIMITS.pageSize.max,
    default: LIMITS.pageSize.default,
  },
};
const CURSOR: Parameter = {
  name: "cursor",
  in: "query",
  description: "The previous page's `next_cursor`; it is bound to the filters it was made with.",
  schema: { type: "string", minLength: LIMITS.cursorLength.min, maxLength: LIMITS.cursorLength.max },
};
const MODEL_PATH: Parameter[] = [
  {
    name: "creator",
    in: "path",
    required: true,
    description: "The creator part of the model ID.",
    schema: { type: "string" },
  },
  {
    name: "name",
    in: "path",
    required: true,
    description: "The name part, with `@<version>` for one version of a preset (URL-encoded `%40`).",
    schema: { type: "string" },
  },
];
const IDEMPOTENCY_KEY: Parameter = {
  name: "Idempotency-Key",
  in: "header",
  description:
    "A retry with the same key answers what the first request started; nothing runs or is charged twice. A different body with a used key answers 409.",
  schema: {
    type: "string",
    minLength: LIMITS.idempotencyKeyLength.min,
    maxLength: LIMITS.idempotencyKeyLength.max,
    pattern: "^[\\x21-\\x7E]+$",
  },
};
const PREFER: Parameter = {
  name: "Prefer",
  in: "header",
  description: `\`wait=N\`: answer when the run is final or after N seconds (at most ${LIMITS.preferWaitSeconds}); \`Preference-Applied\` says the wait honoured.`,
  schema: { type: "string", examples: ["wait=30"] },
};
const GENERATION_HEADERS: AnswerHeader[] = [
  "Retry-After",
  "Preference-Applied",
  "Vary",
  "Deprecation",
  "Sunset",
  "Link",
];
const DEPRECATION_HEADERS: AnswerHeader[] = ["Deprecation", "Sunset", "Link"];
const PUBLIC_CACHE: AnswerHeader[] = ["Cache-Control", ...DEPRECATION_HEADERS];

export const OPERATIONS: Record<string, Operation> = {
  "GET /v1/openapi.json": {
    operationId: "getOpenApiDocument",
    tag: "Meta",
    summary: "This document",
    access: "public",
    success: {
      status: 200,
      content: { "application/json": { schema: { type: "object" } } },
      description: "The OpenAPI 3.1 document of /v1.",
      headers: ["Cache-Control"],
    },
    sdk: "// The SDK's types are generated from this document.",
  },
  "GET /v1/models": {
    operationId: "listModels",
    tag: "Models",
    summary: "List models and presets",
    access: "key",
    scope: "generations:read",
    success: { status: 200, schema: "ModelList", description: "Every entry that has not passed its sunset." },
    sdk: "const { data } = await atelier.models.list();",
  },
  "GET /v1/models/:creator/:name": {
    operationId: "getModel",
    tag: "Models",
    summary: "Retrieve a model with its input schema",
    access: "key",
    scope: "generations:read",
    parameters: MODEL_PATH,
    success: {
      status: 200,
      schema: "ModelWithSchema",
      description: "The entry with `input_schema`.",
      headers: DEPRECATION_HEADERS,
    },
    errors: ["resource_not_found", "gone"],
    sdk: 'const model = await atelier.models.get("atelier/gradient");',
  },
  "GET /v1/public/models": {
    operationId: "listPublicModels",
    tag: "Models",
    summary: "List models (public, no key)",
    description: "The same list, cacheable by a CDN for an hour: its `availability` may be that old.",
    access: "public",
    success: {
      status: 200,
      schema: "ModelList",
      description: "Every entry that has not passed its sunset.",
      headers: ["Cache-Control"],
    },
    sdk: "const { data } = await atelier.models.listPublic();",
  },
  "GET /v1/public/models/:creator/:name": {
    operationId: "getPublicModel",
    tag: "Models",
    summary: "Retrieve a model (public, no key)",
    access: "public",
    parameters: MODEL_PATH,
    success: {
      status: 200,
      schema: "ModelWithSchema",
      description: "The entry with `input_schema`.",
      headers: PUBLIC_CACHE,
    },
    errors: ["resource_not_found", "gone"],
    sdk: 'const model = await atelier.models.getPublic("atelier/gradient");',
  },
  "POST /v1/quotes": {
    operationId: "createQuote",
    tag: "Generations",
    summary: "Quote a run",
    description: "The exact price of a run, validated as a run would be; starts nothing.",
    access: "key",
    scope: "generations:read",
    body: { schema: "GenerationRequest", required: true },
    success: { status: 200, schema: "Quote", description: "The price and the hold.", headers: DEPRECATION_HEADERS },
    errors: ["resource_not_found", "gone", "payload_too_large", "unsupported_media_type"],
    sdk: 'const quote = await atelier.quotes.create({ model: "atelier/gradient", input: { prompt: "a lighthouse at dawn" } });',
  },
  "GET /v1/credits": {
    operationId: "getCredits",
    tag: "Workspace",
    summary: "Read the balance",
    access: "key",
    scope: "generations:read",
    success: { status: 200, schema: "Credits", description: "Available and held." },
    sdk: "const credits = await atelier.credits.get();",
  },
  "GET /v1/workspace": {
    operationId: "getWorkspace",
    tag: "Workspace",
    summary: "Read the key's workspace",
    access: "key",
    scope: "workspace:read",
    success: { status: 200, schema: "Workspace", description: "The workspace." },
    sdk: "const workspace = await atelier.workspace.get();",
  },
  "GET /v1/audit-events": {
    operationId: "listAuditEvents",
    tag: "Workspace",
    summary: "List audit events",
    description: `Every change to the workspace's members, roles, invitations, API keys, webhook endpoints and signing secret, credit grants and share links, newest first; kept ${LIMITS.auditRetentionDays} days unless \`AUDIT_RETENTION_DAYS\` says otherwise. A key a member made reads it when that member is an admin or owner; a key the admin CLI made reads it with its scope.`,
    access: "key",
    scope: "workspace:read",
    parameters: [
      LIMIT,
      CURSOR,
      {
        name: "action",
        in: "query",
        description: `One action (\`member.invited\`) or a family of them (\`member\`: every \`member.*\` action): ${AUDIT_FAMILIES.join(", ")}.`,
        schema: { type: "string", maxLength: 64 },
      },
      {
        name: "actor",
        in: "query",
        description: "Who made the change: a user's ID (`usr_…`), an API key's (`key_…`), or `cli`.",
        schema: { type: "string" },
      },
      {
        name: "from",
        in: "query",
        description:
          "Changes at or after this RFC 3339 time (`2026-05-01T09:30:00Z`, any offset) or day (`2026-05-01`, UTC).",
        schema: { type: "string" },
      },
      {
        name: "to",
        in: "query",
        description: "Changes at or before this RFC 3339 time, or during or before this day (UTC).",
        schema: { type: "string" },
      },
    ],
    success: { status: 200, schema: "AuditEventList", description: "A page of audit events, newest first." },
    sdk: 'for await (const event of atelier.auditEvents.iterate({ action: "key" })) console.log(event.action, event.actor.id);',
  },
  "GET /v1/audit-events/:id": {
    operationId: "getAuditEvent",
    tag: "Workspace",
    summary: "Retrieve an audit event",
    description: "Owners and admins, as for the list. Another workspace's event answers 404.",
    access: "key",
    scope: "workspace:read",
    parameters: [ID("audit event", "aud_")],
    success: { status: 200, schema: "AuditEvent", description: "The audit event." },
    errors: ["resource_not_found"],
    sdk: 'const event = await atelier.auditEvents.get("aud_…");',
  },
  "GET /v1/usage": {
    operationId: "getUsage",
    tag: "Workspace",
    summary: "Read usage and spend",
    description: `The workspace's runs started in a range of days (UTC) and what they were charged, grouped by \`day\`, \`model\`, \`key\`, \`member\` or \`source\`. A run counts on the day it was created, whenever it ended; \`cost_usd\` is its charge (succeeded runs only), so the total equals the ledger's charges for these runs. Days in order; other groups by cost, most first. A key a member made reads it when that member is an admin or owner; a key the admin CLI made reads it with its scope. With \`Accept: text/csv\`, the same rows as CSV.`,
    access: "key",
    scope: "workspace:read",
    parameters: [
      {
        name: "from",
        in: "query",
        description: `The first day (\`YYYY-MM-DD\`, UTC), included; by default ${LIMITS.usageRange.defaultDays - 1} days before \`to\`.`,
        schema: { type: "string", format: "date" },
      },
      {
        name: "to",
        in: "query",
        description: `The last day, included; by default today (UTC). At most ${LIMITS.usageRange.maxDays} days after \`from\`.`,
        schema: { type: "string", format: "date" },
      },
      {
        name: "group_by",
        in: "query",
        description:
          "What each row is: a day, a model, an API key, a member (a key's runs count for the member who made it) or a source.",
        schema: { type: "string", enum: [...USAGE_GROUPS], default: "day" },
      },
      {
        name: "model",
        in: "query",
        description: "Only this model's runs: every version of it, or one with `@<version>`.",
        schema: { type: "string", maxLength: LIMITS.modelIdLength },
      },
      {
        name: "Accept",
        in: "header",
        description: "`text/csv` for the rows as CSV (a header row first).",
        schema: { type: "string" },
      },
    ],
    success: {
      status: 200,
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/Usage" } },
        "text/csv": {
          schema: {
            type: "string",
            description:
              "The group's columns (`key,name` and `member,email` for those), then `runs,succeeded,failed,canceled,cost_usd`.",
          },
        },
      },
      description: "The rows and the total (JSON), or the rows as CSV.",
      headers: ["Vary"],
    },
    sdk: 'const usage = await atelier.usage.get({ from: "2026-05-01", to: "2026-05-31", group_by: "model" });',
  },
  "GET /v1/budgets": {
    operationId: "listBudgets",
    tag: "Workspace",
    summary: "List budgets",
    description:
      "The workspace's spending caps (on the workspace, its members and its API keys; set by owners and admins in the studio or with `admin budget set`), each with what the runs it covers hold and were charged in the current UTC day and month, and what is left. A key a member made reads them when that member is an admin or owner; a key the admin CLI made reads them with its scope.",
    access: "key",
    scope: "workspace:read",
    success: { status: 200, schema: "BudgetList", description: "Every budget of the workspace." },
    sdk: "const { data: budgets } = await atelier.budgets.list();",
  },
  "POST /v1/generations": {
    operationId: "createGeneration",
    tag: "Generations",
    summary: "Start a run",
    description: `Validates and prices the run as a quote does, holds the price and queues it. With \`Prefer: wait=N\` the answer comes when the run is final or after N seconds; a wait counts toward the key's ${LIMITS.openReadersPerKey} open status streams and waits (429 \`rate_limit_exceeded\` past them, before anything runs).`,
    access: "key",
    scope: "generations:write",
    parameters: [IDEMPOTENCY_KEY, PREFER],
    body: { schema: "GenerationRequest", required: true },
    success: {
      status: 201,
      schema: "Generation",
      description: "The run, queued (or as it is after the wait, or now for a replay).",
      headers: ["Location", "Idempotent-Replayed", ...GENERATION_HEADERS],
    },
    errors: [
      "insufficient_credit",
      "resource_not_found",
      "conflict",
      "gone",
      "payload_too_large",
      "unsupported_media_type",
    ],
    sdk: 'const run = await atelier.generations.create({ model: "atelier/gradient", input: { prompt: "a lighthouse at dawn" } }, { wait: 30 });',
  },
  "GET /v1/generations": {
    operationId: "listGenerations",
    tag: "Generations",
    summary: "List runs",
    description: "The workspace's runs, newest first.",
    access: "key",
    scope: "generations:read",
    parameters: [
      LIMIT,
      CURSOR,
      {
        name: "model",
        in: "query",
        description: "Only this model's runs (a preset without version: every version).",
        schema: { type: "string", maxLength: LIMITS.modelIdLength },
      },
      {
        name: "source",
        in: "query",
        description: "Comma-separated: `api`, `mcp`, `studio`.",
        schema: { type: "string" },
      },
      { name: "status", in: "query", description: "Comma-separated statuses.", schema: { type: "string" } },
      { name: "batch", in: "query", description: "Only this batch's runs (`bat_…`).", schema: { type: "string" } },
    ],
    success: { status: 200, schema: "GenerationList", description: "A page of runs." },
    sdk: 'for await (const run of atelier.generations.iterate({ status: "succeeded" })) console.log(run.id);',
  },
  "GET /v1/generations/:id": {
    operationId: "getGeneration",
    tag: "Generations",
    summary: "Retrieve a run, or follow it as a stream",
    description: `Fresh output links on every read. With \`Prefer: wait=N\`, answers when the run is final or after N seconds. With \`Accept: text/event-stream\`, a Server-Sent Events stream instead: \`retry: 1000\`, then an event \`generation\` (data: the whole Generation) at once and on every change, ids increasing and continuing after \`Last-Event-ID\`, a \`: keep-alive\` comment every 15 s, closed right after the final state. An API key holds at most ${LIMITS.openReadersPerKey} status streams and \`Prefer: wait\` reads open at once; the next answers 429 \`rate_limit_exceeded\` with \`Retry-After\`.`,
    access: "key",
    scope: "generations:read",
    parameters: [
      ID("run", "gen_"),
      PREFER,
      {
        name: "Accept",
        in: "header",
        description: "`text/event-stream` for the status stream.",
        schema: { type: "string" },
      },
      {
        name: "Last-Event-ID",
        in: "header",
        description: "On a stream: the last event id seen; the stream goes on from there.",
        schema: { type: "string" },
      },
    ],
    success: {
      status: 200,
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/Generation" } },
        "text/event-stream": {
          schema: { type: "string", description: "`event: generation`, `id: <n>`, `data: <Generation JSON>` blocks." },
        },
      },
      description: "The run (JSON), or its status stream.",
      headers: GENERATION_HEADERS,
    },
    errors: ["resource_not_found"],
    sdk: 'const run = await atelier.generations.get("gen_…", { wait: 30 });',
  },
  "POST /v1/generations/:id/cancel": {
    operationId: "cancelGeneration",
    tag: "Generations",
    summary: "Cancel a run",
    description:
      "Stops the run and releases its hold; safe to repeat. Past its cancel point (a preview shown, or a provider that bills on submission has it) answers 409.",
    access: "key",
    scope: "generations:write",
    parameters: [ID("run", "gen_")],
    success: {
      status: 200,
      schema: "Generation",
      description: "The run, canceled (or as it ended).",
      headers: GENERATION_HEADERS,
    },
    errors: ["resource_not_found", "conflict"],
    sdk: 'const run = await atelier.generations.cancel("gen_…");',
  },
  "POST /v1/generations/:id/outputs/:index/file": {
    operationId: "keepOutputAsFile",
    tag: "Files",
    summary: "Keep an image output as a file",
    description: "Images only; again answers the same file.",
    access: "key",
    scope: "generations:write",
    parameters: [
      ID("run", "gen_"),
      {
        name: "index",
        in: "path",
        required: true,
        description: "The output's index.",
        schema: { type: "integer", minimum: LIMITS.outputIndex.min, maximum: LIMITS.outputIndex.max },
      },
    ],
    success: { status: 201, schema: "File", description: "The file.", headers: ["Location"] },
    errors: ["resource_not_found", "conflict", "unsupported_media_type"],
    sdk: 'const file = await atelier.generations.keepOutput("gen_…", 0);',
  },
  "POST /v1/batches": {
    operationId: "createBatch",
    tag: "Generations",
    summary: "Start many runs at once",
    description:
      "Every run priced, then all held and queued in one transaction; a bad item or short credit starts nothing.",
    access: "key",
    scope: "generations:write",
    parameters: [IDEMPOTENCY_KEY],
    body: { schema: "BatchRequest", required: true },
    success: {
      status: 201,
      schema: "Batch",
      description: "The batch with its runs, queued.",
      headers: ["Location", "Idempotent-Replayed"],
    },
    errors: [
      "insufficient_credit",
      "resource_not_found",
      "conflict",
      "gone",
      "payload_too_large",
      "unsupported_media_type",
    ],
    sdk: 'const batch = await atelier.batches.create({ requests: [{ model: "atelier/gradient", input: { prompt: "one" } }] });',
  },
  "GET /v1/batches/:id": {
    operationId: "getBatch",
    tag: "Generations",
    summary: "Retrieve a batch",
    access: "key",
    scope: "generations:read",
    parameters: [ID("batch", "bat_")],
    success: { status: 200, schema: "Batch", description: "The batch with its runs as they are now." },
    errors: ["resource_not_found"],
    sdk: 'const batch = await atelier.batches.get("bat_…");',
  },
  "POST /v1/files": {
    operationId: "createFile",
    tag: "Files",
    summary: "Upload an image as a file",
    description: `An image of at most ${LIMITS.imageUploadBytes / 1024 / 1024} MB: multipart field \`file\`, or the raw body with an \`image/*\` type (name from \`Content-Disposition\`). Retrying stores a second copy.`,
    access: "key",
    scope: "generations:write",
    body: {
      description: "The image.",
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            properties: { file: { type: "string", contentMediaType: "image/*" } },
            required: ["file"],
          },
        },
        "image/*": { schema: { type: "string", contentMediaType: "image/*" } },
      },
    },
    success: { status: 201, schema: "File", description: "The file.", headers: ["Location"] },
    errors: ["payload_too_large", "unsupported_media_type"],
    sdk: 'import { readFile } from "node:fs/promises";\n\nconst file = await atelier.files.upload(await readFile("photo.png"), { filename: "photo.png", contentType: "image/png" });',
  },
  "GET /v1/files": {
    operationId: "listFiles",
    tag: "Files",
    summary: "List files",
    access: "key",
    scope: "generations:read",
    parameters: [LIMIT, CURSOR],
    success: { status: 200, schema: "FileList", description: "A page of files, newest first." },
    sdk: "for await (const file of atelier.files.iterate()) console.log(file.id);",
  },
  "GET /v1/files/:id": {
    operationId: "getFile",
    tag: "Files",
    summary: "Retrieve a file",
    access: "key",
    scope: "generations:read",
    parameters: [ID("file", "file_")],
    success: { status: 200, schema: "File", description: "The file with a fresh link." },
    errors: ["resource_not_found"],
    sdk: 'const file = await atelier.files.get("file_…");',
  },
  "POST /v1/uploads": {
    operationId: "createUpload",
    tag: "Files",
    summary: "Open a direct upload (video or sound)",
    description: `Then PUT the bytes to \`upload_url\` and complete it. ${LIMITS.uploadsInFlight} in flight and ${LIMITS.uploadBytesPerDay / 1024 ** 3} GB a day per workspace; retrying opens a second upload.`,
    access: "key",
    scope: "generations:write",
    body: { schema: "UploadRequest", required: true },
    success: { status: 201, schema: "Upload", description: "The upload, pending.", headers: ["Location"] },
    errors: ["insufficient_credit", "payload_too_large", "unsupported_media_type"],
    sdk: 'import { readFile } from "node:fs/promises";\n\nconst file = await atelier.uploads.upload(await readFile("clip.mp4"), { filename: "clip.mp4", contentType: "video/mp4" });',
  },
  "PUT /v1/uploads/:id/content": {
    operationId: "putUploadContent",
    tag: "Files",
    summary: "Send an upload's bytes",
    description:
      "The `upload_url` of the upload: its signature is the credential (no API key). A body larger than declared answers 413.",
    access: "signed",
    parameters: [
      ID("upload", "upl_"),
      {
        name: "expires",
        in: "query",
        required: true,
        description: "Part of the signed URL.",
        schema: { type: "string" },
      },
      {
        name: "signature",
        in: "query",
        required: true,
        description: "Part of the signed URL.",
        schema: { type: "string" },
      },
    ],
    body: {
      description: "The bytes.",
      content: {
        "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
      },
    },
    success: { status: 200, schema: "UploadReceipt", description: "The bytes received." },
    errors: ["resource_not_found", "conflict", "payload_too_large"],
    sdk: "// atelier.uploads.upload() sends the bytes for you.",
  },
  "POST /v1/uploads/:id/complete": {
    operationId: "completeUpload",
    tag: "Files",
    summary: "Complete a direct upload",
    description:
      "Checks the size, reads the container and measures it; safe to repeat. Bytes that are not the declared kind answer 415 and the upload stays open.",
    access: "key",
    scope: "generations:write",
    parameters: [ID("upload", "upl_")],
    success: { status: 200, schema: "File", description: "The file." },
    errors: ["resource_not_found", "conflict", "unsupported_media_type"],
    sdk: 'const file = await atelier.uploads.complete("upl_…");',
  },
  "GET /v1/uploads/:id": {
    operationId: "getUpload",
    tag: "Files",
    summary: "Retrieve an upload",
    access: "key",
    scope: "generations:read",
    parameters: [ID("upload", "upl_")],
    success: { status: 200, schema: "Upload", description: "The upload." },
    errors: ["resource_not_found"],
    sdk: 'const upload = await atelier.uploads.get("upl_…");',
  },
  "GET /v1/blobs/:key": {
    operationId: "getBlob",
    tag: "Files",
    summary: "Download an output or a file",
    description:
      "The signed links of outputs and files (no API key; valid 24 hours). Answers `Range` requests with 206. A changed or expired link answers 403.",
    access: "signed",
    parameters: [
      { name: "key", in: "path", required: true, description: "The blob's key.", schema: { type: "string" } },
      { name: "type", in: "query", required: true, description: "Its media type, signed.", schema: { type: "string" } },
      {
        name: "expires",
        in: "query",
        required: true,
        description: "Unix seconds, signed.",
        schema: { type: "string" },
      },
      {
        name: "filename",
        in: "query",
        description: "A download name, signed (adds `Content-Disposition`).",
        schema: { type: "string" },
      },
      { name: "signature", in: "query", required: true, description: "The signature.", schema: { type: "string" } },
      { name: "Range", in: "header", description: "`bytes=start-end`.", schema: { type: "string" } },
    ],
    success: {
      status: 200,
      content: { "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
      description: "The bytes.",
    },
    alsoAnswers: [{ status: 206, description: "The range asked for (`Content-Range`)." }],
    errors: ["resource_not_found", { status: 416, code: "invalid_request" }],
    sdk: "// Output links are plain URLs: fetch(run.output[0].url).",
  },
  "GET /v1/webhooks/default/secret": {
    operationId: "getWebhookSecret",
    tag: "Webhooks",
    summary: "Read the default signing secret",
    access: "key",
    scope: "generations:write",
    success: { status: 200, schema: "WebhookSecret", description: "The secret." },
    sdk: "const { secret } = await atelier.webhooks.getSecret();",
  },
  "POST /v1/webhooks/default/secret/rotate": {
    operationId: "rotateWebhookSecret",
    tag: "Webhooks",
    summary: "Rotate the signing secret",
    description: "The old secret keeps signing (a second signature) for 24 hours.",
    access: "key",
    scope: "generations:write",
    body: { schema: "EmptyBody" },
    success: { status: 200, schema: "WebhookSecret", description: "The new secret." },
    errors: ["unsupported_media_type"],
    sdk: "const { secret } = await atelier.webhooks.rotateSecret();",
  },
  "POST /v1/webhooks": {
    operationId: "createWebhookEndpoint",
    tag: "Webhooks",
    summary: "Register a webhook endpoint",
    access: "key",
    scope: "generations:write",
    body: { schema: "WebhookEndpointRequest", required: true },
    success: { status: 201, schema: "WebhookEndpoint", description: "The endpoint.", headers: ["Location"] },
    errors: ["unsupported_media_type", "payload_too_large"],
    sdk: 'const endpoint = await atelier.webhooks.create({ url: "https://example.com/atelier-hook" });',
  },
  "GET /v1/webhooks": {
    operationId: "listWebhookEndpoints",
    tag: "Webhooks",
    summary: "List webhook endpoints",
    access: "key",
    scope: "generations:write",
    parameters: [LIMIT, CURSOR],
    success: { status: 200, schema: "WebhookEndpointList", description: "A page of endpoints." },
    sdk: "const { data } = await atelier.webhooks.list();",
  },
  "GET /v1/webhooks/:id": {
    operationId: "getWebhookEndpoint",
    tag: "Webhooks",
    summary: "Retrieve a webhook endpoint",
    access: "key",
    scope: "generations:write",
    parameters: [ID("endpoint", "wh_")],
    success: { status: 200, schema: "WebhookEndpoint", description: "The endpoint." },
    errors: ["resource_not_found"],
    sdk: 'const endpoint = await atelier.webhooks.get("wh_…");',
  },
  "PATCH /v1/webhooks/:id": {
    operationId: "updateWebhookEndpoint",
    tag: "Webhooks",
    summary: "Change a webhook endpoint",
    access: "key",
    scope: "generations:write",
    parameters: [ID("endpoint", "wh_")],
    body: { schema: "WebhookEndpointUpdate", required: true },
    success: { status: 200, schema: "WebhookEndpoint", description: "The endpoint." },
    errors: ["resource_not_found", "unsupported_media_type", "payload_too_large"],
    sdk: 'const endpoint = await atelier.webhooks.update("wh_…", { enabled: false });',
  },
  "DELETE /v1/webhooks/:id": {
    operationId: "deleteWebhookEndpoint",
    tag: "Webhooks",
    summary: "Delete a webhook endpoint",
    access: "key",
    scope: "generations:write",
    parameters: [ID("endpoint", "wh_")],
    success: { status: 200, schema: "DeletedWebhookEndpoint", description: "Deleted; its pending deliveries fail." },
    errors: ["resource_not_found"],
    sdk: 'await atelier.webhooks.delete("wh_…");',
  },
  "GET /v1/webhooks/:id/deliveries": {
    operationId: "listEndpointDeliveries",
    tag: "Webhooks",
    summary: "List an endpoint's deliveries",
    access: "key",
    scope: "generations:read",
    parameters: [ID("endpoint", "wh_"), LIMIT, CURSOR],
    success: { status: 200, schema: "DeliveryList", description: "A page of deliveries, newest first." },
    errors: ["resource_not_found"],
    sdk: 'const { data } = await atelier.webhooks.deliveries("wh_…");',
  },
  "GET /v1/events": {
    operationId: "listEvents",
    tag: "Webhooks",
    summary: "List events",
    description: `Kept ${LIMITS.eventRetentionDays} days.`,
    access: "key",
    scope: "generations:read",
    parameters: [
      LIMIT,
      CURSOR,
      { name: "type", in: "query", description: "Comma-separated event types.", schema: { type: "string" } },
    ],
    success: { status: 200, schema: "EventList", description: "A page of events, newest first." },
    sdk: "for await (const event of atelier.events.iterate()) console.log(event.type);",
  },
  "GET /v1/events/:id": {
    operationId: "getEvent",
    tag: "Webhooks",
    summary: "Retrieve an event",
    access: "key",
    scope: "generations:read",
    parameters: [ID("event", "evt_")],
    success: { status: 200, schema: "Event", description: "The event." },
    errors: ["resource_not_found"],
    sdk: 'const event = await atelier.events.get("evt_…");',
  },
  "GET /v1/events/:id/deliveries": {
    operationId: "listEventDeliveries",
    tag: "Webhooks",
    summary: "List an event's deliveries",
    access: "key",
    scope: "generations:read",
    parameters: [ID("event", "evt_"), LIMIT, CURSOR],
    success: { status: 200, schema: "DeliveryList", description: "A page of deliveries, newest first." },
    errors: ["resource_not_found"],
    sdk: 'const { data } = await atelier.events.deliveries("evt_…");',
  },
  "POST /v1/events/:id/resend": {
    operationId: "resendEvent",
    tag: "Webhooks",
    summary: "Send an event again",
    description:
      "To one endpoint (`webhook_id`), or to every destination of the event. A destination gets one pending delivery of an event at a time: one that already has one is skipped, and when every destination has one the answer is 409 `conflict` (already queued).",
    access: "key",
    scope: "generations:write",
    parameters: [ID("event", "evt_")],
    body: { schema: "ResendRequest" },
    success: { status: 201, schema: "ResentDeliveries", description: "The new deliveries, pending." },
    errors: ["resource_not_found", "conflict", "unsupported_media_type", "payload_too_large"],
    sdk: 'const { data } = await atelier.events.resend("evt_…");',
  },
};
