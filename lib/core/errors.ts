import { ERROR_CODES, type ErrorCode, type ErrorType } from "./error-codes";

export interface ApiErrorOptions {
  /** The field at fault, e.g. `input.width`, `model`, `Idempotency-Key`. */
  param?: string | null;
  /** Extra response headers the error needs (Retry-After, Allow, ...). */
  headers?: Record<string, string>;
  /** Overrides the table's status, only for `invalid_request` (a 4xx with no code of its own). */
  status?: number;
}

/** The one typed error of the core; the doors turn it into the SPEC.md envelope. */
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

export interface ErrorBody {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    param: string | null;
    doc_url: string | null;
    request_id: string;
  };
}

export function errorDocUrl(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl}/docs/errors#${code}`;
}

/** Turns any thrown value into the status, body and headers of an error answer. */
export function toErrorResponse(
  err: unknown,
  requestId: string,
  baseUrl: string,
): { status: number; body: ErrorBody; headers: Record<string, string>; unexpected: boolean } {
  const apiError =
    err instanceof ApiError
      ? err
      : new ApiError("internal_error", `Something went wrong on our side. Quote ${requestId} if you contact support.`);
  return {
    status: apiError.status,
    headers: apiError.headers,
    unexpected: !(err instanceof ApiError),
    body: {
      error: {
        type: apiError.type,
        code: apiError.code,
        message: apiError.message,
        // SPEC: `param` names the field at fault only for a 400; every other status says null.
        param: apiError.status === 400 ? apiError.param : null,
        doc_url: errorDocUrl(baseUrl, apiError.code),
        request_id: requestId,
      },
    },
  };
}
