// The studio (Next) in a worker thread of its own, in production. Next renders a page in one
// synchronous stretch of 15–50 ms of JavaScript; on the event loop the API shares, every API
// request that arrived meanwhile waited for it (the history bench: GET /v1/models at 18–26 ms p99
// beside studio pages). Here the server's thread only passes the studio's requests and answers
// through, over a Unix socket, and the thread renders.
//
// The thread is a process of its own to the rest of Atelier: its own store connection and
// services, joined to the server's by the cross-process signals that `npm run worker` processes
// use (a run the studio starts wakes the server's engine; a run that ends reaches the studio's
// live views). The catalog cards' picture queue stays with the server: the thread asks it for
// a missing picture and hears which ones fail. GET /metrics adds the thread's instruments. `next dev` stays on the server's thread (its hot
// reload speaks WebSocket).
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import next from "next";
import type { Logger } from "pino";
import { startRuntime } from "../lib/boot/boot";
import { config as loadedConfig } from "../lib/boot/config";
import { startModuleThread } from "../lib/boot/module-thread";
import type { RunSignals, SignalMessage } from "../lib/core/run-signals";
import { runWatchFor } from "../lib/core/run-streams/run-watch";
import { createLogger } from "../lib/primitives/logger";
import { addMetricsSource, metricsAsJson } from "../lib/primitives/metrics";

interface ThreadData {
  dir: string;
  port: number;
  socket: string;
}

type ToThread =
  | { type: "stop" }
  | { type: "example_failed"; modelId: string }
  | { type: "metrics"; id: number }
  | { type: "signal_heard"; id: number };
type FromThread =
  | { type: "ready" }
  | { type: "stopped" }
  | { type: "failed"; message: string }
  | { type: "example_wanted"; modelId: string }
  | { type: "metrics"; id: number; metrics: object[] }
  | { type: "signal"; id: number; message: SignalMessage };

/** Hop-by-hop headers: each connection's own, never passed on. */
const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"];
/** How long a revocation waits for the server's thread to say it heard (it answers in well under 1 ms). */
const RELAY_WAIT_MS = 2_000;
/** How long a stopping thread may take to close before it is ended. */
const STOP_GRACE_MS = 5_000;

