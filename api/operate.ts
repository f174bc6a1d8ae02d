// Operating the process: GET /healthz (up), GET /readyz (ready to serve: lib/store/readiness.ts) and
// GET /metrics (Prometheus text, lib/primitives/metrics.ts). server.ts answers them before choosing a door,
// so they never reach the studio and sit outside /v1's rate limits and API keys. Also the two
// places that count HTTP requests: a Hono middleware for the API (route patterns) and a hook
// for the studio's requests.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import { matchedRoutes, routePath } from "hono/route";
import type { Logger } from "pino";
import type { Config } from "../lib/boot/config";
import { ApiError, toErrorResponse } from "../lib/primitives/errors";
import { newId } from "../lib/primitives/ids";
import { observeRequest, renderMetrics, startProcessMetrics } from "../lib/primitives/metrics";
import { measureQueueDepthFrom } from "../lib/store/queue-depth";
import { createReadiness, type ReadinessOptions, type ReadinessReport } from "../lib/store/readiness";
import type { Store } from "../lib/store/store";

/** Seconds a load balancer is told to wait before asking /readyz again. */
const NOT_READY_RETRY_AFTER = "2";

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));
}

function sameSecret(given: string, expected: string): boolean {
  // Equal-length digests, so the comparison takes the same time whatever was sent.
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  req.resume();
  res.writeHead(status, { "Cache-Control": "no-store", "Content-Length": String(Buffer.byteLength(body)), ...headers });
  // Node sends no body on HEAD by itself; the headers are GET's.
  res.end(body);
}

function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  send(req, res, status, { "Content-Type": "application/json; charset=utf-8", ...headers }, JSON.stringify(body));
}

export interface Operate {
  /** Answers /healthz, /readyz and /metrics (true); false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Counts a request the studio answers, once its answer ends. */
  countStudioRequest(req: IncomingMessage, res: ServerResponse): void;
}

export function createOperate(deps: {
  store: Store;
  config: Pick<Config, "metricsToken" | "publicBaseUrl">;
  logger: Pick<Logger, "info" | "warn" | "error">;
  /** Extra readiness: the bucket check when S3_BUCKET is set; tests shorten the timeout. */
  readiness?: Partial<Omit<ReadinessOptions, "db">> & { cacheMs?: number };
}): Operate {
  startProcessMetrics();
  measureQueueDepthFrom(deps.store.db);
  const readiness = createReadiness({ db: deps.store.db, ...deps.readiness });
  let wasReady: boolean | null = null;

  const refuse = (req: IncomingMessage, res: ServerResponse, error: ApiError) => {
    const requestId = newId("request");
    const { status, body, headers } = toErrorResponse(error, requestId, deps.config.publicBaseUrl);
    sendJson(req, res, status, body, { "X-Request-Id": requestId, ...headers });
  };

  const logChange = (report: ReadinessReport) => {
    if (report.ready === wasReady) return;
    if (report.ready) {
      if (wasReady === false) deps.logger.info("ready again: /readyz answers 200");
    } else deps.logger.warn({ checks: report.checks, errors: report.errors }, "not ready: /readyz answers 503");
    wasReady = report.ready;
  };

  const ready = async (req: IncomingMessage, res: ServerResponse) => {
    const report = await readiness.check();
    logChange(report);
    if (report.ready) return sendJson(req, res, 200, { status: "ready", checks: report.checks });
    sendJson(
      req,
      res,
      503,
      { status: "not_ready", checks: report.checks, errors: report.errors },
      { "Retry-After": NOT_READY_RETRY_AFTER },
    );
  };

  const metrics = async (req: IncomingMessage, res: ServerResponse) => {
    const token = deps.config.metricsToken;
    if (token !== null) {
      const given = bearerToken(req.headers.authorization);
      if (given === null || !sameSecret(given, token)) {
        return refuse(
          req,
          res,
          new ApiError(
            "authentication_required",
            "/metrics needs the metrics token: send Authorization: Bearer <METRICS_TOKEN>.",
          ),
        );
      }
    } else if (!isLoopback(req.socket.remoteAddress)) {
      return refuse(
        req,
        res,
        new ApiError(
          "permission_denied",
          "/metrics answers only requests from this machine (127.0.0.1, ::1) while METRICS_TOKEN is unset; set it to scrape from elsewhere.",
        ),
      );
    }
    const { contentType, body } = await renderMetrics();
    send(req, res, 200, { "Content-Type": contentType }, body);
  };

  return {
    handle(req, res) {
      const url = req.url ?? "/";
      const query = url.indexOf("?");
      const path = query === -1 ? url : url.slice(0, query);
      if (path !== "/healthz" && path !== "/readyz" && path !== "/metrics") return false;
      const started = performance.now();
      res.once("finish", () =>
        observeRequest(path, req.method ?? "GET", res.statusCode, (performance.now() - started) / 1000),
      );
      if (req.method !== "GET" && req.method !== "HEAD") {
        refuse(
          req,
          res,
          new ApiError("method_not_allowed", `${path} takes GET and HEAD.`, { headers: { Allow: "GET, HEAD" } }),
        );
        return true;
      }
      if (path === "/healthz") {
        sendJson(req, res, 200, { status: "ok" });
        return true;
      }
      const answer = path === "/readyz" ? ready(req, res) : metrics(req, res);
      answer.catch((err: unknown) => {
        deps.logger.error({ err, path }, "answering an operating endpoint failed");
        if (!res.headersSent)
          refuse(
            req,
            res,
            new ApiError(
              "internal_error",
              `${path} could not be answered: ${err instanceof Error ? err.message : String(err)}`,
            ),
          );
        else res.destroy();
      });
      return true;
    },
    countStudioRequest(req, res) {
      const started = performance.now();
      res.once("finish", () =>
        observeRequest("studio", req.method ?? "GET", res.statusCode, (performance.now() - started) / 1000),
      );
    },
  };
}

const isMiddleware = (route: { method: string; path: string }) =>
  route.method === "ALL" && (route.path === "*" || route.path === "/*");

/**
 * The route pattern of a request (`/v1/generations/:id`): the route that answered, or the one that
 * would have when the middleware answered first (a 429); `unmatched` when no route takes it (404, 405).
 */
export function routeLabel(c: Parameters<typeof routePath>[0]): string {
  const answered = matchedRoutes(c)[c.req.routeIndex];
  if (answered && !isMiddleware(answered)) return answered.path;
  return matchedRoutes(c).find((route) => !isMiddleware(route))?.path ?? "unmatched";
}

/** Counts an API request once its answer is made (`started`: performance.now() at its arrival). */
export function countApiRequest(c: Context, started: number): void {
  observeRequest(routeLabel(c), c.req.method, c.res.status, (performance.now() - started) / 1000);
}
