// The one table of error codes (docs/api.md, "Errors"): code → HTTP status, type, retry advice.
// Everything that answers an error reads this table; nothing else spells a status for a code.

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "billing_error"
  | "conflict_error"
  | "rate_limit_error"
  | "api_error";

export interface ErrorCodeEntry {
  status: number;
  type: ErrorType;
  condition: string;
  retry: string;
}

export const ERROR_CODES = {
  invalid_parameter: {
    status: 400,
    type: "invalid_request_error",
    condition:
      "A body field, query field or the idempotency key header is missing, of the wrong type, not an allowed value, or not an input of the model. A body that is not valid JSON also gets it, with param null.",
    retry: "no",
  },
  invalid_request: {
    status: 400,
    type: "invalid_request_error",
    condition: "A 4xx with no code of its own.",
    retry: "no",
  },
  conflicting_credentials: {
    status: 400,
    type: "invalid_request_error",
    condition: "Two different keys in the x-api-key and Authorization headers.",
    retry: "no",
  },
  placeholder_in_path: {
    status: 400,
    type: "invalid_request_error",
    condition: "The path still holds an example placeholder such as {id}, <id>, :id or undefined.",
    retry: "no",
  },
  missing_api_key: {
    status: 401,
    type: "authentication_error",
    condition: "No key sent.",
    retry: "no",
  },
  invalid_api_key: {
    status: 401,
    type: "authentication_error",
    condition: "The key is unknown, mistyped, cut short, expired or revoked.",
    retry: "no",
  },
  authentication_required: {
    status: 401,
    type: "authentication_error",
    condition: "Authentication required (outside /v1; on /v1 the two codes above are used).",
    retry: "no",
  },
  insufficient_credit: {
    status: 402,
    type: "billing_error",
    condition:
      "The available balance does not cover the hold, or an upload of a video or sound needs credit. Nothing started.",
    retry: "after credit is added",
  },
  permission_denied: {
    status: 403,
    type: "permission_error",
    condition: "The key lacks the scope the endpoint needs.",
    retry: "no",
  },
  not_found: {
    status: 404,
    type: "invalid_request_error",
    condition: "No endpoint matches the path; the message suggests the right path.",
    retry: "no",
  },
  resource_not_found: {
    status: 404,
    type: "invalid_request_error",
    condition: "Nothing with that ID in the workspace (IDs of other workspaces also).",
    retry: "no",
  },
  method_not_allowed: {
    status: 405,
    type: "invalid_request_error",
    condition: "Wrong method; the Allow header lists the accepted methods.",
    retry: "no",
  },
  conflict: {
    status: 409,
    type: "conflict_error",
    condition: "The idempotency key was reused with a different body, or the generation can no longer be canceled.",
    retry: "no",
  },
  gone: {
    status: 410,
    type: "invalid_request_error",
    condition:
      "The model or preset was retired at its sunset date; the message names the replacement when there is one.",
    retry: "no; move to the replacement",
  },
  payload_too_large: {
    status: 413,
    type: "invalid_request_error",
    condition: "The body is over its limit, such as an image over 4 MB.",
    retry: "no; use a direct upload for video or sound",
  },
  unsupported_media_type: {
    status: 415,
    type: "invalid_request_error",
    condition: "The content type is not accepted by the endpoint.",
    retry: "no",
  },
  rate_limit_exceeded: {
    status: 429,
    type: "rate_limit_error",
    condition: "The key sent too many requests, or a workspace limit such as the daily upload allowance was reached.",
    retry: "yes, after Retry-After (a minute when missing), with the same idempotency key",
  },
  ip_rate_limit_exceeded: {
    status: 429,
    type: "rate_limit_error",
    condition: "Too many requests from one IP address.",
    retry: "yes, after Retry-After",
  },
  internal_error: {
    status: 500,
    type: "api_error",
    condition: "A failure on the service's side.",
    retry: "yes, with backoff",
  },
  service_unavailable: {
    status: 503,
    type: "api_error",
    condition: "The API or the model is out of service for a while.",
    retry: "yes, after Retry-After when set, else backoff",
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