export interface StudioThread {
  /** Passes a studio request to the thread and its answer back. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  stop(): Promise<void>;
}

export async function startStudioThread(options: {
  dir: string;
  port: number;
  logger: Logger;
  /** The server's picture queue, asked for what a catalog page misses. */
  examples: { request(modelId: string): void; onFailed(listener: (modelId: string) => void): void };
  /** The server's signals: a revocation made in the studio is heard here before the studio answers. */
  signals: RunSignals;
  /** Called when the thread ends without being stopped (out of memory, a crash). */
  onExit?: () => void;
}): Promise<StudioThread> {
  // A Unix socket path has ~100 bytes: a short name in the temporary folder.
  const socket = path.join(tmpdir(), `atelier-studio-${process.pid}-${randomBytes(4).toString("hex")}.sock`);
  const data: ThreadData = { dir: options.dir, port: options.port, socket };
  // A young generation of 12 MB, not V8's 48: renders allocate in bursts, and the semi-spaces grew to
  // 32 MB and stayed resident while idle (the thread's heap 132 -> 108 MB). An old generation of
  // 256 MB: under 3 minutes of catalog pages V8 let garbage pile up to a 384 MB heap before it
  // collected (116 MB live after a full collection); bounded, it collects sooner. A thread that
  // still runs out ends, and the next studio request starts another (onExit).
  const worker = startModuleThread(__filename, "serveStudio", data, {
    maxYoungGenerationSizeMb: 12,
    maxOldGenerationSizeMb: 256,
  });
  let stopped: (() => void) | null = null;
  const scrapes = new Map<number, (metrics: object[]) => void>();
  let nextScrape = 0;
  await new Promise<void>((resolve, reject) => {
    worker.on("message", (m: FromThread) => {
      if (m.type === "ready") resolve();
      else if (m.type === "failed") reject(new Error(`the studio thread could not start: ${m.message}`));
      else if (m.type === "example_wanted") options.examples.request(m.modelId);
      else if (m.type === "stopped") stopped?.();
      else if (m.type === "metrics") scrapes.get(m.id)?.(m.metrics);
      else if (m.type === "signal") {
        options.signals.receive(m.message);
        worker.postMessage({ type: "signal_heard", id: m.id } satisfies ToThread);
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the studio thread ended during its start (exit ${code})`)));
  });
  worker.on("error", (err) => options.logger.error({ err }, "the studio thread failed"));
  let stopping = false;
  options.examples.onFailed((modelId) => worker.postMessage({ type: "example_failed", modelId } satisfies ToThread));
  const removeMetrics = addMetricsSource(
    () =>
      new Promise<object[]>((resolve) => {
        const id = nextScrape++;
        const answer = (metrics: object[]) => (scrapes.delete(id), resolve(metrics));
        scrapes.set(id, answer);
        // A thread that does not answer (stopping) leaves the scrape to this thread's own.
        setTimeout(() => answer([]), 1_000).unref();
        worker.postMessage({ type: "metrics", id } satisfies ToThread);
      }),
  );

  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  worker.once("exit", (code) => {
    if (stopping) return;
    options.logger.error({ code }, "the studio thread ended; the next studio request starts another");
    removeMetrics();
    agent.destroy();
    rmSync(socket, { force: true });
    options.onExit?.();
  });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = http.request(
      { socketPath: socket, agent, method: req.method, path: req.url, headers },
      (answer) => {
        const answerHeaders = { ...answer.headers };
        for (const name of HOP_BY_HOP) delete answerHeaders[name];
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    upstream.on("error", (err) => {
      if (res.headersSent) return void res.destroy();
      options.logger.error({ err, path: req.url }, "the studio thread did not answer");
      res.writeHead(502, { "content-type": "text/plain; charset=utf-8" });
      res.end("The studio is not answering. Try again in a moment.");
    });
    // A client that goes away ends the request in the thread too (a live-run stream, a slow page).
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  return {
    handle,
    async stop() {
      stopping = true;
      removeMetrics();
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
        setTimeout(resolve, STOP_GRACE_MS).unref();
      });
      worker.postMessage({ type: "stop" } satisfies ToThread);
      await done;
      agent.destroy();
      await worker.terminate();
      rmSync(socket, { force: true });
    },
  };
}

/** The thread's side: the runtime, the picture queue's stand-in, Next, and a server on the socket. */
export function serveStudio(): void {
  const port = parentPort;
  if (!port) throw new Error("serveStudio runs in a worker thread");
  const data = workerData as ThreadData;
  const send = (m: FromThread) => port.postMessage(m);
  void (async () => {
    const config = loadedConfig();
    const logger = createLogger(config.logLevel);
    const runtime = await startRuntime(config, logger, { backgroundCheckpoints: false, applyProvidersFile: false });
    // Revocations made here reach the API's thread before the studio answers (run-signals.ts).
    const relayed = new Map<number, () => void>();
    let nextRelay = 0;
    runtime.services.signals.setHostRelay(
      (message) =>
        new Promise<void>((resolve) => {
          const id = nextRelay++;
          const heard = () => (relayed.delete(id), clearTimeout(timer), resolve());
          const timer = setTimeout(heard, RELAY_WAIT_MS);
          relayed.set(id, heard);
          send({ type: "signal", id, message });
        }),
    );
    // What the studio's pages read (lib/boot/runtime.ts), as server.ts provides it on its own thread.
    (globalThis as { atelierRuntime?: unknown }).atelierRuntime = {
      store: runtime.store,
      services: runtime.services,
      config,
    };
    // The picture queue's stand-in (lib/core/catalog/example-outputs.ts): a missing picture is
    // asked of the server's queue, and pending until it is stored or the server says it failed.
    const asked = new Set<string>();
    const failed = new Set<string>();
    (globalThis as { atelierExampleQueue?: unknown }).atelierExampleQueue = {
      request(modelId: string) {
        if (failed.has(modelId) || asked.has(modelId)) return;
        asked.add(modelId);
        send({ type: "example_wanted", modelId });
      },
      pending: (modelId: string) => asked.has(modelId) && !failed.has(modelId),
    };
    // Node keeps the source map of every module it loads while maps are on (tsx turns them on), and
    // Next's server chunks come with ~160 MB of them: parsed and held, they were 270 MB of this
    // thread's 374 MB heap. Our own modules above keep theirs; Next's chunks load without.
    process.setSourceMapsEnabled(false);
    const studio = next({ dev: false, dir: data.dir, port: data.port });
    await studio.prepare();
    const handleStudio = studio.getRequestHandler();
    const server = http.createServer((req, res) => void handleStudio(req, res));
    // Its only client is the server's thread, whose agent keeps connections for reuse: an idle
    // timeout here would race that reuse (a request sent as the connection closes, a 502).
    server.keepAliveTimeout = 0;
    rmSync(data.socket, { force: true });
    await new Promise<void>((resolve) => server.listen(data.socket, resolve));
    port.on("message", (m: ToThread) => {
      if (m.type === "signal_heard") {
        relayed.get(m.id)?.();
        return;
      }
      if (m.type === "example_failed") {
        failed.add(m.modelId);
        return;
      }
      if (m.type === "metrics") {
        void metricsAsJson().then((metrics) => send({ type: "metrics", id: m.id, metrics }));
        return;
      }
      server.close();
      server.closeAllConnections();
      runWatchFor(runtime.store.db, runtime.services.signals).closeAll();
      runtime.catalog.stop();
      void runtime.crossProcess
        .close()
        .catch(() => undefined)
        .then(() => runtime.store.close())
        .finally(() => send({ type: "stopped" }));
    });
    send({ type: "ready" });
  })().catch((err: unknown) => send({ type: "failed", message: err instanceof Error ? err.message : String(err) }));
}
