import { storeUnreachable } from "./unreachable";
import { ERROR_CODES, type ErrorCode, type ErrorType } from "./error-codes";
import type { ErrorBody } from "./error-shape";

export interface ApiErrorOptions {
  /** The field at fault, e.g. `input.width`, `model`, `Idempotency-Key`. */
  param?: string | null;
  /** Extra response headers the error needs (Retry-After, Allow, ...). */
  headers?: Record<string, string>;
  /** Overrides the table's status, only for `invalid_request` (a 4xx with no code of its own). */
  status?: number;
}

/** The one typed error of the core; the doors turn it into the API's error envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly type: ErrorType;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    const entry = ERROR_CODES[code];
    this.status = code === "invalid_request" && options.status ? options.status : entry.status;
    this.type = entry.type;
  }
}

/** The error envelope, as its shape (error-shape.ts) says. */
export type { ErrorBody };

export function errorDocUrl(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl}/docs/errors#${code}`;
}

/**
 * Retry-After of a 503 for an unreachable store. Short: a restarted PostgreSQL is usually back
 * within seconds, and a SQLite lock has already been waited on for the busy timeout.
 */
export const STORE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** The answer for an error that only says the store cannot be reached now (see storeUnreachable). */
export function storeUnavailableError(): ApiError {
  return new ApiError(
    "service_unavailable",
    `The service cannot reach its database right now. Try again in ${STORE_UNAVAILABLE_RETRY_AFTER_SECONDS} s.`,
    { headers: { "Retry-After": String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS) } },
  );
}

/**
 * Turns any thrown value into the status, body and headers of an error answer. An ApiError
 * answers as it is; an unreachable store is 503 service_unavailable with Retry-After
 * (`storeUnreachable`, an outage to log briefly); anything else is internal_error (`unexpected`,
 * to log with its stack).
 */
export function toErrorResponse(
  err: unknown,
  requestId: string,
  baseUrl: string,
): {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  unexpected: boolean;
  storeUnreachable: boolean;
} {
  const outage = !(err instanceof ApiError) && storeUnreachable(err);
  const apiError =
    err instanceof ApiError
      ? err
      : outage
        ? storeUnavailableError()
        : new ApiError(
            "internal_error",
            `Something went wrong on our side. Quote ${requestId} if you contact support.`,
          );
  return {
    status: apiError.status,
    // RFC 9110: a 401 names the scheme that would work (either key header is accepted; Bearer is the standard one).
    headers:
      apiError.status === 401
        ? { "WWW-Authenticate": 'Bearer realm="Atelier"', ...apiError.headers }
        : apiError.headers,
    unexpected: !(err instanceof ApiError) && !outage,
    storeUnreachable: outage,
    body: {
      error: {
        type: apiError.type,
        code: apiError.code,
        message: apiError.message,
        // `param` names the field at fault only for a 400 (docs/api.md, "Errors"); every other status says null.
        param: apiError.status === 400 ? apiError.param : null,
        doc_url: errorDocUrl(baseUrl, apiError.code),
        request_id: requestId,
      },
    },
  };
}
