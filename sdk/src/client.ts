// The Atelier client: one method per /v1 operation (the `x-codeSamples` of GET /v1/openapi.json
// use exactly these), run() to start a run and follow it to its end, async iterators over the
// cursor-paged lists, and the two ways to upload (POST /v1/files for images; a direct upload for
// video and sound).
import {
  Transport,
  type FetchLike,
  type QueryValue,
  type RequestOptions,
  type RequestSpec,
  type RetryInfo,
} from "./http.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";
import type {
  AuditEvent,
  AuditEventList,
  Batch,
  BatchRequest,
  BudgetList,
  Credits,
  DeletedWebhookEndpoint,
  DeliveryList,
  Event,
  EventList,
  File as FileObject,
  FileList,
  Generation,
  GenerationList,
  GenerationRequest,
  ListAuditEventsQuery,
  ListDeliveriesQuery,
  ListEventsQuery,
  ListFilesQuery,
  ListGenerationsQuery,
  ListWebhookEndpointsQuery,
  ModelList,
  ModelWithSchema,
  Page,
  Quote,
  QuoteRequest,
  ResendRequest,
  ResentDeliveries,
  Upload,
  UploadRequest,
  Usage,
  UsageQuery,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointRequest,
  WebhookEndpointUpdate,
  WebhookSecret,
  Workspace,
} from "./types.js";

export const SDK_VERSION = "1.0.0";

/** The API's limit: Prefer wait is at most 60 seconds. */
export const MAX_WAIT_SECONDS = 60;

const FINAL_STATUSES: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled"]);

/** Whether a run has ended (succeeded, failed or canceled). */
export function isFinal(generation: Pick<Generation, "status">): boolean {
  return FINAL_STATUSES.has(generation.status);
}

export interface AtelierOptions {
  /** An API key (`atl_…`); defaults to the ATELIER_API_KEY environment variable where there is one. */
  apiKey?: string | undefined;
  /** The server, e.g. `https://atelier.example.com` (a trailing `/v1` is dropped); defaults to ATELIER_URL, then http://localhost:3000. */
  baseUrl?: string | undefined;
  /** The fetch to use; the platform's by default. */
  fetch?: FetchLike;
  /** Retries of a request that is safe to repeat (default 5: at most 6 attempts). 0 turns retrying off. */
  maxRetries?: number;
  /** Milliseconds each attempt may take (default 60 000), plus the `Prefer: wait` it asks for. */
  timeoutMs?: number;
  /** The exponential backoff of network errors, timeouts and 5xx: baseMs (default 1000) doubling up to maxMs (default 60 000), with jitter. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Multiplies every wait between attempts, Retry-After included (default 1; tests use e.g. 0.001). */
  retryDelayScale?: number;
  /** A Retry-After longer than this (default 120 000 ms) is not slept through: the error is thrown with its `retryAfter`. */
  maxRetryAfterMs?: number;
  /** More headers on every request. */
  headers?: Record<string, string>;
  /** Told before each retry. */
  onRetry?: (info: RetryInfo) => void;
}

export interface WaitOptions extends RequestOptions {
  /** `Prefer: wait=N`: the answer comes when the run is final or after N seconds (1 to 60). */
  wait?: number;
}

export interface CreateOptions extends WaitOptions {
  /** Sent as `Idempotency-Key`; the SDK makes one (a random UUID) when none is given, and retries with it. */
  idempotencyKey?: string;
}

export interface RunOptions extends CreateOptions {
  /** The run's `webhook` URL. */
  webhook?: string;
}

/** The bytes of an upload: a Blob (fs.openAsBlob(path) in Node reads a file lazily), an ArrayBuffer or a typed array (a Buffer). */
export type UploadData = Blob | ArrayBuffer | ArrayBufferView;

export interface FileUploadOptions extends RequestOptions {
  filename?: string;
  /** The image's type (the server measures it anyway). */
  contentType?: string;
}

