// The one entry point: one process, one port. /v1/* goes to the Hono API, everything else to
// the Next.js studio (api/door.ts decides, also for programs that forget /v1).
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import next from "next";
import { createApiApp } from "./api/app";
import { createClientErrorHandler, createRequestRefusals } from "./api/client-error";
import { apiResources, createDoorChooser, studioRoutes } from "./api/door";
import { createOperate } from "./api/operate";
import { createRateLimits } from "./api/rate-limit";
import { runWatchFor } from "./lib/core/run-streams/run-watch";
import { loadConfigOrExit, publicBaseUrlWarning, seedDemoWorkspace, startRuntime } from "./lib/boot/boot";
import { startBackgroundWork } from "./lib/boot/background-work";
import { startTracing } from "./lib/boot/tracing";
import { catalogCardImages, startExampleOutputs } from "./lib/core/catalog/example-outputs";
import { startStudioThread, type StudioThread } from "./bin/studio-thread";
import { startExamplePictureProcess } from "./lib/boot/example-picture-process";
import { createLogger } from "./lib/primitives/logger";
import { createStudioBudgetDoor } from "./app/studio-budget-door";
import { COMMON_SECURITY_HEADERS, studioSecurityHeaders } from "./lib/primitives/http/security-headers";

/** The checkout: this file's folder, or its parent when this is the production bundle (dist/server.cjs). */
const ROOT = existsSync(path.join(__dirname, "package.json")) ? __dirname : path.dirname(__dirname);

