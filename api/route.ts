// The wrapper every route goes through: authentication, the per-key limit, query and body
// parsing. A route file is then a few lines that call the core.
import type { IncomingMessage } from "node:http";
import type { Context, Hono } from "hono";
import { authenticateApiKey } from "../lib/core/keys/api-keys";
import type { Ctx, Source, SystemCtx } from "../lib/core/context";
import { ApiError } from "../lib/primitives/errors";
import { hasNul, refuseDeepOrNulJson } from "../lib/primitives/http/json-body-check";
import { isPossibleId } from "../lib/primitives/ids";
import { LIMITS } from "../lib/primitives/limits";
import { setActiveSpanAttribute } from "../lib/primitives/tracing";
import { BodyReadError, readCappedNodeStream, readCappedStream } from "../lib/primitives/http/read-capped";
import type { ApiDeps, ApiEnv } from "./env";
import { withAnswerHeaders } from "./respond";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteSpec {
  method: Method;
  /** Hono pattern, e.g. /v1/models/:creator/:name */
  path: string;
}

interface RequestParts {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

type KeyHandler = (c: Context<ApiEnv>, ctx: Ctx, parts: RequestParts) => Promise<Response> | Response;
type PublicHandler = (c: Context<ApiEnv>, parts: RequestParts, sys: SystemCtx) => Promise<Response> | Response;

interface Options {
  /** Query parameters the route reads; any other is refused. */
  query?: readonly string[];
  /** Whether the route reads a JSON body. */
  body?: boolean;
}

function readQuery(c: Context<ApiEnv>, allowed: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  if (!c.req.url.includes("?")) return query;
  for (const [name, values] of Object.entries(c.req.queries())) {
    // U+0000 fits no parameter, and PostgreSQL text cannot hold it: refused here, for every store alike.
    if (hasNul(name) || values.some(hasNul)) {
      throw new ApiError(
        "invalid_parameter",
        `The query parameter "${name}" holds the character U+0000 (NUL), which no parameter accepts.`,
        { param: name },
      );
    }
    if (!allowed.includes(name)) {
      throw new ApiError(
        "invalid_parameter",
        allowed.length
          ? `Unknown query parameter "${name}". This endpoint takes: ${allowed.join(", ")}.`
          : `Unknown query parameter "${name}". This endpoint takes none.`,
        { param: name },
      );
    }
    if (values.length > 1)
      throw new ApiError("invalid_parameter", `Send the query parameter "${name}" once.`, { param: name });
    query[name] = values[0]!;
  }
  return query;
}

function payloadTooLarge(limit: number, message: string | undefined): ApiError {
  return new ApiError("payload_too_large", message ?? `The request body is over ${limit.toLocaleString("en")} bytes.`);
}

/** The body's bytes, or 413 as soon as it passes `limit` (declared or streamed). */
export async function readLimitedBytes(
  request: Request,
  limit: number,
  tooLargeMessage?: string,
  incoming?: IncomingMessage,
): Promise<Buffer> {
  // node:http refuses a request whose Content-Length lines disagree, so its first is the one.
  const declared = incoming ? (incoming.headers["content-length"] ?? null) : request.headers.get("content-length");
  try {
    // Served by node:http (server.ts): straight from its stream, unless something read the Request's body already.
    // (The error is made by an unnamed arrow: tsx would give a named one its name anew on every request.)
    if (incoming && !request.bodyUsed && !incoming.readableEnded) {
      return await readCappedNodeStream(incoming, declared, limit, () => payloadTooLarge(limit, tooLargeMessage));
    }
    return await readCappedStream(request.body, declared, limit, () => payloadTooLarge(limit, tooLargeMessage));
  } catch (err) {
    // Only the client's side: the connection closed mid-body, or the HTTP parser refused the body
    // (a bad chunk size; api/client-error.ts answers those). Not a failure of ours to log;
    // anything else is ours and stays an internal error.
    if (!(err instanceof BodyReadError)) throw err;
    throw new ApiError(
      "invalid_request",
      "The request body could not be read: the connection ended or the body is not valid HTTP.",
    );
  }
}

/**
 * A request header (lower-case name) as Fetch's Headers gives it (every line of it, joined with
 * ", "), read from node:http's own parse when node:http serves the app, rather than building Headers
 * for every request. node:http's `headers` keeps only the first Authorization or Content-Type line,
 * and its `headersDistinct` object is built whole on first use: the raw lines are scanned instead.
 * Tests that call app.fetch have no node request: Hono's own then.
 */
export function requestHeader(c: Context<ApiEnv>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const line = raw[i]!;
    if (line.length === name.length && line.toLowerCase() === name)
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The parsed JSON body; an empty body reads as {}. */
export async function readJsonBody(c: Context<ApiEnv>): Promise<unknown> {
  const contentType = requestHeader(c, "content-type");
  if (contentType && !JSON_CONTENT_TYPE.test(contentType)) {
    throw new ApiError("unsupported_media_type", `This endpoint takes application/json; got "${contentType}".`);
  }
  const text = (await readLimitedBytes(c.req.raw, LIMITS.jsonBodyBytes, undefined, c.env?.incoming)).toString("utf8");
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    // V8's JSON.parse does not recurse, so any depth parses; the check below bounds it before
    // anything that does recurse sees the body.
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_parameter", "Invalid request parameters.");
  }
  refuseDeepOrNulJson(body);
  return body;
}

/** Path parameters; an `id` that no ID can be (U+0000, a space, no known prefix...) is 404 before any query. */
function readParams(c: Context<ApiEnv>): Record<string, string> {
  const params = c.req.param() as Record<string, string>;
  const id = params.id;
  if (id !== undefined && !isPossibleId(id)) {
    throw new ApiError(
      "resource_not_found",
      `${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id)} is not an ID this API makes (a prefix such as gen_, then letters and digits), so nothing in this workspace has it.`,
    );
  }
  return params;
}

async function readParts(c: Context<ApiEnv>, options: Options): Promise<RequestParts> {
  return {
    params: readParams(c),
    query: readQuery(c, options.query ?? []),
    body: options.body ? await readJsonBody(c) : undefined,
  };
}

/** The caller's Ctx from its API key (either header), after the key's rate limit is counted. */
export async function keyCtx(c: Context<ApiEnv>, deps: ApiDeps, source: Source): Promise<Ctx> {
  const key = await authenticateApiKey(
    { db: deps.store.db },
    { xApiKey: requestHeader(c, "x-api-key"), authorization: requestHeader(c, "authorization") },
    deps.config.apiKeyPrefix,
    deps.services.apiKeys,
  );
  await deps.rateLimits.consumeKey(key.keyId);
  // The request's span (api/app.ts) names the workspace it acted for.
  setActiveSpanAttribute("atelier.workspace.id", key.workspaceId);
  const ip = c.get("clientIp");
  return {
    db: deps.store.db,
    workspaceId: key.workspaceId,
    actor: { kind: "api_key", id: key.keyId },
    scopes: key.scopes,
    ...(key.role !== null && { role: key.role }),
    source,
    services: deps.services,
    ...(ip !== undefined && { ip }),
  };
}

export interface Router {
  /** Every route served, for 405 and "did you mean" answers. */
  routes: RouteSpec[];
  /** What the routes were built with (streams log their own errors, after the answer started). */
  deps: ApiDeps;
  /** A route that needs an API key; the handler gets the caller's Ctx. */
  keyed(method: Method, path: string, options: Options, handler: KeyHandler): void;
  /** A route open to anyone (the public catalog). */
  open(method: Method, path: string, options: Options, handler: PublicHandler): void;
}

export function createRouter(app: Hono<ApiEnv>, deps: ApiDeps): Router {
  const routes: RouteSpec[] = [];
  const add = (method: Method, path: string, handler: (c: Context<ApiEnv>) => Promise<Response>) => {
    routes.push({ method, path });
    app.on(method, path, handler);
  };
  return {
    routes,
    deps,
    keyed(method, path, options, handler) {
      add(method, path, async (c) =>
        withAnswerHeaders(
          await handler(c, await keyCtx(c, deps, "api"), await readParts(c, options)),
          c.get("answerHeaders"),
        ),
      );
    },
    open(method, path, options, handler) {
      add(method, path, async (c) =>
        withAnswerHeaders(await handler(c, await readParts(c, options), { db: deps.store.db }), c.get("answerHeaders")),
      );
    },
  };
}