export interface DirectUploadOptions extends RequestOptions {
  filename: string;
  /** The declared type: video/mp4, video/webm, video/quicktime, audio/mpeg, audio/wav, audio/ogg, audio/mp4, audio/flac, … */
  contentType: string;
}

function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === "" ? undefined : value;
}

/** `atelier/gradient-poster@2` → `atelier/gradient-poster%402`: creator and name are two path segments. */
export function modelPath(id: string): string {
  const slash = id.indexOf("/");
  if (slash < 0) return encodeURIComponent(id);
  return `${encodeURIComponent(id.slice(0, slash))}/${encodeURIComponent(id.slice(slash + 1))}`;
}

const seg = encodeURIComponent;

function preferWait(wait: number | undefined): { headers: Record<string, string>; waitSeconds: number } {
  if (wait === undefined || !(wait > 0)) return { headers: {}, waitSeconds: 0 };
  const seconds = Math.min(MAX_WAIT_SECONDS, Math.ceil(wait));
  return { headers: { prefer: `wait=${seconds}` }, waitSeconds: seconds };
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

function toBlob(data: UploadData, type: string | undefined): Blob {
  if (data instanceof Blob) return type && data.type !== type ? data.slice(0, data.size, type) : data;
  const part = data instanceof ArrayBuffer ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Blob([part as BlobPart], type ? { type } : {});
}

function callOptions<T extends RequestOptions>(options: T): RequestOptions {
  const { signal, timeoutMs, maxRetries, headers } = options;
  return { signal, timeoutMs, maxRetries, headers };
}

/** Every item of a cursor-paged list, page after page (`next_cursor` sent back as `cursor`). */
async function* paginate<T, Q extends { cursor?: string }>(
  list: (query: Q) => Promise<Page<T>>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  let q = query;
  for (;;) {
    const page = await list(q);
    yield* page.data;
    if (!page.has_more || !page.next_cursor) return;
    q = { ...q, cursor: page.next_cursor };
  }
}

export class Atelier {
  readonly baseUrl: string;
  /** @internal */
  readonly transport: Transport;

  readonly models: Models;
  readonly quotes: Quotes;
  readonly credits: CreditsResource;
  readonly workspace: WorkspaceResource;
  readonly generations: Generations;
  readonly batches: Batches;
  readonly files: Files;
  readonly uploads: Uploads;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly auditEvents: AuditEvents;
  readonly usage: UsageResource;
  readonly budgets: Budgets;

  constructor(options: AtelierOptions = {}) {
    const baseUrl = (options.baseUrl ?? readEnv("ATELIER_URL") ?? "http://localhost:3000")
      .replace(/\/+$/, "")
      .replace(/\/v1$/, "");
    this.baseUrl = baseUrl;
    this.transport = new Transport({
      baseUrl,
      apiKey: options.apiKey ?? readEnv("ATELIER_API_KEY"),
      fetch: options.fetch,
      timeoutMs: options.timeoutMs ?? 60_000,
      policy: {
        ...DEFAULT_RETRY_POLICY,
        maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
        baseMs: options.backoff?.baseMs ?? DEFAULT_RETRY_POLICY.baseMs,
        maxMs: options.backoff?.maxMs ?? DEFAULT_RETRY_POLICY.maxMs,
        scale: options.retryDelayScale ?? DEFAULT_RETRY_POLICY.scale,
        maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
      },
      headers: options.headers ?? {},
      onRetry: options.onRetry,
    });
    const call = <T>(spec: RequestSpec, opts: RequestOptions = {}): Promise<T> =>
      this.transport.request<T>(spec, opts).then((a) => a.data);
    this.models = new Models(call);
    this.quotes = new Quotes(call);
    this.credits = new CreditsResource(call);
    this.workspace = new WorkspaceResource(call);
    this.generations = new Generations(call);
    this.batches = new Batches(call);
    this.files = new Files(call);
    this.uploads = new Uploads(call);
    this.webhooks = new Webhooks(call);
    this.events = new Events(call);
    this.auditEvents = new AuditEvents(call);
    this.usage = new UsageResource(call);
    this.budgets = new Budgets(call);
  }

  /**
   * Starts a run and follows it to its end: POST /v1/generations with `Prefer: wait` (and an
   * Idempotency-Key, so a retried create never starts two runs), then GET with `Prefer: wait`
   * until it is succeeded, failed or canceled. Returns the final Generation (a failed run is
   * returned, not thrown: read `status` and `error`).
   */
  async run(model: string, input: Record<string, unknown> = {}, options: RunOptions = {}): Promise<Generation> {
    const { webhook, ...rest } = options;
    const wait = options.wait !== undefined && options.wait > 0 ? options.wait : MAX_WAIT_SECONDS;
    const created = await this.generations.create(
      { model, input, ...(webhook === undefined ? {} : { webhook }) },
      { ...rest, wait },
    );
    return isFinal(created) ? created : this.generations.follow(created.id, { ...callOptions(rest), wait });
  }
}

type Call = <T>(spec: RequestSpec, options?: RequestOptions) => Promise<T>;

class Resource {
  constructor(protected readonly call: Call) {}
}

export class Models extends Resource {
  /** GET /v1/models: every model and preset the key can run. */
  list(options: RequestOptions = {}): Promise<ModelList> {
    return this.call({ method: "GET", path: "/v1/models", retry: true }, options);
  }
  /** GET /v1/models/{creator}/{name}, with `input_schema` (a preset with `@<version>`, or without for its latest). */
  get(id: string, options: RequestOptions = {}): Promise<ModelWithSchema> {
    return this.call({ method: "GET", path: `/v1/models/${modelPath(id)}`, retry: true }, options);
  }
  /** GET /v1/public/models: the same list without a key (a CDN may keep it an hour). */
  listPublic(options: RequestOptions = {}): Promise<ModelList> {
    return this.call({ method: "GET", path: "/v1/public/models", auth: false, retry: true }, options);
  }
  /** GET /v1/public/models/{creator}/{name} without a key. */
  getPublic(id: string, options: RequestOptions = {}): Promise<ModelWithSchema> {
    return this.call({ method: "GET", path: `/v1/public/models/${modelPath(id)}`, auth: false, retry: true }, options);
  }
}

export class Quotes extends Resource {
  /** POST /v1/quotes: the exact price of a run; starts nothing (so it is retried like a GET). */
  create(body: QuoteRequest, options: RequestOptions = {}): Promise<Quote> {
    return this.call({ method: "POST", path: "/v1/quotes", json: body, retry: true }, options);
  }
}

export class CreditsResource extends Resource {
  /** GET /v1/credits. */
  get(options: RequestOptions = {}): Promise<Credits> {
    return this.call({ method: "GET", path: "/v1/credits", retry: true }, options);
  }
}

export class WorkspaceResource extends Resource {
  /** GET /v1/workspace (scope workspace:read). */
  get(options: RequestOptions = {}): Promise<Workspace> {
    return this.call({ method: "GET", path: "/v1/workspace", retry: true }, options);
  }
}

export class Generations extends Resource {
  /**
   * POST /v1/generations. Always sent with an Idempotency-Key (yours, or a random UUID), so it
   * is retried safely: a retry answers the run the first attempt started.
   */
  create(body: GenerationRequest, options: CreateOptions = {}): Promise<Generation> {
    const { headers, waitSeconds } = preferWait(options.wait);
    const key = options.idempotencyKey ?? newIdempotencyKey();
    return this.call(
      {
        method: "POST",
        path: "/v1/generations",
        json: body,
        headers: { ...headers, "idempotency-key": key },
        waitSeconds,
        retry: true,
      },
      callOptions(options),
    );
  }
  /** GET /v1/generations/{id}; with `wait`, answers when the run is final or after that many seconds. */
  get(id: string, options: WaitOptions = {}): Promise<Generation> {
    const { headers, waitSeconds } = preferWait(options.wait);
    return this.call(
      { method: "GET", path: `/v1/generations/${seg(id)}`, headers, waitSeconds, retry: true },
      callOptions(options),
    );
  }
  /** Reads the run with `Prefer: wait` (60 s by default) until it is final; returns it. */
  async follow(id: string, options: WaitOptions = {}): Promise<Generation> {
    const wait = options.wait !== undefined && options.wait > 0 ? options.wait : MAX_WAIT_SECONDS;
    for (;;) {
      const generation = await this.get(id, { ...options, wait });
      if (isFinal(generation)) return generation;
    }
  }
  /** POST /v1/generations/{id}/cancel (safe to repeat). */
  cancel(id: string, options: RequestOptions = {}): Promise<Generation> {
    return this.call({ method: "POST", path: `/v1/generations/${seg(id)}/cancel`, retry: true }, options);
  }
  /** GET /v1/generations: one page (newest first). */
  list(query: ListGenerationsQuery = {}, options: RequestOptions = {}): Promise<GenerationList> {
    return this.call(
      { method: "GET", path: "/v1/generations", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** Every run matching `query`, following `next_cursor` page after page. */
  iterate(query: ListGenerationsQuery = {}, options: RequestOptions = {}): AsyncGenerator<Generation, void, undefined> {
    return paginate((q) => this.list(q, options), query);
  }
  /** POST /v1/generations/{id}/outputs/{index}/file: keeps an image output as a File (again: the same File). */
  keepOutput(id: string, index: number, options: RequestOptions = {}): Promise<FileObject> {
    return this.call(
      { method: "POST", path: `/v1/generations/${seg(id)}/outputs/${seg(String(index))}/file`, retry: true },
      options,
    );
  }
}

export class Batches extends Resource {
  /** POST /v1/batches (1 to 50 requests), with an Idempotency-Key as generations.create. */
  create(body: BatchRequest, options: CreateOptions = {}): Promise<Batch> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    return this.call(
      { method: "POST", path: "/v1/batches", json: body, headers: { "idempotency-key": key }, retry: true },
      callOptions(options),
    );
  }
  /** GET /v1/batches/{id}: its runs as they are now, in request order. */
  get(id: string, options: RequestOptions = {}): Promise<Batch> {
    return this.call({ method: "GET", path: `/v1/batches/${seg(id)}`, retry: true }, options);
  }
}

export class Files extends Resource {
  /**
   * POST /v1/files (multipart field `file`): an image of at most 4 MB. Never retried: a retry
   * would store a second copy (the API's retry rules).
   */
  upload(data: UploadData, options: FileUploadOptions = {}): Promise<FileObject> {
    const form = new FormData();
    form.append("file", toBlob(data, options.contentType), options.filename ?? "upload");
    return this.call({ method: "POST", path: "/v1/files", body: form, retry: false }, callOptions(options));
  }
  /** GET /v1/files/{id}, with a fresh link. */
  get(id: string, options: RequestOptions = {}): Promise<FileObject> {
    return this.call({ method: "GET", path: `/v1/files/${seg(id)}`, retry: true }, options);
  }
  /** GET /v1/files: one page (newest first). */
  list(query: ListFilesQuery = {}, options: RequestOptions = {}): Promise<FileList> {
    return this.call(
      { method: "GET", path: "/v1/files", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** Every file, page after page. */
  iterate(query: ListFilesQuery = {}, options: RequestOptions = {}): AsyncGenerator<FileObject, void, undefined> {
    return paginate((q) => this.list(q, options), query);
  }
}

export class Uploads extends Resource {
  /**
   * A video or sound as a File: opens a direct upload (POST /v1/uploads, never retried: a retry
   * would open a second one), PUTs the bytes to its `upload_url` exactly as returned (no API
   * key; retried, a second PUT replaces the first), then completes it (retried; safe to repeat).
   */
  async upload(data: UploadData, options: DirectUploadOptions): Promise<FileObject> {
    const blob = toBlob(data, options.contentType);
    const call = callOptions(options);
    const upload = await this.create(
      { filename: options.filename, content_type: options.contentType, bytes: blob.size },
      call,
    );
    if (!upload.upload_url) throw new Error(`Upload ${upload.id} has no upload_url (status ${upload.status}).`);
    await this.putContent(upload.upload_url, blob, call);
    return this.complete(upload.id, call);
  }
  /** POST /v1/uploads: opens a direct upload. Not retried. */
  create(body: UploadRequest, options: RequestOptions = {}): Promise<Upload> {
    return this.call({ method: "POST", path: "/v1/uploads", json: body, retry: false }, options);
  }
  /**
   * PUT the bytes to an upload's `upload_url`, exactly as returned (signed: no API key is sent).
   * Resolves when the server has them; its answer's body is not an Upload (see the report on the
   * OpenAPI document), so nothing is returned: read the upload with get() or complete() it.
   */
  async putContent(uploadUrl: string, data: UploadData, options: RequestOptions = {}): Promise<void> {
    const blob = toBlob(data, undefined);
    await this.call<unknown>(
      {
        method: "PUT",
        path: uploadUrl,
        body: blob,
        auth: false,
        headers: { "content-type": "application/octet-stream" },
        retry: true,
      },
      options,
    );
  }
  /** POST /v1/uploads/{id}/complete: measures the bytes and answers the File (safe to repeat). */
  complete(id: string, options: RequestOptions = {}): Promise<FileObject> {
    return this.call({ method: "POST", path: `/v1/uploads/${seg(id)}/complete`, retry: true }, options);
  }
  /** GET /v1/uploads/{id}. */
  get(id: string, options: RequestOptions = {}): Promise<Upload> {
    return this.call({ method: "GET", path: `/v1/uploads/${seg(id)}`, retry: true }, options);
  }
}

export class Webhooks extends Resource {
  /** POST /v1/webhooks: registers an endpoint. Not retried (a retry would register two). */
  create(body: WebhookEndpointRequest, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.call({ method: "POST", path: "/v1/webhooks", json: body, retry: false }, options);
  }
  /** GET /v1/webhooks: one page. */
  list(query: ListWebhookEndpointsQuery = {}, options: RequestOptions = {}): Promise<WebhookEndpointList> {
    return this.call(
      { method: "GET", path: "/v1/webhooks", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** Every endpoint, page after page. */
  iterate(
    query: ListWebhookEndpointsQuery = {},
    options: RequestOptions = {},
  ): AsyncGenerator<WebhookEndpoint, void, undefined> {
    return paginate((q) => this.list(q, options), query);
  }
  /** GET /v1/webhooks/{id}. */
  get(id: string, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.call({ method: "GET", path: `/v1/webhooks/${seg(id)}`, retry: true }, options);
  }
  /** PATCH /v1/webhooks/{id} (setting the same fields again changes nothing, so it is retried). */
  update(id: string, body: WebhookEndpointUpdate, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.call({ method: "PATCH", path: `/v1/webhooks/${seg(id)}`, json: body, retry: true }, options);
  }
  /** DELETE /v1/webhooks/{id}. Not retried (a repeat after a lost answer would say 404). */
  delete(id: string, options: RequestOptions = {}): Promise<DeletedWebhookEndpoint> {
    return this.call({ method: "DELETE", path: `/v1/webhooks/${seg(id)}`, retry: false }, options);
  }
  /** GET /v1/webhooks/{id}/deliveries: one page (newest first). */
  deliveries(id: string, query: ListDeliveriesQuery = {}, options: RequestOptions = {}): Promise<DeliveryList> {
    return this.call(
      {
        method: "GET",
        path: `/v1/webhooks/${seg(id)}/deliveries`,
        query: query as Record<string, QueryValue>,
        retry: true,
      },
      options,
    );
  }
  /** GET /v1/webhooks/default/secret: the `whsec_…` secret deliveries are signed with. */
  getSecret(options: RequestOptions = {}): Promise<WebhookSecret> {
    return this.call({ method: "GET", path: "/v1/webhooks/default/secret", retry: true }, options);
  }
  /** POST /v1/webhooks/default/secret/rotate (the old one signs too for 24 h). Not retried. */
  rotateSecret(options: RequestOptions = {}): Promise<WebhookSecret> {
    return this.call({ method: "POST", path: "/v1/webhooks/default/secret/rotate", retry: false }, options);
  }
}

export class Events extends Resource {
  /** GET /v1/events/{id}. */
  get(id: string, options: RequestOptions = {}): Promise<Event> {
    return this.call({ method: "GET", path: `/v1/events/${seg(id)}`, retry: true }, options);
  }
  /** GET /v1/events: one page (newest first; `type` filters, comma-separated). */
  list(query: ListEventsQuery = {}, options: RequestOptions = {}): Promise<EventList> {
    return this.call(
      { method: "GET", path: "/v1/events", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** Every event, page after page. */
  iterate(query: ListEventsQuery = {}, options: RequestOptions = {}): AsyncGenerator<Event, void, undefined> {
    return paginate((q) => this.list(q, options), query);
  }
  /** GET /v1/events/{id}/deliveries: one page. */
  deliveries(id: string, query: ListDeliveriesQuery = {}, options: RequestOptions = {}): Promise<DeliveryList> {
    return this.call(
      {
        method: "GET",
        path: `/v1/events/${seg(id)}/deliveries`,
        query: query as Record<string, QueryValue>,
        retry: true,
      },
      options,
    );
  }
  /** POST /v1/events/{id}/resend: to one endpoint (`webhook_id`) or to every destination. Not retried (each call sends again). */
  resend(id: string, body: ResendRequest = {}, options: RequestOptions = {}): Promise<ResentDeliveries> {
    return this.call({ method: "POST", path: `/v1/events/${seg(id)}/resend`, json: body, retry: false }, options);
  }
}

export class AuditEvents extends Resource {
  /** GET /v1/audit-events/{id}: one event of the workspace. */
  get(id: string, options: RequestOptions = {}): Promise<AuditEvent> {
    return this.call({ method: "GET", path: `/v1/audit-events/${seg(id)}`, retry: true }, options);
  }
  /**
   * GET /v1/audit-events: one page of the workspace's audit log, newest first (scope workspace:read;
   * a key a member made reads it when that member is an admin or owner). Filters: `action` (one, or
   * a family such as "member"), `actor` (usr_…, key_… or "cli"), `from` and `to` (RFC 3339 times or days).
   */
  list(query: ListAuditEventsQuery = {}, options: RequestOptions = {}): Promise<AuditEventList> {
    return this.call(
      { method: "GET", path: "/v1/audit-events", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** Every audit event, page after page. */
  iterate(query: ListAuditEventsQuery = {}, options: RequestOptions = {}): AsyncGenerator<AuditEvent, void, undefined> {
    return paginate((q) => this.list(q, options), query);
  }
}

export class UsageResource extends Resource {
  /**
   * GET /v1/usage: the workspace's runs and spend over a range of days (UTC, `from` and `to`
   * included; the last 30 days by default), grouped by `day`, `model`, `key`, `member` or `source`
   * (scope workspace:read; a key a member made reads it when that member is an admin or owner).
   */
  get(query: UsageQuery = {}, options: RequestOptions = {}): Promise<Usage> {
    return this.call(
      { method: "GET", path: "/v1/usage", query: query as Record<string, QueryValue>, retry: true },
      options,
    );
  }
  /** The same rows as CSV (`Accept: text/csv`): a header row, then one line a group. */
  csv(query: UsageQuery = {}, options: RequestOptions = {}): Promise<string> {
    return this.call(
      {
        method: "GET",
        path: "/v1/usage",
        query: query as Record<string, QueryValue>,
        headers: { accept: "text/csv" },
        text: true,
        retry: true,
      },
      options,
    );
  }
}

export class Budgets extends Resource {
  /**
   * GET /v1/budgets: the workspace's spending caps (workspace, members, keys), each with what is
   * spent and left in the current UTC day and month (scope workspace:read; a key a member made
   * reads them when that member is an admin or owner).
   */
  list(options: RequestOptions = {}): Promise<BudgetList> {
    return this.call({ method: "GET", path: "/v1/budgets", retry: true }, options);
  }
}
