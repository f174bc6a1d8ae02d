// The wrapper every route goes through: authentication, the per-key limit, query and body
// parsing. A route file is then a few lines that call the core.
import type { Context, Hono } from "hono";
import { authenticateApiKey } from "../lib/core/api-keys";
import type { Ctx, SystemCtx } from "../lib/core/context";
import { ApiError } from "../lib/core/errors";
import { LIMITS } from "../lib/core/limits";
import { readCappedStream } from "../lib/core/read-capped";
import type { ApiDeps, ApiEnv } from "./env";

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
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!allowed.includes(name)) {
      throw new ApiError(
        "invalid_parameter",
        allowed.length ? `Unknown query parameter "${name}". This endpoint takes: ${allowed.join(", ")}.` : `Unknown query parameter "${name}". This endpoint takes none.`,
        { param: name },
      );
    }
    if (values.length > 1) throw new ApiError("invalid_parameter", `Send the query parameter "${name}" once.`, { param: name });
    query[name] = values[0]!;
  }
  return query;
}

/** The body's bytes, or 413 as soon as it passes `limit` (declared or streamed). */
export function readLimitedBytes(request: Request, limit: number, tooLargeMessage?: string): Promise<Buffer> {
  const tooLarge = () => new ApiError("payload_too_large", tooLargeMessage ?? `The request body is over ${limit.toLocaleString("en")} bytes.`);
  return readCappedStream(request.body, request.headers.get("content-length"), limit, tooLarge);
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The parsed JSON body; an empty body reads as {}. */
export async function readJsonBody(c: Context<ApiEnv>): Promise<unknown> {
  const contentType = c.req.header("content-type");
  if (contentType && !JSON_CONTENT_TYPE.test(contentType)) {
    throw new ApiError("unsupported_media_type", `This endpoint takes application/json; got "${contentType}".`);
  }
  const text = (await readLimitedBytes(c.req.raw, LIMITS.jsonBodyBytes)).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_parameter", "Invalid request parameters.");
  }
}

async function readParts(c: Context<ApiEnv>, options: Options): Promise<RequestParts> {
  return {
    params: c.req.param() as Record<string, string>,
    query: readQuery(c, options.query ?? []),
    body: options.body ? await readJsonBody(c) : undefined,
  };
}

export interface Router {
  /** Every route served, for 405 and "did you mean" answers. */
  routes: RouteSpec[];
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
    keyed(method, path, options, handler) {
      add(method, path, async (c) => {
        const key = await authenticateApiKey(
          { db: deps.store.db },
          { xApiKey: c.req.header("x-api-key"), authorization: c.req.header("authorization") },
          deps.config.apiKeyPrefix,
        );
        await deps.rateLimits.consumeKey(key.keyId);
        const ctx: Ctx = {
          db: deps.store.db,
          workspaceId: key.workspaceId,
          actor: { kind: "api_key", id: key.keyId },
          scopes: key.scopes,
          source: "api",
          services: deps.services,
        };
        return handler(c, ctx, await readParts(c, options));
      });
    },
    open(method, path, options, handler) {
      add(method, path, async (c) => handler(c, await readParts(c, options), { db: deps.store.db }));
    },
  };
}