async function main(): Promise<void> {
  const config = loadConfigOrExit("Atelier");
  const logger = createLogger(config.logLevel);
  // Before anything that makes spans; without OTEL_EXPORTER_OTLP_ENDPOINT it does nothing.
  const tracing = await startTracing(config, "atelier", logger);
  const { store, services, crossProcess } = await startRuntime(config, logger);
  const demo = await seedDemoWorkspace(store, config);
  const rateLimits = createRateLimits(config);
  // With REDIS_URL, count in Redis from the first request (memory meanwhile, at most 5 s).
  await rateLimits.ready();
  const background = startBackgroundWork({ store, services }, config, logger, {
    name: "server",
    concurrency: config.workerConcurrency,
  });
  const api = createApiApp({ store, config, services, rateLimits, logger });
  const handleApi = getRequestListener(api.fetch);

  // next-auth builds its callback URLs from NEXTAUTH_URL: the configured public base.
  process.env.NEXTAUTH_URL ??= config.publicBaseUrl;
  const dev = process.env.NODE_ENV !== "production";
  let pictureFailure: ((modelId: string) => void) | null = null;
  let studioThread: StudioThread | null = null;
  let starting: Promise<StudioThread> | null = null;
  let handleStudio: (req: IncomingMessage, res: ServerResponse) => void;
  if (dev) {
    // `next dev` renders on this thread, with this very store and these services
    // (app/_studio/studio-ctx.ts); its hot reload speaks WebSocket, which the thread's socket does not pass.
    (globalThis as { atelierRuntime?: unknown }).atelierRuntime = { store, services, config };
    const studio = next({ dev, dir: ROOT, port: config.port });
    await studio.prepare();
    const handle = studio.getRequestHandler();
    handleStudio = (req, res) => void handle(req, res);
  } else {
    // An error nothing caught is logged and the server goes on, as it always has: Next.js installs
    // the same on the thread it runs on, which was this one until it moved to its own.
    process.on("uncaughtException", (err) => logger.error({ err }, "uncaught exception"));
    process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled rejection"));
    // Production renders in a thread of its own, so no render holds up the API (bin/studio-thread.ts).
    const startThread = () =>
      startStudioThread({
        dir: ROOT,
        port: config.port,
        logger,
        examples: {
          // Asked of this process's queue; one that gets no picture (failed before, or no plan) says so at once.
          request: (modelId) => {
            const { images, making } = catalogCardImages(services.examplePictures, [modelId]);
            if (!images[modelId] && !making) pictureFailure?.(modelId);
          },
          onFailed: (listener) => (pictureFailure = listener),
        },
        signals: services.signals,
        // Ended on its own (out of memory, a crash): the next studio request starts another.
        onExit: () => {
          studioThread = null;
          starting = null;
        },
      }).then((thread) => (studioThread = thread));
    if (config.studioStart === "at-start") starting = startThread();
    await starting;
    handleStudio = (req, res) => {
      if (studioThread) return studioThread.handle(req, res);
      // STUDIO_START=on-demand: the first studio request starts the thread; those meanwhile wait for it.
      starting ??= startThread();
      starting.then(
        (thread) => thread.handle(req, res),
        (err: unknown) => {
          logger.error({ err }, "the studio thread could not start");
          starting = null;
          res.statusCode = 503;
          res.end("The studio could not start; see the server log.");
        },
      );
    };
  }

  const isApiRequest = createDoorChooser({
    studioRoutes: studioRoutes(ROOT, dev),
    apiResources: apiResources(api.routes.map((r) => r.path)),
  });
  const refusals = createRequestRefusals({ config, logger, rateLimits });
  // Studio actions and live-run streams per signed-in user (app/studio-budget-door.ts).
  const studioBudget = createStudioBudgetDoor({ db: store.db, services });
  // /healthz, /readyz and /metrics: answered first, outside /v1's limits and keys, never by the studio.
  const operate = createOperate({
    store,
    config,
    logger,
    readiness: services.blobs.kind === "s3" ? { bucket: () => services.blobs.check() } : {},
  });
  const commonHeaders = Object.entries(COMMON_SECURITY_HEADERS);
  // requireHostHeader: false lets a request without Host reach us, to be refused in JSON.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    for (const [name, value] of commonHeaders) res.setHeader(name, value);
    if (operate.handle(req, res)) return;
    const refusal = refusals.check(req);
    if (refusal) return refusals.refuse(req, res, refusal);
    if (isApiRequest(req.url ?? "/", req.headers)) return void handleApi(req, res);
    const studioHeaders = studioSecurityHeaders(dev, req.url ?? "/");
    for (const [name, value] of Object.entries(studioHeaders)) res.setHeader(name, value);
    // Next takes the script nonce from the request's policy (whatever the client sent is replaced).
    req.headers["content-security-policy"] = studioHeaders["Content-Security-Policy"];
    operate.countStudioRequest(req, res);
    const budget = studioBudget(req);
    if (!budget) return handleStudio(req, res);
    budget.then(
      (over) => (over ? refusals.refuse(req, res, over) : handleStudio(req, res)),
      (err: unknown) => {
        logger.warn({ err }, "the studio budget could not be read");
        handleStudio(req, res);
      },
    );
  });
  // What the HTTP parser refuses, and an Expect other than 100-continue, get the error envelope
  // and the usual headers, not Node's bare 400, 417 or 431.
  // Idle keep-alive connections stay open a minute (Node's default is 5 s). A client reuses an
  // idle connection until just before the server's advertised timeout; with 5 s, a client that
  // paused a few seconds (a busy machine, a script between calls) could send on a socket the
  // server was closing at that moment and get "other side closed". A minute also outlasts the
  // usual load balancer idle timeout (60 s), as a server behind one should.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on("clientError", createClientErrorHandler({ config, logger, rateLimits }));
  server.on("checkExpectation", refusals.expectation);
  let examples: ReturnType<typeof startExampleOutputs> | null = null;
  const pictureProcess = startExamplePictureProcess({
    pictures: services.examplePictures,
    ffmpegPath: services.ffmpegPath,
    logger,
  });
  // HOST unset: every interface, as before; HOST=127.0.0.1 keeps the server to this machine.
  // A port in use or not ours to take ends the start: a server without its port must not go on
  // claiming runs from the queue behind the process that has it.
  const cannotListen = (err: NodeJS.ErrnoException) => {
    logger.fatal({ err }, "the server cannot listen");
    const why =
      err.code === "EADDRINUSE"
        ? `port ${config.port} is in use by another program (stop it, or set PORT)`
        : err.code === "EACCES"
          ? `port ${config.port} needs privileges this process does not have (set PORT above 1023)`
          : err.message;
    console.error(`Atelier cannot start: ${why}.`);
    process.exit(1);
  };
  server.once("error", cannotListen);
  const listening = () => {
    server.off("error", cannotListen);
    // The catalog cards' pictures, made one at a time in the background once the server answers.
    examples = startExampleOutputs({
      pictures: services.examplePictures,
      ffmpegPath: services.ffmpegPath,
      logger,
      delayMs: 2000,
      warm: config.examplePictures === "all",
      maker: pictureProcess,
      onFailed: (modelId) => pictureFailure?.(modelId),
    });
    const base = config.publicBaseUrl;
    logger.info({ port: config.port, store: store.dialect, blobs: services.blobs.kind }, "Atelier is listening");
    console.log(`\nAtelier is running: studio ${base}/  ·  API ${base}/v1  ·  store ${store.dialect}`);
    const bound = server.address();
    const warning = publicBaseUrlWarning({
      env: process.env,
      boundAddress: typeof bound === "object" && bound ? bound.address : null,
      publicBaseUrl: base,
    });
    if (warning) {
      logger.warn({ publicBaseUrl: base }, warning);
      console.warn(`\nNote: ${warning}`);
    }
    if (demo) {
      console.log(
        `\nFirst start: created the "demo" workspace (${demo.workspace.id}) with $10.00 credit.\n` +
          `Demo API key (shown once, keep it): ${demo.key.key}\n` +
          `Studio sign-in (ops role): ${demo.login.email} / ${demo.login.password}\n` +
          `(Missed it later? npm run admin -- user password --email ${demo.login.email} sets a new one.)\n` +
          `Try: curl -H "x-api-key: ${demo.key.key}" ${base}/v1/credits\n`,
      );
    }
  };
  if (config.host === null) server.listen(config.port, listening);
  else server.listen(config.port, config.host, listening);

  const shutdown = async (signal: string) => {
    logger.info({ signal }, "shutting down: no new runs are claimed; in-flight runs finish or go back to the queue");
    server.close();
    server.closeIdleConnections();
    // Status streams end so their clients reconnect (with Last-Event-ID) to a process that stays.
    runWatchFor(store.db, services.signals).closeAll();
    await Promise.all([
      background.stop(),
      examples?.stop(),
      pictureProcess.stop(),
      starting?.then(
        (thread) => thread.stop(),
        () => {},
      ),
    ]);
    await Promise.allSettled([crossProcess.close(), rateLimits.close()]);
    await store.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
