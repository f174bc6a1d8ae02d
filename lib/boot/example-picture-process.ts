// The catalog card pictures are made in a child process of their own. Making one runs a built-in
// model (a music render, a 3D poster, a preset's steps): hundreds of milliseconds of JavaScript at
// a stretch, which on the event loop would hold up every request meanwhile, for minutes after a
// start (EXAMPLE_PICTURES=all) or whenever a catalog page asks for a missing picture. A process,
// not a thread: it ends when idle, and what it held goes back to the system with it (a thread's
// ~80 MB stayed in the server's memory). The queue stays with the server
// (lib/core/catalog/example-outputs.ts); the process makes one picture at a time, in the order asked.
import type { Logger } from "pino";
import { pictureDirectoryAt, type PictureDirectory } from "../blobs/picture-directory";
import { findCatalogEntry } from "../core/catalog/catalog";
import { createExampleMaker, type ExampleMaker } from "../core/catalog/example-outputs";
import { installCatalog } from "./boot";
import { config as loadedConfig } from "./config";
import { moduleProcessPort, startModuleProcess, type ModuleProcess } from "./module-process";

interface ProcessData {
  picturesRoot: string;
  ffmpegPath: string;
}

type Request = { id: number; modelId: string };

/** How long the process stays after its last picture, in case a page asks for another soon. */
const IDLE_MS = 30_000;
type Answer = { id: number; made?: boolean; error?: string };

/** The process starts with the first picture asked for: a server whose pictures are all made never starts it. */
export function startExamplePictureProcess(options: {
  pictures: PictureDirectory;
  ffmpegPath: string;
  logger?: Pick<Logger, "warn">;
  /** How long the process stays after its last picture (tests shorten it). */
  idleMs?: number;
}): ExampleMaker & { stop(): Promise<void>; readonly running: boolean; readonly pid: number | undefined } {
  const waiting = new Map<number, { resolve(made: boolean): void; reject(err: Error): void }>();
  let next = 0;
  let ended: Error | null = null;
  let worker: ModuleProcess | null = null;
  const endAll = (err: Error) => {
    ended ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  let idleTimer: NodeJS.Timeout | null = null;
  const start = (): ModuleProcess => {
    const data: ProcessData = { picturesRoot: options.pictures.root, ffmpegPath: options.ffmpegPath };
    const started = startModuleProcess(__filename, "serveExamplePictures", data);
    started.on("message", (message) => {
      const answer = message as Answer;
      const w = waiting.get(answer.id);
      if (!w) return;
      waiting.delete(answer.id);
      if (waiting.size === 0) {
        // An idle process does not keep the server alive, and goes after a while: the models it
        // loaded to make pictures hold ~150 MB a server that made them all never needs again.
        started.unref();
        idleTimer = setTimeout(() => {
          if (worker !== started || waiting.size > 0) return;
          worker = null;
          void started.terminate();
        }, options.idleMs ?? IDLE_MS);
        idleTimer.unref();
      }
      if (answer.error !== undefined) w.reject(new Error(answer.error));
      else w.resolve(answer.made === true);
    });
    started.on("error", (err) => {
      options.logger?.warn({ err: err.message }, "the catalog picture process failed; cards keep their icons");
      endAll(err);
    });
    // Ended while idle, it starts again with the next picture asked for; otherwise it failed.
    started.on("exit", () => {
      if (worker === started) endAll(new Error("the catalog picture process has ended"));
    });
    return started;
  };
  return {
    make(modelId) {
      if (ended) return Promise.reject(ended);
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      worker ??= start();
      worker.ref();
      const id = next++;
      const child = worker;
      return new Promise<boolean>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.postMessage({ id, modelId } satisfies Request);
      });
    },
    async stop() {
      ended ??= new Error("the catalog picture process was stopped");
      if (idleTimer) clearTimeout(idleTimer);
      const stopping = worker;
      worker = null;
      await stopping?.terminate();
    },
    get running() {
      return worker !== null;
    },
    /** The child process's, while it runs. */
    get pid() {
      return worker?.pid;
    },
  };
}

/** The process's side: the catalog as the server has it, then one picture at a time. */
export function serveExamplePictures(): void {
  const port = moduleProcessPort();
  installCatalog(loadedConfig());
  const data = port.data as ProcessData;
  const maker = createExampleMaker({ pictures: pictureDirectoryAt(data.picturesRoot), ffmpegPath: data.ffmpegPath });
  let chain = Promise.resolve();
  port.on((message) => {
    const { id, modelId } = message as Request;
    chain = chain.then(async () => {
      let answer: Answer;
      try {
        answer = { id, made: await maker.make(findCatalogEntry(modelId).definition) };
      } catch (err) {
        answer = { id, error: err instanceof Error ? err.message : String(err) };
      }
      port.post(answer);
    });
  });
}
