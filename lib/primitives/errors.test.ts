import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "./error-codes";
import { ApiError, toErrorResponse } from "./errors";

// The API's error table (docs/api.md, "Errors"): code → status and type, copied here so a change to the table is deliberate.
const SPEC: Record<ErrorCode, [number, string]> = {
  invalid_parameter: [400, "invalid_request_error"],
  invalid_request: [400, "invalid_request_error"],
  conflicting_credentials: [400, "invalid_request_error"],
  placeholder_in_path: [400, "invalid_request_error"],
  missing_api_key: [401, "authentication_error"],
  invalid_api_key: [401, "authentication_error"],
  authentication_required: [401, "authentication_error"],
  insufficient_credit: [402, "billing_error"],
  permission_denied: [403, "permission_error"],
  not_found: [404, "invalid_request_error"],
  resource_not_found: [404, "invalid_request_error"],
  method_not_allowed: [405, "invalid_request_error"],
  conflict: [409, "conflict_error"],
  gone: [410, "invalid_request_error"],
  payload_too_large: [413, "invalid_request_error"],
  unsupported_media_type: [415, "invalid_request_error"],
  rate_limit_exceeded: [429, "rate_limit_error"],
  ip_rate_limit_exceeded: [429, "rate_limit_error"],
  internal_error: [500, "api_error"],
  service_unavailable: [503, "api_error"],
};

const TYPES = [
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "billing_error",
  "conflict_error",
  "rate_limit_error",
  "api_error",
];

describe("error codes", () => {
  it("every code has a status, a type, a condition and retry advice", () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(Number.isInteger(entry.status), code).toBe(true);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(TYPES, code).toContain(entry.type);
      expect(entry.condition.length, code).toBeGreaterThan(0);
      expect(entry.retry.length, code).toBeGreaterThan(0);
      // 5xx are the service's fault; 4xx never carry api_error.
      expect(entry.type === "api_error", code).toBe(entry.status >= 500);
    }
  });

  it("matches the documented table, code for code", () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(SPEC).sort());
    for (const [code, [status, type]] of Object.entries(SPEC)) {
      expect(ERROR_CODES[code as ErrorCode], code).toMatchObject({ status, type });
    }
  });
});

describe("ApiError", () => {
  it("takes its status and type from the table", () => {
    const err = new ApiError("insufficient_credit", "Add credit.");
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: "ApiError",
      code: "insufficient_credit",
      status: 402,
      type: "billing_error",
      param: null,
      headers: {},
    });
    expect(err.message).toBe("Add credit.");
  });

  it("answers param only for a 400 (else null)", () => {
    const bad = toErrorResponse(
      new ApiError("invalid_parameter", "Bad width.", { param: "input.width" }),
      "req_1",
      "https://a.example",
    );
    expect(bad.body.error.param).toBe("input.width");
    const missing = toErrorResponse(
      new ApiError("resource_not_found", "No such run.", { param: "id" }),
      "req_2",
      "https://a.example",
    );
    expect(missing.body.error.param).toBeNull();
  });

  it("keeps param and headers", () => {
    const err = new ApiError("rate_limit_exceeded", "Slow down.", {
      param: "x-api-key",
      headers: { "Retry-After": "60" },
    });
    expect(err.param).toBe("x-api-key");
    expect(err.headers).toEqual({ "Retry-After": "60" });
    const response = toErrorResponse(err, "req_123", "https://atelier.example.com");
    expect(response.status).toBe(429);
    expect(response.headers).toEqual({ "Retry-After": "60" });
    expect(response.unexpected).toBe(false);
    expect(response.body).toEqual({
      error: {
        type: "rate_limit_error",
        code: "rate_limit_exceeded",
        message: "Slow down.",
        param: null,
        doc_url: "https://atelier.example.com/docs/errors#rate_limit_exceeded",
        request_id: "req_123",
      },
    });
  });

  it("lets only invalid_request override its status", () => {
    expect(new ApiError("invalid_request", "Too early.", { status: 425 }).status).toBe(425);
    expect(new ApiError("invalid_request", "Bad.").status).toBe(400);
    expect(new ApiError("not_found", "No.", { status: 418 }).status).toBe(404);
  });
});

describe("toErrorResponse", () => {
  it("turns any other thrown value into internal_error 500 with the request id", () => {
    for (const thrown of [
      new Error("database exploded at /secret/path"),
      new TypeError("x is undefined"),
      "a string",
      null,
      { code: "ECONNRESET" },
    ]) {
      const response = toErrorResponse(thrown, "req_abc", "http://localhost:3000");
      expect(response.status).toBe(500);
      expect(response.unexpected).toBe(true);
      expect(response.headers).toEqual({});
      expect(response.body.error).toMatchObject({
        type: "api_error",
        code: "internal_error",
        param: null,
        request_id: "req_abc",
      });
      expect(response.body.error.message).toContain("req_abc");
      // The inner error's text is for the logs, not for the caller.
      expect(response.body.error.message).not.toContain("/secret/path");
      expect(response.body.error.doc_url).toBe("http://localhost:3000/docs/errors#internal_error");
    }
  });
});
