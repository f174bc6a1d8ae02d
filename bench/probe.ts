// Preloaded into the benchmarked server process only (node --import tsx --import ./bench/probe.ts
// server.ts): counts the SQL statements the process sends to its store (every Kysely query
// runs one better-sqlite3 statement or sends one pg query) and answers the count on
// BENCH_PROBE_PORT. Nothing of it runs outside the benchmark.
import { createServer } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";

let queries = 0;

// Count executions, not prepares: the store keeps statements prepared (lib/store/dialects.ts).
const probeDb = new Database(":memory:");
const statementProto = Object.getPrototypeOf(probeDb.prepare("select 1")) as Record<string, (...args: unknown[]) => unknown>;
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

const port = Number(process.env.BENCH_PROBE_PORT ?? 0);
if (port > 0) {
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ queries, rss: process.memoryUsage.rss() }));
  });
  server.listen(port, "127.0.0.1");
  server.unref();
}
