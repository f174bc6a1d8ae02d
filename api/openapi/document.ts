// The OpenAPI 3.1 document of /v1 (GET /v1/openapi.json), built from the operations table, the
// body schemas, the error-code table and the limits table: no fact is spelled twice. The SDK's
// types are generated from it (sdk/), and the API tests check every answer against it.
import { ERROR_CODES, type ErrorCode } from "../../lib/primitives/error-codes";
import { EVENT_TYPES } from "../../lib/core/webhooks/webhook-endpoints";
import { LIMITS } from "../../lib/primitives/limits";
import { OPERATIONS, type Access, type AnswerHeader, type Operation } from "./operations";
import { componentSchemas, type JsonSchema } from "./schemas";

/** The version of the interface this document describes (docs/api.md, "Versioning and lifecycle"). */
export const API_DESCRIPTION_VERSION = "1.0.0";

/** Codes any route of that access may answer, before its own (docs/api.md, "Errors"). */
const SHARED_ERRORS: Record<Access, Array<{ status: number; code: ErrorCode }>> = {
  public: [],
  signed: [{ status: 403, code: "permission_denied" }],
  key: [
    { status: 400, code: "conflicting_credentials" },
    { status: 401, code: "missing_api_key" },
    { status: 401, code: "invalid_api_key" },
    { status: 403, code: "permission_denied" },
    { status: 429, code: "rate_limit_exceeded" },
  ],
};
/** What every route may answer: bad parameters, requests HTTP cannot read, the IP limit, our failures. */
const EVERY_ROUTE: Array<{ status: number; code: ErrorCode }> = [
  { status: 400, code: "invalid_parameter" },
  { status: 400, code: "invalid_request" },
  { status: 400, code: "placeholder_in_path" },
  { status: 408, code: "invalid_request" },
  { status: 413, code: "payload_too_large" },
  { status: 417, code: "invalid_request" },
  { status: 431, code: "invalid_request" },
  { status: 429, code: "ip_rate_limit_exceeded" },
  { status: 500, code: "internal_error" },
  { status: 503, code: "service_unavailable" },
];

const HEADER_DOCS: Record<
  AnswerHeader | "X-Request-Id" | "RateLimit-Limit" | "RateLimit-Remaining" | "RateLimit-Reset" | "WWW-Authenticate",
  { description: string; schema: JsonSchema }
> = {
  "X-Request-Id": { description: "`req_…`, the same as `error.request_id`.", schema: { type: "string" } },
  "RateLimit-Limit": { description: "Requests a minute this IP address may make.", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in this window.", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the window resets.", schema: { type: "integer" } },
  "WWW-Authenticate": { description: '`Bearer realm="Atelier"`.', schema: { type: "string" } },
  Location: { description: "The path of what was created.", schema: { type: "string" } },
  "Retry-After": {
    description:
      "Seconds to wait: on a run not final, how often to poll (2 for image and audio, 5 for video and 3D); on 429 and 503, when to try again.",
    schema: { type: "integer" },
  },
  "Idempotent-Replayed": {
    description: "Whenever an `Idempotency-Key` was sent: whether this answers an earlier request.",
    schema: { type: "string", enum: ["true", "false"] },
  },
  "Preference-Applied": { description: "`wait=N` when `Prefer: wait` was honoured.", schema: { type: "string" } },
  Vary: { description: "The request headers the answer depends on.", schema: { type: "string" } },
  Deprecation: { description: "On a deprecated entry: `@<unix time>` it was deprecated.", schema: { type: "string" } },
  Sunset: { description: "On a deprecated entry: the HTTP date it stops running.", schema: { type: "string" } },
  Link: {
    description: 'On a deprecated entry with a replacement: `</v1/models/<id>>; rel="successor-version"`.',
    schema: { type: "string" },
  },
  "Cache-Control": { description: "How long a cache may keep the answer.", schema: { type: "string" } },
  Allow: { description: "The methods the path takes.", schema: { type: "string" } },
};

