import type { Context } from "hono";
import { toErrorResponse } from "../lib/primitives/errors";
import { logStoreUnreachable } from "../lib/primitives/unreachable";
import type { ApiDeps, ApiEnv } from "./env";

type Body = string | Uint8Array<ArrayBuffer> | null;

/**
 * What an answer built here was made of, kept on it. The headers every answer carries
 * (X-Request-Id, RateLimit-*) are then added by making the answer again from these plain parts,
 * which @hono/node-server writes straight out; setting them on a finished Response would first
 * build Fetch's Headers for it, on every request. A property rather than a WeakMap, whose entry
 * per answer would cost more than the rest of this file.
 */
const PARTS = Symbol("answer parts");
/** Set on an answer that carries those headers already. */
const FINISHED = Symbol("answer finished");

interface Parts {
  body: Body;
  status: number;
  headers: Record<string, string>;
}

type OwnResponse = Response & { [PARTS]?: Parts; [FINISHED]?: true };

function plainResponse(body: Body, status: number, headers: Record<string, string>): Response {
  const res = new Response(body, { status, headers }) as OwnResponse;
  res[PARTS] = { body, status, headers };
  return res;
}

/** A JSON answer with extra headers; every route answers through this or errorResponse. */
export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return serializedJsonResponse(JSON.stringify(body), status, headers);
}

/** The same for a body already serialised (a cached one: as bytes, it is not encoded again). */
export function serializedJsonResponse(
  json: string | Uint8Array<ArrayBuffer>,
  status = 200,
  headers?: Record<string, string>,
): Response {
  const all: Record<string, string> = { "Content-Type": "application/json; charset=utf-8" };
  if (headers) for (const name in headers) all[name] = headers[name]!;
  return plainResponse(json, status, all);
}

/** An answer without a body (204 No Content). */
export function emptyResponse(status = 204): Response {
  return plainResponse(null, status, {});
}

/** `res` with `answerHeaders` added: made again from its parts when built here, else set on it. */
export function withAnswerHeaders(res: Response, answerHeaders: Record<string, string> | undefined): Response {
  const own = res as OwnResponse;
  if (!answerHeaders || own[FINISHED]) return res;
  const parts = own[PARTS];
  let finished: OwnResponse = own;
  if (parts) {
    // The parts' headers object is this file's own, made for this answer alone.
    for (const name in answerHeaders) parts.headers[name] = answerHeaders[name]!;
    finished = new Response(parts.body, { status: parts.status, headers: parts.headers });
  } else for (const name in answerHeaders) res.headers.set(name, answerHeaders[name]!);
  finished[FINISHED] = true;
  return finished;
}

/**
 * The API's error envelope (docs/api.md, "Errors") for anything thrown; unexpected errors are logged with their stack.
 * An unreachable store (PostgreSQL down or restarting, SQLite locked past its busy timeout) is
 * 503 service_unavailable with Retry-After, logged at warn at most once every few seconds.
 */
export function errorResponse(c: Context<ApiEnv>, deps: ApiDeps, err: unknown): Response {
  const { status, body, headers } = loggedError(deps, err, {
    requestId: c.get("requestId"),
    method: c.req.method,
    path: c.req.path,
  });
  return withAnswerHeaders(jsonResponse(body, status, headers), c.get("answerHeaders"));
}

/** The error answer for anything thrown, logged as errorResponse says (the MCP door's tool errors use it too). */
export function loggedError(
  deps: ApiDeps,
  err: unknown,
  where: { requestId: string; method: string; path: string },
): ReturnType<typeof toErrorResponse> {
  const answer = toErrorResponse(err, where.requestId, deps.config.publicBaseUrl);
  if (answer.unexpected) deps.logger.error({ err, ...where }, "unexpected error");
  else if (answer.storeUnreachable) logStoreUnreachable(deps.logger, err, where);
  return answer;
}
