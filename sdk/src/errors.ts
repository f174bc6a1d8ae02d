// The errors the SDK throws. Every answer that is not 2xx becomes an AtelierError; when its body is
// the API's envelope ({"error": {type, code, message, param, doc_url, request_id}}) the fields come
// from it, otherwise (a proxy's HTML 502, an empty body) `message` is the body's text and the
// envelope's fields are null. No answer at all (a dropped connection, a refused address, a
// timeout) is an AtelierConnectionError (`status` null).
import { parseRetryAfter } from "./retry.js";
import type { components } from "./schema.js";

/** The API's error codes, from the OpenAPI document. */
export type ErrorCode = components["schemas"]["Error"]["error"]["code"];
/** The API's error types. */
export type ErrorType = components["schemas"]["Error"]["error"]["type"];

export interface AtelierErrorInit {
  status: number | null;
  type?: ErrorType | null;
  code?: ErrorCode | null;
  param?: string | null;
  docUrl?: string | null;
  requestId?: string | null;
  headers?: Headers | null;
  body?: string | null;
  cause?: unknown;
}

export class AtelierError extends Error {
  /** The HTTP status; null when no answer came (AtelierConnectionError). */
  readonly status: number | null;
  /** `error.type` of the envelope; null when the body was not the envelope. */
  readonly type: ErrorType | null;
  /** `error.code`: branch on it (and `type`), never on `message`. */
  readonly code: ErrorCode | null;
  /** `error.param`: the field at fault of a 400 (`input.prompt`, `Idempotency-Key`). */
  readonly param: string | null;
  /** `error.doc_url`. */
  readonly docUrl: string | null;
  /** `error.request_id`, else the answer's `X-Request-Id` (`req_…`). */
  readonly requestId: string | null;
  /** The answer's headers (null without an answer). */
  readonly headers: Headers | null;
  /** The body as text, as received. */
  readonly body: string | null;
  /** Seconds of the answer's `Retry-After` (429, 503; seconds or an HTTP date), when it had one. */
  readonly retryAfter: number | null;

  constructor(message: string, init: AtelierErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "AtelierError";
    this.status = init.status;
    this.type = init.type ?? null;
    this.code = init.code ?? null;
    this.param = init.param ?? null;
    this.docUrl = init.docUrl ?? null;
    this.requestId = init.requestId ?? null;
    this.headers = init.headers ?? null;
    this.body = init.body ?? null;
    const retryAfterMs = parseRetryAfter(init.headers?.get("retry-after"));
    this.retryAfter = retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000);
  }
}

/** No answer: the connection failed or was dropped before a whole answer arrived. */
export class AtelierConnectionError extends AtelierError {
  constructor(message: string, cause?: unknown) {
    super(message, { status: null, cause });
    this.name = "AtelierConnectionError";
  }
}

/** No answer within `timeoutMs` (plus the `Prefer: wait` asked for). */
export class AtelierTimeoutError extends AtelierConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "AtelierTimeoutError";
  }
}

const MAX_MESSAGE_CHARS = 2000;

/** The error an answer that is not 2xx stands for, from its body text (read before parsing). */
export function errorFromAnswer(status: number, statusText: string, headers: Headers, text: string): AtelierError {
  const headerRequestId = headers.get("x-request-id");
  const envelope = parseEnvelope(text);
  if (envelope) {
    return new AtelierError(envelope.message, {
      status,
      type: envelope.type as ErrorType,
      code: envelope.code as ErrorCode,
      param: envelope.param,
      docUrl: envelope.doc_url,
      requestId: envelope.request_id ?? headerRequestId,
      headers,
      body: text,
    });
  }
  const trimmed = text.trim();
  const message = trimmed
    ? trimmed.length > MAX_MESSAGE_CHARS
      ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}…`
      : trimmed
    : `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
  return new AtelierError(message, { status, requestId: headerRequestId, headers, body: text });
}

interface Envelope {
  type: string;
  code: string;
  message: string;
  param: string | null;
  doc_url: string | null;
  request_id: string | null;
}

function parseEnvelope(text: string): Envelope | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object") return null;
  const error = (parsed as { error?: unknown }).error;
  if (!error || typeof error !== "object") return null;
  const e = error as Record<string, unknown>;
  if (typeof e.type !== "string" || typeof e.code !== "string" || typeof e.message !== "string") return null;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    type: e.type,
    code: e.code,
    message: e.message,
    param: str(e.param),
    doc_url: str(e.doc_url),
    request_id: str(e.request_id),
  };
}
