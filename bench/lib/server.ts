// Starting the production server (and worker processes) on a fresh store, the admin CLI on
// the same store, and reading the server's probe (store queries) and RSS.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ADMIN_CLI, buildAdminCli } from "../../e2e/admin-cli";
import { sleep } from "./stats";

export const ROOT = path.resolve(__dirname, "..", "..");
const PROBE = path.join(ROOT, "bench", "probe.ts");

export interface StoreSpec {
  dataDir: string;
  /** "" for SQLite. */
  databaseUrl: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export const PG_SERVER_URL = (process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432").replace(/\/+$/, "");

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres`, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A fresh data dir, and with `pgDatabase` a fresh PostgreSQL database (dropped and created). */
export async function freshStore(name: string, pgDatabase: string | null): Promise<StoreSpec> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `atelier-bench-${name}-`));
  if (!pgDatabase) return { dataDir, databaseUrl: "" };
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${pgDatabase}`);
  } finally {
    await client.end();
  }
  return { dataDir, databaseUrl: `${PG_SERVER_URL}/${pgDatabase}` };
}

export async function dropStore(store: StoreSpec): Promise<void> {
  rmSync(store.dataDir, { recursive: true, force: true });
  if (!store.databaseUrl) return;
  const database = new URL(store.databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

function storeEnv(store: StoreSpec): Record<string, string> {
  return {
    DATA_DIR: store.dataDir,
    DATABASE_URL: store.databaseUrl,
    API_KEY_PREFIX: "atl",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

let adminBuilt = false;

/** The admin CLI on `store`, bundled once per bench run (as the end-to-end tests run it): 0.35 s a call, not 1 s under tsx. */
export function admin<T = Record<string, unknown>>(store: StoreSpec, args: string[]): T {
  if (!adminBuilt) {
    buildAdminCli();
    adminBuilt = true;
  }
  const out = execFileSync(process.execPath, [ADMIN_CLI, "--json", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...storeEnv(store) },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out) as T;
}

export interface Started {
  pid: number;
  stop(): Promise<void>;
}

export interface ServerHandle extends Started {
  port: number;
  /** http://127.0.0.1:port for the API. */
  api: string;
  /** http://localhost:port for the studio (next-auth follows PUBLIC_BASE_URL's host). */
  studio: string;
  store: StoreSpec;
  /** Store statements sent by the server process so far. */
  queries(): Promise<number>;
  /** HTTP requests the server process has received so far (their heads parsed). */
  requests(): Promise<number>;
  /** The server process's resident set, in bytes (/proc). */
  rss(): number;
  /** How late the server's event loop ran since the last call (p99 and most, ms); starts over. */
  loopDelay(): Promise<{ p99Ms: number; maxMs: number }>;
}

export interface ProcessOptions {
  store: StoreSpec;
  workers: number;
  env?: Record<string, string>;
  /** Directory for node --cpu-prof output, or null. */
  cpuProfDir: string | null;
  label: string;
}

function nodeArgs(options: ProcessOptions, entry: string): string[] {
  const args: string[] = [];
  if (options.cpuProfDir) {
    mkdirSync(options.cpuProfDir, { recursive: true });
    args.push("--cpu-prof", "--cpu-prof-dir", path.join(options.cpuProfDir, options.label));
  }
  args.push("--import", "tsx", "--import", PROBE, entry);
  return args;
}

function watch(child: ChildProcess, label: string): { stderr: () => string } {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  child.stdout?.resume();
  child.once("exit", (code, signal) => {
    if (code !== 0 && code !== null && signal === null)
      process.stderr.write(`[bench] ${label} exited with ${code}\n${stderr}\n`);
  });
  return { stderr: () => stderr };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    process.stderr.write(`[bench] pid ${child.pid} did not stop within 15 s of SIGTERM: killed\n`);
    child.kill("SIGKILL");
  }, 15_000);
  await exited;
  clearTimeout(timer);
}

export async function startServer(options: ProcessOptions): Promise<ServerHandle> {
  const port = await freePort();
  const probePort = await freePort();
  const child = spawn(process.execPath, nodeArgs(options, "server.ts"), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...storeEnv(options.store),
      NODE_ENV: "production",
      PORT: String(port),
      PUBLIC_BASE_URL: "",
      WORKER_CONCURRENCY: String(options.workers),
      RATE_LIMIT_IP_PER_MIN: "1000000",
      RATE_LIMIT_KEY_PER_MIN: "1000000",
      WEBHOOK_ALLOW_INSECURE: "1",
      BENCH_PROBE_PORT: String(probePort),
      // The catalog cards' pictures (music, video, images) would otherwise be made in the
      // background during the first minutes, taking CPU from whatever the bench measures then.
      EXAMPLE_PICTURES: "on-demand",
      ...options.env,
    },
  });
  const log = watch(child, options.label);
  const api = `http://127.0.0.1:${port}`;
  const readProbe = async (reset = false) => {
    const res = await fetch(`http://127.0.0.1:${probePort}/${reset ? "?reset" : ""}`);
    return (await res.json()) as { queries: number; requests: number; loop: { p99Ms: number; maxMs: number } };
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.label}: the server exited during start:\n${log.stderr()}`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${options.label}: the server did not answer within 120 s:\n${log.stderr()}`);
    }
    try {
      const res = await fetch(`${api}/v1/public/models`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  return {
    pid: child.pid!,
    port,
    api,
    studio: `http://localhost:${port}`,
    store: options.store,
    async queries() {
      return (await readProbe()).queries;
    },
    async requests() {
      return (await readProbe()).requests;
    },
    async loopDelay() {
      return (await readProbe(true)).loop;
    },
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status);
      return kb ? Number(kb[1]) * 1024 : NaN;
    },
    stop: () => stopChild(child),
  };
}

