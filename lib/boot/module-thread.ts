// A worker thread that runs one exported function of a module of ours. Under tsx (tests, `npm run
// dev`, the worker) the thread registers tsx's CommonJS loader itself, so it starts the same
// whatever loader the process runs under (tsx's CLI, `node --import tsx`, Vitest). In the
// production bundle (scripts/server-bundle.ts) each thread has a bundle of its own beside the
// server's, threads/<entry>.cjs, which calls the function. The function reads `workerData` (the
// data given here) and talks over `parentPort`.
import { createRequire } from "node:module";
import path from "node:path";
import { Worker, type ResourceLimits } from "node:worker_threads";

// Plain JavaScript: the worker evaluates it before any loader is there.
const THREAD_SOURCE = `
const { workerData } = require("node:worker_threads");
require(workerData.loader).register();
require(workerData.module)[workerData.entry]();
`;

/** `modulePath`: the caller's `__filename` (not `__dirname`: tsx gives a module imported from an ES module a wrong one). */
export function startModuleThread(
  modulePath: string,
  entry: string,
  data: object,
  resourceLimits: ResourceLimits = {},
): Worker {
  if (!modulePath.endsWith(".ts")) {
    // In a bundle, `modulePath` is the bundle's own file.
    const bundle = path.join(path.dirname(modulePath), "threads", `${entry}.cjs`);
    return new Worker(bundle, { workerData: data, resourceLimits });
  }
  const loader = createRequire(modulePath).resolve("tsx/cjs/api");
  return new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { ...data, loader, module: modulePath, entry },
    resourceLimits,
  });
}
