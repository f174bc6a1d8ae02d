// A worker thread that runs one exported function of a TypeScript module of ours. The thread
// registers tsx's CommonJS loader itself, so it starts the same whatever loader the process runs
// under (tsx's CLI, `node --import tsx`, Vitest). The function reads `workerData` (the data given
// here) and talks over `parentPort`.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// Plain JavaScript: the worker evaluates it before any loader is there.
const THREAD_SOURCE = `
const { workerData } = require("node:worker_threads");
require(workerData.loader).register();
require(workerData.module)[workerData.entry]();
`;

/** `modulePath`: the caller's `__filename` (not `__dirname`: tsx gives a module imported from an ES module a wrong one). */
export function startTypeScriptThread(modulePath: string, entry: string, data: object): Worker {
  const loader = createRequire(modulePath).resolve("tsx/cjs/api");
  return new Worker(THREAD_SOURCE, { eval: true, workerData: { ...data, loader, module: modulePath, entry } });
}