/** A separate run-engine process (bin/worker.ts) on the same store. */
export async function startWorker(options: ProcessOptions): Promise<Started> {
  const child = spawn(process.execPath, nodeArgs(options, "bin/worker.ts"), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...storeEnv(options.store),
      WORKER_CONCURRENCY: String(Math.max(1, options.workers)),
      WEBHOOK_ALLOW_INSECURE: "1",
      LOG_LEVEL: "info",
      ...options.env,
    },
  });
  watch(child, options.label);
  // Ready once it logs that it started (pino JSON on stdout).
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${options.label}: the worker did not start within 60 s`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("worker started")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`${options.label}: the worker exited (${code})`)));
  });
  return { pid: child.pid!, stop: () => stopChild(child) };
}

/** A workspace with credit and a key on the server's store. */
/**
 * A workspace whose key a member made, with a workspace, a member and a key budget all set (caps
 * far above what a run of the bench spends): every create moves three budgets' counters.
 */
export function budgetedWorkspaceWithKey(
  store: StoreSpec,
  name: string,
  creditUsd: string,
): { workspaceId: string; key: string } {
  const ws = admin<{ id: string }>(store, ["workspace", "create", "--name", name, "--credit", creditUsd]);
  const email = `${name}-${Date.now().toString(36)}@example.com`;
  admin(store, [
    "user",
    "create",
    "--email",
    email,
    "--password",
    "bench-pass-1",
    "--workspace",
    ws.id,
    "--role",
    "admin",
  ]);
  const key = admin<{ id: string; key: string }>(store, [
    ...["key", "create", "--workspace", ws.id, "--name", "bench", "--member", email],
  ]);
  const caps = ["--daily", "100000", "--monthly", "1000000"];
  admin(store, ["budget", "set", "--workspace", ws.id, ...caps]);
  admin(store, ["budget", "set", "--workspace", ws.id, "--member", email, ...caps]);
  admin(store, ["budget", "set", "--workspace", ws.id, "--key", key.id, ...caps]);
  return { workspaceId: ws.id, key: key.key };
}

export function workspaceWithKey(
  store: StoreSpec,
  name: string,
  creditUsd: string,
): { workspaceId: string; key: string } {
  const ws = admin<{ id: string }>(store, ["workspace", "create", "--name", name, "--credit", creditUsd]);
  const key = admin<{ key: string }>(store, ["key", "create", "--workspace", ws.id, "--name", "bench"]);
  return { workspaceId: ws.id, key: key.key };
}