const headerRef = (name: keyof typeof HEADER_DOCS) => ({ $ref: `#/components/headers/${name}` });
const EVERY_ANSWER_HEADERS = ["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const;

function answerHeaders(extra: readonly (keyof typeof HEADER_DOCS)[] = []): Record<string, unknown> {
  return Object.fromEntries([...EVERY_ANSWER_HEADERS, ...extra].map((name) => [name, headerRef(name)]));
}

/**
 * An error answer, kept once in components.responses and referred to by every operation that
 * answers the same status with the same codes (most share them: the document stays small).
 */
function errorAnswerRef(
  responses: Record<string, unknown>,
  status: number,
  codes: ErrorCode[],
): Record<string, unknown> {
  const name = `Error${status}_${[...codes].sort().join("_")}`;
  responses[name] ??= errorAnswer(status, [...codes].sort());
  return { $ref: `#/components/responses/${name}` };
}

function errorAnswer(status: number, codes: ErrorCode[]): Record<string, unknown> {
  const headers: (keyof typeof HEADER_DOCS)[] = [];
  if (status === 429 || status === 503) headers.push("Retry-After");
  if (status === 401) headers.push("WWW-Authenticate");
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].condition}`).join("\n\n"),
    headers: answerHeaders(headers),
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            {
              type: "object",
              properties: {
                error: {
                  type: "object",
                  properties: {
                    code: { enum: codes },
                    type: { enum: [...new Set(codes.map((c) => ERROR_CODES[c].type))] },
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

/** `/v1/models/:creator/:name` → `/v1/models/{creator}/{name}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_]+)/g, "{$1}");
}

const BODY_EXAMPLES: Record<string, unknown> = {
  GenerationRequest: { model: "atelier/gradient", input: { prompt: "a lighthouse at dawn" } },
  BatchRequest: {
    requests: [
      { model: "atelier/gradient", input: { prompt: "one" } },
      { model: "atelier/gradient", input: { prompt: "two" } },
    ],
  },
  UploadRequest: { filename: "clip.mp4", content_type: "video/mp4", bytes: 1234567 },
  WebhookEndpointRequest: { url: "https://example.com/atelier-hook" },
  WebhookEndpointUpdate: { enabled: false },
};

function curlSample(method: string, honoPath: string, op: Operation): string {
  const url = `$ATELIER_URL${openApiPath(honoPath).replace(/\{(\w+)\}/g, (_m, name: string) => (name === "id" ? "ID" : name.toUpperCase()))}`;
  const lines = [`curl${method === "GET" ? "" : ` -X ${method}`} "${url}"`];
  if (op.access === "key") lines.push(`-H "x-api-key: $ATELIER_API_KEY"`);
  if (op.operationId === "createGeneration") lines.push(`-H "prefer: wait=30"`);
  if (op.operationId === "createFile") lines.push(`-F "file=@photo.png"`);
  if (op.operationId === "putUploadContent") lines.push(`--data-binary @clip.mp4`);
  const example = op.body && "schema" in op.body ? BODY_EXAMPLES[op.body.schema] : undefined;
  if (example !== undefined) lines.push(`-H "content-type: application/json"`, `-d '${JSON.stringify(example)}'`);
  return lines.join(" \\\n  ");
}

/** An operation's SDK call as a whole program: its imports first, then the client, then the call. */
function sdkSample(call: string): string {
  const lines = call.split("\n");
  const imports = lines.filter((l) => l.startsWith("import "));
  const body = lines
    .filter((l) => !l.startsWith("import "))
    .join("\n")
    .trim();
  return [
    'import { Atelier } from "@atelier/sdk";',
    ...imports,
    "",
    "const atelier = new Atelier({ apiKey: process.env.ATELIER_API_KEY, baseUrl: process.env.ATELIER_URL });",
    body,
  ].join("\n");
}

function operationObject(
  method: string,
  honoPath: string,
  op: Operation,
  sharedResponses: Record<string, unknown>,
): Record<string, unknown> {
  const errors = new Map<number, ErrorCode[]>();
  const add = ({ status, code }: { status: number; code: ErrorCode }) =>
    errors.set(status, [...new Set([...(errors.get(status) ?? []), code])]);
  for (const e of [
    ...EVERY_ROUTE,
    ...SHARED_ERRORS[op.access],
    ...(op.errors ?? []).map((e) => (typeof e === "string" ? { status: ERROR_CODES[e].status, code: e } : e)),
  ])
    add(e);

  const success = {
    description: op.success.description,
    headers: answerHeaders(op.success.headers),
    content: op.success.content ?? {
      "application/json": { schema: { $ref: `#/components/schemas/${op.success.schema}` } },
    },
  };
  const responses: Record<string, unknown> = { [op.success.status]: success };
  for (const more of op.alsoAnswers ?? [])
    responses[more.status] = { description: more.description, headers: answerHeaders(), content: success.content };
  for (const [status, codes] of [...errors].sort(([a], [b]) => a - b))
    responses[status] = errorAnswerRef(sharedResponses, status, codes);

  const body = op.body
    ? "schema" in op.body
      ? {
          required: op.body.required ?? false,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${op.body.schema}` } } },
        }
      : { required: true, description: op.body.description, content: op.body.content }
    : undefined;
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description || op.scope
      ? { description: [op.description, op.scope ? `Scope: \`${op.scope}\`.` : null].filter(Boolean).join("\n\n") }
      : {}),
    security: op.access === "key" ? [{ ApiKey: [] }, { Bearer: [] }] : [],
    ...(op.parameters?.length ? { parameters: op.parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
    "x-codeSamples": [
      { lang: "Shell", label: "curl", source: curlSample(method, honoPath, op) },
      { lang: "TypeScript", label: "SDK", source: sdkSample(op.sdk) },
    ],
  };
}

