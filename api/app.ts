// The /v1 API door and the MCP door (/mcp): one middleware chain (request id, IP rate limit, placeholders, the
// headers every answer carries), the route files, and the answers for unmatched requests.
import { Hono } from "hono";
import { newId } from "../lib/primitives/ids";
import { isStillAhead, thisTurnsCheckPhase } from "../lib/primitives/event-loop";
import type { ApiDeps, ApiEnv } from "./env";
import type { RateLimitState } from "./rate-limit";
import { rateLimitHeaders } from "./rate-limit-headers";
import { errorResponse, withAnswerHeaders } from "./respond";
import { mcpRoutes } from "./mcp/endpoint";
import { countApiRequest } from "./operate";
import { createRouter, type Router } from "./route";
import { clientIp } from "./client-ip";
import { auditEventRoutes } from "./routes/audit-events";
import { batchRoutes } from "./routes/batches";
import { blobRoutes } from "./routes/blobs";
import { budgetRoutes } from "./routes/budgets";
import { creditRoutes } from "./routes/credits";
import { webhookRoutes } from "./routes/webhooks";
import { fileRoutes } from "./routes/files";
import { generationRoutes } from "./routes/generations";
import { modelRoutes } from "./routes/models";
import { openApiRoutes } from "./routes/openapi";
import { quoteRoutes } from "./routes/quotes";
import { uploadRoutes } from "./routes/uploads";
import { usageRoutes } from "./routes/usage";
import { workspaceRoutes } from "./routes/workspace";
import { StaticRouteRouter } from "./static-route-router";
import { refusePlaceholders, unmatchedRequestError } from "./unmatched";

/** The headers every answer carries (docs/api.md, "Headers on every answer"): its request ID and the caller's IP budget. */
function answerHeaders(requestId: string, rate: RateLimitState | undefined): Record<string, string> {
  return rate ? rateLimitHeaders(rate, { "X-Request-Id": requestId }) : { "X-Request-Id": requestId };
}

/** Every /v1 route (the OpenAPI document's test lists them through a router of its own). */
export function addApiRoutes(router: Router, deps: ApiDeps): void {
  openApiRoutes(router);
  modelRoutes(router);
  quoteRoutes(router);
  creditRoutes(router);
  workspaceRoutes(router);
  auditEventRoutes(router);
  usageRoutes(router);
  budgetRoutes(router);
  generationRoutes(router);
  batchRoutes(router);
  fileRoutes(router);
  webhookRoutes(router);
  uploadRoutes(router, deps);
  blobRoutes(router, deps);
}

export function createApiApp(deps: ApiDeps): Hono<ApiEnv> {
  // strict: false so /v1/models/ is /v1/models.
  const app = new Hono<ApiEnv>({ strict: false, router: new StaticRouteRouter() });

  // One middleware for all of it: each level of Hono's chain is a measurable part of a short request.
  app.use(async (c, next) => {
    const started = performance.now();
    const arrivalTurnEnd = thisTurnsCheckPhase();
    const requestId = newId("request");
    c.set("requestId", requestId);
    try {
      const ip = clientIp(c);
      if (ip !== undefined) c.set("clientIp", ip);
      const rate = await deps.rateLimits.consumeIp(ip ?? "unknown");
      c.set("answerHeaders", answerHeaders(requestId, rate));
      refusePlaceholders(c.req.path);
      await next();
    } catch (err) {
      if (!c.get("answerHeaders"))
        c.set("answerHeaders", answerHeaders(requestId, (err as { rateLimit?: RateLimitState }).rateLimit));
      c.res = errorResponse(c, deps, err);
    }
    // The routes and errorResponse build their answers with these headers already; a stream or
    // the MCP door's answer gets them here.
    const finished = withAnswerHeaders(c.res, c.get("answerHeaders"));
    if (finished !== c.res) c.res = finished;
    // An answer made in the turn of the event loop its request arrived in is written out with
    // the others of that turn, in its check phase, rather than as soon as it is made; one that
    // waited for the store (a later turn) goes at once.
    if (isStillAhead(arrivalTurnEnd)) await arrivalTurnEnd;
    countApiRequest(c, started);
  });

  const router = createRouter(app, deps);
  addApiRoutes(router, deps);
  mcpRoutes(app, deps);

  app.notFound((c) => errorResponse(c, deps, unmatchedRequestError(c.req.method, c.req.path, router.routes)));
  app.onError((err, c) => errorResponse(c, deps, err));
  return app;
}
