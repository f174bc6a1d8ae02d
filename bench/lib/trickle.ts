// A steady trickle of one request, timed in a thread of its own. Timed in the thread that also
// sends the measured reads and parses their answers, a request would wait there for that work,
// and its p99 would show the load generator rather than the server.
import { Worker } from "node:worker_threads";

// Plain JavaScript: a worker evaluates it without the TypeScript loader the bench runs under.
const TRICKLE_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const { url, headers, everyMs } = workerData;
const times = {};
let phase = workerData.phase;
let running = true;
parentPort.on("message", (m) => {
  if (m.phase) phase = m.phase;
  if (m.stop) running = false;
});
(async () => {
  while (running) {
    const started = performance.now();
    const during = phase;
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error("GET " + url + ": " + res.status);
    (times[during] ??= []).push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (performance.now() - started))));
  }
  parentPort.postMessage(times);
})().catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

export interface Trickle {
  /** Later requests count toward this phase. */
  phase(name: string): void;
  /** Stops after the request under way; the times of each phase, in ms. */
  stop(): Promise<Record<string, number[]>>;
}

export function startTrickle(options: {
  url: string;
  headers: Record<string, string>;
  everyMs: number;
  phase: string;
}): Trickle {
  const worker = new Worker(TRICKLE_SOURCE, { eval: true, workerData: options });
  const done = new Promise<Record<string, number[]>>((resolve, reject) => {
    worker.once("message", (m: Record<string, number[]> & { error?: string }) =>
      m.error ? reject(new Error(m.error)) : resolve(m),
    );
    worker.once("error", reject);
  });
  return {
    phase: (name) => worker.postMessage({ phase: name }),
    async stop() {
      worker.postMessage({ stop: true });
      try {
        return await done;
      } finally {
        await worker.terminate();
      }
    },
  };
}