const DESCRIPTION = `One API for image, video and audio models and versioned presets: a public catalog, exact quotes, USD credit with holds, async runs, batches, signed webhooks, files and API keys.

**Authentication.** \`x-api-key: <key>\` or \`Authorization: Bearer <key>\` (the same scopes and limits).

**Retrying.** Network errors, timeouts and 500, 502, 503, 504: again with backoff (1 s, 2 s, 4 s … up to a minute) and the same \`Idempotency-Key\`. 429: after \`Retry-After\` seconds (a minute when absent). Any other 4xx: not again. A proxy may answer 502 with a body that is not JSON: read it as text first. Only \`POST /v1/generations\` and \`POST /v1/batches\` read \`Idempotency-Key\`; GET requests and quotes change nothing.

**Limits.** ${LIMITS.rateLimitWindowSeconds}-second windows: 300 requests per IP address (\`RateLimit-*\` on every answer), 600 per API key. Batches of ${LIMITS.batchSize.min} to ${LIMITS.batchSize.max}; \`Prefer: wait\` up to ${LIMITS.preferWaitSeconds} s; pages of ${LIMITS.pageSize.min} to ${LIMITS.pageSize.max}; JSON bodies up to ${LIMITS.jsonBodyBytes.toLocaleString("en")} bytes nested at most ${LIMITS.jsonNestingDepth} levels.

**Errors.** Every error is \`{"error": {type, code, message, param, doc_url, request_id}}\`; branch on \`type\` and \`code\`.`;

/** The summaries of the events that are not a run's ending ("A run ended succeeded"…). */
const WEBHOOK_SUMMARIES: Partial<Record<(typeof EVENT_TYPES)[number], string>> = {
  "budget.threshold_reached": "A budget reached 50, 80 or 100 % of its cap",
  "credits.low": "The workspace's available balance dropped under its low-balance threshold",
};

let built: Record<string, unknown> | null = null;

/** The document; built once per process (it depends on nothing that changes while it runs). */
export function openApiDocument(): Record<string, unknown> {
  if (built) return built;
  const paths: Record<string, Record<string, unknown>> = {};
  const sharedResponses: Record<string, unknown> = {};
  for (const [route, op] of Object.entries(OPERATIONS)) {
    const [method, honoPath] = route.split(" ") as [string, string];
    (paths[openApiPath(honoPath)] ??= {})[method.toLowerCase()] = operationObject(
      method,
      honoPath,
      op,
      sharedResponses,
    );
  }
  const webhooks = Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: WEBHOOK_SUMMARIES[type] ?? `A run ended ${type.split(".")[1]}`,
          description:
            "POSTed to the run's own `webhook` URL and to every enabled endpoint whose `event_types` is empty or names it, signed with the workspace's default secret (Standard Webhooks). Any 2xx within 15 s is success; otherwise retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. 410 disables the endpoint. Deliveries are at least once: deduplicate on `webhook-id`.",
          parameters: [
            {
              name: "webhook-id",
              in: "header",
              required: true,
              description: "The event's ID (`evt_…`), the same on every attempt.",
              schema: { type: "string" },
            },
            {
              name: "webhook-timestamp",
              in: "header",
              required: true,
              description: "Unix seconds of this attempt.",
              schema: { type: "string" },
            },
            {
              name: "webhook-signature",
              in: "header",
              required: true,
              description:
                '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64 part of the secret after `whsec_`; two space-separated signatures for 24 hours after a rotation.',
              schema: { type: "string" },
            },
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookPayload" } } },
          },
          responses: { "2XX": { description: "Received." } },
        },
      },
    ]),
  );
  built = {
    openapi: "3.1.1",
    info: {
      title: "Atelier API",
      version: API_DESCRIPTION_VERSION,
      description: DESCRIPTION,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/", description: "This server" }],
    tags: ["Models", "Generations", "Files", "Workspace", "Webhooks", "Meta"].map((name) => ({ name })),
    paths,
    webhooks,
    components: {
      schemas: componentSchemas(),
      responses: sharedResponses,
      headers: Object.fromEntries(Object.entries(HEADER_DOCS).map(([name, h]) => [name, h])),
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An API key of the workspace." },
        Bearer: { type: "http", scheme: "bearer", description: "The same key as `Authorization: Bearer <key>`." },
      },
    },
  };
  return built;
}
