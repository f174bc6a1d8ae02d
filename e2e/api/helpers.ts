// Assertions shared by the API specs: the headers every answer carries and the error envelope.
import { expect, type APIResponse } from "@playwright/test";
import type { ErrorBody } from "../../lib/primitives/error-shape";

/** The error table (docs/api.md, "Errors"): code → status and type. */
export const ERROR_TABLE: Record<string, { status: number | "4xx"; type: string }> = {
  invalid_parameter: { status: 400, type: "invalid_request_error" },
  invalid_request: { status: "4xx", type: "invalid_request_error" },
  conflicting_credentials: { status: 400, type: "invalid_request_error" },
  placeholder_in_path: { status: 400, type: "invalid_request_error" },
  missing_api_key: { status: 401, type: "authentication_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  authentication_required: { status: 401, type: "authentication_error" },
  insufficient_credit: { status: 402, type: "billing_error" },
  permission_denied: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "invalid_request_error" },
  resource_not_found: { status: 404, type: "invalid_request_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  conflict: { status: 409, type: "conflict_error" },
  gone: { status: 410, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  ip_rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  service_unavailable: { status: 503, type: "api_error" },
};

export const REQUEST_ID = /^req_[0-9A-Za-z]+$/;
export const MODEL_ID = /^[a-z0-9-]+\/[a-z0-9.-]+(@[1-9]\d{0,3})?$/;
export const DECIMAL_USD = /^\d+\.\d+$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** X-Request-Id and the three RateLimit-* headers every answer carries; returns the latter. */
export function expectStandardHeaders(res: APIResponse): RateLimitHeaders {
  const h = res.headers();
  expect(h["x-request-id"], "X-Request-Id header").toMatch(REQUEST_ID);
  expect(h["ratelimit-limit"], "RateLimit-Limit header").toMatch(/^\d+$/);
  expect(h["ratelimit-remaining"], "RateLimit-Remaining header").toMatch(/^\d+$/);
  expect(h["ratelimit-reset"], "RateLimit-Reset header").toMatch(/^\d+$/);
  const limit = Number(h["ratelimit-limit"]);
  const remaining = Number(h["ratelimit-remaining"]);
  const reset = Number(h["ratelimit-reset"]);
  expect(limit).toBeGreaterThan(0);
  expect(remaining).toBeLessThanOrEqual(limit);
  // Seconds until the one-minute window resets.
  expect(reset).toBeLessThanOrEqual(60);
  return { limit, remaining, reset };
}

/** A 2xx JSON answer with the standard headers; returns the parsed body. */
export async function expectOk<T = Record<string, unknown>>(res: APIResponse, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status(), `expected ${status}, got ${res.status()}: ${text}`).toBe(status);
  expectStandardHeaders(res);
  expect(res.headers()["content-type"]).toMatch(/^application\/json/);
  return JSON.parse(text) as T;
}

/** The `error` of the envelope, as its shape (lib/primitives/error-shape.ts) says. */
export type ApiErrorBody = ErrorBody["error"];

/**
 * The API's error envelope: status, code, the type the code's row names, param (null unless
 * given, and always null for a non-400), doc_url, request_id equal to X-Request-Id, and the
 * standard headers. Returns the `error` object.
 */
export async function expectError(
  res: APIResponse,
  status: number,
  code: string,
  opts: { param?: string | null; message?: string | RegExp } = {},
): Promise<ApiErrorBody> {
  const text = await res.text();
  expect(res.status(), `expected ${status} ${code}, got ${res.status()}: ${text}`).toBe(status);
  expectStandardHeaders(res);
  expect(res.headers()["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: ApiErrorBody };
  expect(Object.keys(body)).toEqual(["error"]);
  const error = body.error;
  expect(Object.keys(error).sort()).toEqual(["code", "doc_url", "message", "param", "request_id", "type"]);
  expect(error.code).toBe(code);
  const row = ERROR_TABLE[code];
  expect(row, `unknown error code ${code}`).toBeDefined();
  expect(error.type, `type of ${code}`).toBe(row!.type);
  if (row!.status !== "4xx") expect(status, `status of ${code}`).toBe(row!.status);
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  const expectedParam = opts.param === undefined ? null : opts.param;
  expect(error.param, `param of ${code}: ${error.message}`).toBe(expectedParam);
  if (status !== 400) expect(error.param, "param is null for any status but 400").toBeNull();
  if (error.doc_url !== null) {
    expect(error.doc_url).toMatch(/^https?:\/\//);
    expect(error.doc_url).toContain(code);
  }
  expect(error.request_id).toMatch(REQUEST_ID);
  expect(error.request_id).toBe(res.headers()["x-request-id"]);
  if (opts.message instanceof RegExp) expect(error.message).toMatch(opts.message);
  else if (typeof opts.message === "string") expect(error.message).toBe(opts.message);
  return error;
}

/** Headers for a key sent the usual way. */
export function keyHeader(key: string): Record<string, string> {
  return { "x-api-key": key };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Names atelier/gradient itself, not atelier/gradient-legacy or -classic. */
export const NAMES_GRADIENT = /atelier\/gradient(?![\w@.-])/;

export const DEPRECATED_LINK = '</v1/models/atelier/gradient>; rel="successor-version"';

/** Deprecation, Sunset and Link headers of a deprecated entry whose replacement is atelier/gradient. */
export function expectDeprecationHeaders(res: APIResponse): void {
  const h = res.headers();
  expect(h["deprecation"], "Deprecation header").toMatch(/^@\d+$/);
  expect(h["sunset"], "Sunset header").toMatch(HTTP_DATE);
  expect(Number.isNaN(Date.parse(h["sunset"]!))).toBe(false);
  expect(h["link"], "Link header").toBe(DEPRECATED_LINK);
}

export function expectNoDeprecationHeaders(res: APIResponse): void {
  const h = res.headers();
  expect(h["deprecation"]).toBeUndefined();
  expect(h["sunset"]).toBeUndefined();
  expect(h["link"]).toBeUndefined();
}
