// The API's retry rules as the SDK computes them (the e2e spec e2e/api/sdk.spec.ts shows them
// against the real server behind a fault proxy).
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetryPolicy,
} from "./retry";
import { errorFromAnswer } from "./errors";

const fixed = (random: number, over: Partial<RetryPolicy> = {}): RetryPolicy => ({
  ...DEFAULT_RETRY_POLICY,
  random: () => random,
  ...over,
});
const answer = (status: number, headers: Record<string, string> = {}) => ({
  kind: "answer" as const,
  status,
  headers: new Headers(headers),
});

describe("retry rules", () => {
  it("retries 429, 500, 502, 503 and 504 only", () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    for (const status of [400, 401, 402, 403, 404, 405, 409, 410, 413, 415, 422, 501, 505])
      expect(isRetryableStatus(status), String(status)).toBe(false);
    for (const status of [400, 404, 409]) expect(retryDelayMs(answer(status), 0, fixed(0.5))).toBeNull();
  });

  it("backs off 1 s, 2 s, 4 s … capped at 60 s, jitter taking at most a quarter off", () => {
    const top = fixed(0.999999999);
    const bottom = fixed(0);
    const full = [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000];
    full.forEach((ms, retry) => {
      expect(backoffMs(retry, top)).toBeCloseTo(ms, 0);
      expect(backoffMs(retry, bottom)).toBe(ms * 0.75);
    });
    expect(backoffMs(500, top)).toBeLessThanOrEqual(60_000);
    for (const status of [500, 502, 504]) expect(retryDelayMs(answer(status), 2, bottom)).toBe(3000);
    expect(retryDelayMs({ kind: "network" }, 1, bottom)).toBe(1500);
    // A 5xx other than 503 backs off whatever its Retry-After says.
    expect(retryDelayMs(answer(502, { "retry-after": "3600" }), 0, bottom)).toBe(750);
  });

  it("429 waits Retry-After seconds, or a minute without it; 503 with Retry-After waits that long", () => {
    const p = fixed(0);
    expect(retryDelayMs(answer(429, { "retry-after": "1" }), 3, p)).toBe(1000);
    expect(retryDelayMs(answer(429), 0, p)).toBe(60_000);
    expect(retryDelayMs(answer(503, { "retry-after": "7" }), 0, p)).toBe(7000);
    expect(retryDelayMs(answer(503), 1, p)).toBe(1500);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-05-01T12:00:00Z");
    expect(parseRetryAfter("5", now)).toBe(5000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Fri, 01 May 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Fri, 01 May 2026 11:00:00 GMT", now)).toBe(0);
    for (const bad of [null, undefined, "", "soon", "-1", "1.5"])
      expect(parseRetryAfter(bad, now), String(bad)).toBeNull();
    expect(retryDelayMs(answer(429, { "retry-after": "Fri, 01 May 2026 12:00:02 GMT" }), 0, fixed(0), now)).toBe(2000);
  });

  it("scales every wait by retryDelayScale, and hands back a Retry-After longer than maxRetryAfterMs", () => {
    const p = fixed(0, { scale: 0.01 });
    expect(retryDelayMs(answer(429, { "retry-after": "1" }), 0, p)).toBe(10);
    expect(retryDelayMs(answer(429), 0, p)).toBe(600);
    expect(retryDelayMs(answer(500), 0, p)).toBe(7.5);
    expect(retryDelayMs(answer(429, { "retry-after": "86400" }), 0, p)).toBeNull();
    expect(retryDelayMs(answer(503, { "retry-after": "121" }), 0, p)).toBeNull();
    expect(retryDelayMs(answer(503, { "retry-after": "120" }), 0, p)).toBe(1200);
  });
});

describe("errors", () => {
  it("take the envelope's fields", () => {
    const body = JSON.stringify({
      error: {
        type: "invalid_request_error",
        code: "invalid_parameter",
        message: "Bad.",
        param: "input.prompt",
        doc_url: null,
        request_id: "req_1",
      },
    });
    const err = errorFromAnswer(400, "Bad Request", new Headers({ "x-request-id": "req_1" }), body);
    expect(err).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_parameter",
      message: "Bad.",
      param: "input.prompt",
      requestId: "req_1",
    });
  });

  it("read a body that is not the envelope as text: the message is the text, the envelope's fields null", () => {
    const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    const err = errorFromAnswer(502, "Bad Gateway", new Headers({ "content-type": "text/html" }), html);
    expect(err).toMatchObject({
      status: 502,
      type: null,
      code: null,
      param: null,
      requestId: null,
      message: html,
      body: html,
    });
    expect(errorFromAnswer(503, "Service Unavailable", new Headers({ "retry-after": "4" }), "").message).toBe(
      "HTTP 503 Service Unavailable",
    );
    expect(errorFromAnswer(503, "", new Headers({ "retry-after": "4" }), "").retryAfter).toBe(4);
    const later = new Date(Date.now() + 30_000).toUTCString();
    expect(errorFromAnswer(429, "", new Headers({ "retry-after": later }), "").retryAfter).toBeGreaterThanOrEqual(28);
    expect(errorFromAnswer(500, "", new Headers(), '{"error":"plain"}').code).toBeNull();
  });
});
