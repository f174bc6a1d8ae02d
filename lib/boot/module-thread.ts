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

/**
 * Where a thread or child process finds `entry` of the caller's module: the entry's own bundle
 * beside the production bundle, or (under tsx) the module and tsx's loader to register first.
 */
export function moduleEntryOf(
  modulePath: string,
  entry: string,
): { bundle: string } | { loader: string; module: string; entry: string } {
  // In a bundle, `modulePath` is the bundle's own file.
  if (!modulePath.endsWith(".ts")) return { bundle: path.join(path.dirname(modulePath), "threads", `${entry}.cjs`) };
  return { loader: createRequire(modulePath).resolve("tsx/cjs/api"), module: modulePath, entry };
}

/** `modulePath`: the caller's `__filename` (not `__dirname`: tsx gives a module imported from an ES module a wrong one). */
export function startModuleThread(
  modulePath: string,
  entry: string,
  data: object,
  resourceLimits: ResourceLimits = {},
): Worker {
  const found = moduleEntryOf(modulePath, entry);
  if ("bundle" in found) return new Worker(found.bundle, { workerData: data, resourceLimits });
  return new Worker(THREAD_SOURCE, { eval: true, workerData: { ...data, ...found }, resourceLimits });
}
