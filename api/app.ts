// The /v1 API door and the MCP door (/mcp): one middleware chain (request id, IP rate limit, placeholders, the
// headers every answer carries), the route files, and the answers for unmatched requests.
import { Hono, type Context, type MiddlewareHandler, type Next } from "hono";
import { newId } from "../lib/primitives/ids";
import { isStillAhead, thisTurnsCheckPhase } from "../lib/primitives/event-loop";
import type { ApiDeps, ApiEnv } from "./env";
import type { RateLimitState } from "./rate-limit";
import { rateLimitHeaders } from "./rate-limit-headers";
import { errorResponse, withAnswerHeaders } from "./respond";
import { mcpRoutes } from "./mcp/endpoint";
import { countApiRequest, routeLabel } from "./operate";
import { isTracing, SpanKind, SpanStatusCode, tracedFrom } from "../lib/primitives/tracing";
import { createRouter, requestHeader, type Router } from "./route";
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
import { providerWebhookRoutes } from "./routes/provider-webhooks";
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

/**
 * A request in a server span (docs/operating.md, "Traces"): its method and route pattern, answer
 * status and request ID; the workspace is added once the API key is read (api/route.ts, keyCtx).
 */
function tracedRequest(c: Context<ApiEnv>, answer: MiddlewareHandler<ApiEnv>, next: Next): Promise<void> {
  const method = c.req.method;
  return tracedFrom(
    requestHeader(c, "traceparent"),
    method,
    async (span) => {
      await answer(c, next);
      const route = routeLabel(c);
      const status = c.res.status;
      span?.updateName(`${method} ${route}`);
      span?.setAttributes({
        "http.route": route,
        "http.response.status_code": status,
        "atelier.request.id": c.get("requestId"),
      });
      if (status >= 500) span?.setStatus({ code: SpanStatusCode.ERROR });
    },
    {
      kind: SpanKind.SERVER,
      tracestate: requestHeader(c, "tracestate"),
      attributes: () => ({ "http.request.method": method, "url.path": c.req.path }),
    },
  );
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
  const answer: MiddlewareHandler<ApiEnv> = async (c, next) => {
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
  };
  // Traced (OTEL_EXPORTER_OTLP_ENDPOINT, decided once here): each request is a span continuing the
  // caller's traceparent, named by its route once known; untraced, the plain middleware alone.
  app.use(isTracing() ? (c, next) => tracedRequest(c, answer, next) : answer);

  const router = createRouter(app, deps);
  addApiRoutes(router, deps);
  // Outside the public contract (so not among addApiRoutes, which the OpenAPI document describes):
  // where remote providers push news of a run's job (docs/providers.md, "Push and polling").
  providerWebhookRoutes(router, deps);
  mcpRoutes(app, deps);

  app.notFound((c) => errorResponse(c, deps, unmatchedRequestError(c.req.method, c.req.path, router.routes)));
  app.onError((err, c) => errorResponse(c, deps, err));
  return app;
}
