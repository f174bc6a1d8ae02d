// The /v1 API door: one middleware chain (request id, IP rate limit, placeholders, the
// headers every answer carries), the route files, and the answers for unmatched requests.
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { newId } from "../lib/core/ids";
import type { ApiDeps, ApiEnv } from "./env";
import type { RateLimitState } from "./rate-limit";
import { errorResponse } from "./respond";
import { createRouter } from "./route";
import { batchRoutes } from "./routes/batches";
import { blobRoutes } from "./routes/blobs";
import { creditRoutes } from "./routes/credits";
import { webhookRoutes } from "./routes/webhooks";
import { fileRoutes } from "./routes/files";
import { generationRoutes } from "./routes/generations";
import { modelRoutes } from "./routes/models";
import { quoteRoutes } from "./routes/quotes";
import { uploadRoutes } from "./routes/uploads";
import { workspaceRoutes } from "./routes/workspace";
import { refusePlaceholders, unmatchedRequestError } from "./unmatched";

function clientIp(c: Parameters<typeof getConnInfo>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

export function createApiApp(deps: ApiDeps): Hono<ApiEnv> {
  // strict: false so /v1/models/ is /v1/models.
  const app = new Hono<ApiEnv>({ strict: false });

  app.use(async (c, next) => {
    const requestId = newId("request");
    c.set("requestId", requestId);
    let rate: RateLimitState | undefined;
    try {
      rate = await deps.rateLimits.consumeIp(clientIp(c));
      refusePlaceholders(c.req.path);
      await next();
    } catch (err) {
      rate ??= (err as { rateLimit?: RateLimitState }).rateLimit;
      c.res = errorResponse(c, deps, err);
    }
    c.res.headers.set("X-Request-Id", requestId);
    if (rate) {
      c.res.headers.set("RateLimit-Limit", String(rate.limit));
      c.res.headers.set("RateLimit-Remaining", String(rate.remaining));
      c.res.headers.set("RateLimit-Reset", String(rate.resetSeconds));
    }
  });

  const router = createRouter(app, deps);
  modelRoutes(router);
  quoteRoutes(router);
  creditRoutes(router);
  workspaceRoutes(router);
  generationRoutes(router);
  batchRoutes(router);
  fileRoutes(router);
  webhookRoutes(router);
  uploadRoutes(router, deps);
  blobRoutes(router, deps);

  app.notFound((c) => errorResponse(c, deps, unmatchedRequestError(c.req.method, c.req.path, router.routes)));
  app.onError((err, c) => errorResponse(c, deps, err));
  return app;
}

// The first path segments of API resources: a program that forgets /v1 (and does not ask for
// HTML, as a browser does) gets a JSON 404 pointing to the /v1 path instead of a studio page.
const RESOURCE_SEGMENTS = new Set([
  "models", "public", "quotes", "blobs", "generations", "batches", "credits", "files", "uploads", "webhooks", "events", "workspace",
]);

/** Whether the one server should hand this request to the API rather than the studio. */
export function isApiRequest(url: string, accept: string | undefined): boolean {
  const path = url.split("?", 1)[0]!;
  if (path === "/v1" || path.startsWith("/v1/")) return true;
  const first = path.split("/")[1] ?? "";
  // The studio's own fetches (React Server Components, server actions) never ask for HTML.
  const studioFetch = /[?&]_rsc=/.test(url) || (accept ?? "").includes("text/x-component");
  return RESOURCE_SEGMENTS.has(first) && !studioFetch && !(accept ?? "").includes("text/html");
}
