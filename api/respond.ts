import type { Context } from "hono";
import { toErrorResponse } from "../lib/core/errors";
import { logStoreUnreachable } from "../lib/store/unreachable";
import type { ApiDeps, ApiEnv } from "./env";

/** A JSON answer with extra headers; every route answers through this or errorResponse. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return serializedJsonResponse(JSON.stringify(body), status, headers);
}

/** The same for a body already serialised (a cached one: as bytes, it is not encoded again). */
export function serializedJsonResponse(json: string | Uint8Array<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(json, {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * The SPEC.md error envelope for anything thrown; unexpected errors are logged with their stack.
 * An unreachable store (PostgreSQL down or restarting, SQLite locked past its busy timeout) is
 * 503 service_unavailable with Retry-After, logged at warn at most once every few seconds.
 */
export function errorResponse(c: Context<ApiEnv>, deps: ApiDeps, err: unknown): Response {
  const { status, body, headers } = loggedError(deps, err, { requestId: c.get("requestId"), method: c.req.method, path: c.req.path });
  return jsonResponse(body, status, headers);
}

/** The error answer for anything thrown, logged as errorResponse says (the MCP door's tool errors use it too). */
export function loggedError(deps: ApiDeps, err: unknown, where: { requestId: string; method: string; path: string }): ReturnType<typeof toErrorResponse> {
  const answer = toErrorResponse(err, where.requestId, deps.config.publicBaseUrl);
  if (answer.unexpected) deps.logger.error({ err, ...where }, "unexpected error");
  else if (answer.storeUnreachable) logStoreUnreachable(deps.logger, err, where);
  return answer;
}
