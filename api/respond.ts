import type { Context } from "hono";
import { toErrorResponse } from "../lib/core/errors";
import { logStoreUnreachable } from "../lib/store/unreachable";
import type { ApiDeps, ApiEnv } from "./env";

type Body = string | Uint8Array<ArrayBuffer> | null;

/**
 * What the answers built here were made of. The headers every answer carries (X-Request-Id,
 * RateLimit-*) are then added by making the answer again from these plain parts, which
 * @hono/node-server writes straight out; setting them on a finished Response would first build
 * Fetch's Headers for it, a measurable part of a short request (bench profile).
 */
const PARTS = new WeakMap<Response, { body: Body; status: number; headers: Record<string, string> }>();
/** Answers that carry those headers already. */
const FINISHED = new WeakSet<Response>();

function plainResponse(body: Body, status: number, headers: Record<string, string>): Response {
  const res = new Response(body, { status, headers });
  PARTS.set(res, { body, status, headers });
  return res;
}

/** A JSON answer with extra headers; every route answers through this or errorResponse. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return serializedJsonResponse(JSON.stringify(body), status, headers);
}

/** The same for a body already serialised (a cached one: as bytes, it is not encoded again). */
export function serializedJsonResponse(json: string | Uint8Array<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  return plainResponse(json, status, { "Content-Type": "application/json; charset=utf-8", ...headers });
}

/** `res` with `answerHeaders` added: made again from its parts when built here, else set on it. */
export function withAnswerHeaders(res: Response, answerHeaders: Record<string, string> | undefined): Response {
  if (!answerHeaders || FINISHED.has(res)) return res;
  const parts = PARTS.get(res);
  let finished = res;
  if (parts) finished = new Response(parts.body, { status: parts.status, headers: { ...parts.headers, ...answerHeaders } });
  else for (const [name, value] of Object.entries(answerHeaders)) res.headers.set(name, value);
  FINISHED.add(finished);
  return finished;
}

/**
 * The SPEC.md error envelope for anything thrown; unexpected errors are logged with their stack.
 * An unreachable store (PostgreSQL down or restarting, SQLite locked past its busy timeout) is
 * 503 service_unavailable with Retry-After, logged at warn at most once every few seconds.
 */
export function errorResponse(c: Context<ApiEnv>, deps: ApiDeps, err: unknown): Response {
  const { status, body, headers } = loggedError(deps, err, { requestId: c.get("requestId"), method: c.req.method, path: c.req.path });
  return withAnswerHeaders(jsonResponse(body, status, headers), c.get("answerHeaders"));
}

/** The error answer for anything thrown, logged as errorResponse says (the MCP door's tool errors use it too). */
export function loggedError(deps: ApiDeps, err: unknown, where: { requestId: string; method: string; path: string }): ReturnType<typeof toErrorResponse> {
  const answer = toErrorResponse(err, where.requestId, deps.config.publicBaseUrl);
  if (answer.unexpected) deps.logger.error({ err, ...where }, "unexpected error");
  else if (answer.storeUnreachable) logStoreUnreachable(deps.logger, err, where);
  return answer;
}
