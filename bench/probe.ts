// Preloaded into the benchmarked server process only (node --import tsx --import ./bench/probe.ts
// server.ts): counts the SQL statements the process sends to its store (every Kysely query
// runs one better-sqlite3 statement or sends one pg query) and the HTTP requests its servers
// have received, and how late its event loop ran (since the last look that reset it), and answers
// them on BENCH_PROBE_PORT. Nothing of it runs outside the benchmark.
import http, { createServer } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import pg from "pg";
import { openSqliteDatabase } from "../lib/store/sqlite-binding";

let queries = 0;

// Count executions, not prepares: the store keeps statements prepared (lib/store/dialects.ts).
// The addon the store loads (lib/store/sqlite-binding.ts): its Statement prototype is the one to patch.
const probeDb = openSqliteDatabase(":memory:");
const statementProto = Object.getPrototypeOf(probeDb.prepare("select 1")) as Record<
  string,
  (...args: unknown[]) => unknown
>;
probeDb.close();
for (const method of ["all", "get", "run", "iterate"]) {
  const original = statementProto[method]!;
  statementProto[method] = function (this: unknown, ...args: unknown[]) {
    queries += 1;
    return original.apply(this, args);
  };
}

const pgProto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
const query = pgProto.query;
pgProto.query = function (this: unknown, ...args: unknown[]) {
  queries += 1;
  return query.apply(this, args);
};

// A request counts once node:http has parsed its head and hands it to the server's handler: a
// reader the bench opened has reached the process (not still in the kernel's backlog or
// retrying its handshake).
let requests = 0;
let probeServer: http.Server | null = null;
const serverProto = http.Server.prototype as unknown as {
  emit: (event: string | symbol, ...args: unknown[]) => boolean;
};
const emit = serverProto.emit;
serverProto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
  if (event === "request" && this !== probeServer) requests += 1;
  return emit.call(this, event, ...args);
};

// The event loop's lateness, sampled every 5 ms: a statement or a render that holds the loop shows here.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });

const port = Number(process.env.BENCH_PROBE_PORT ?? 0);
if (port > 0) {
  loopDelay.enable();
  const server = createServer((req, res) => {
    const ms = (ns: number) => ns / 1e6;
    const loop = { p99Ms: ms(loopDelay.percentile(99)), maxMs: ms(loopDelay.max) };
    if (req.url === "/?reset") loopDelay.reset();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ queries, requests, rss: process.memoryUsage.rss(), loop }));
  });
  probeServer = server;
  server.listen(port, "127.0.0.1");
  server.unref();
}
