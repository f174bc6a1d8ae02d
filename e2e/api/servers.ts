// The production servers the API tests run against, each with its own fresh data dir under
// .data-e2e/. Shared by playwright.config.ts (which starts them) and the tests (which call
// them over HTTP and run the admin CLI against the same data dir).
import path from "node:path";
import pg from "pg";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");

export interface ServerSpec {
  name: string;
  port: number;
  /** Absolute data dir, shared with the admin CLI. */
  dataDir: string;
  baseURL: string;
  ipPerMin: number;
  keyPerMin: number;
  /** PostgreSQL database (dropped and created afresh at start) when the store is PostgreSQL; null for SQLite. */
  pgDatabase: string | null;
  /** WORKER_CONCURRENCY of the server process; null leaves the server's default. */
  workers: number | null;
  /** More environment for this server only. */
  env: Record<string, string>;
  /** Started by the one spec file that uses it (server-start.ts), not by the global setup. */
  startedBySpec: boolean;
}

export function serverSpec(
  name: string,
  port: number,
  ipPerMin: number,
  keyPerMin: number,
  options: { pgDatabase?: string | null; workers?: number; env?: Record<string, string>; startedBySpec?: boolean } = {},
): ServerSpec {
  return {
    name,
    port,
    dataDir: path.join(REPO_ROOT, ".data-e2e", name),
    baseURL: `http://127.0.0.1:${port}`,
    ipPerMin,
    keyPerMin,
    pgDatabase: options.pgDatabase ?? null,
    workers: options.workers ?? null,
    env: options.env ?? {},
    startedBySpec: options.startedBySpec ?? false,
  };
}

/** The fake remote provider the models server's PROVIDERS_FILE points at (models-*.spec.ts start it). */
export const FAKE_PROVIDER_PORT = 3398;

/**
 * The S3-compatible server (s3rver, lib/blobs/testing/test-s3-server.ts) the config starts before the
 * Atelier servers: the PostgreSQL runs servers keep files and outputs in its bucket, each under its
 * own prefix, so every blob path of the runs suites runs on the disk (SQLite) and on the bucket.
 */
export const TEST_S3 = {
  port: 3390,
  bucket: "atelier-e2e",
  endpoint: "http://127.0.0.1:3390",
  dataDir: path.join(REPO_ROOT, ".data-e2e", "s3"),
} as const;

/** The environment that puts a server's (or worker's) files and outputs in the test bucket under `prefix`. */
export function bucketEnv(prefix: string): Record<string, string> {
  return {
    S3_BUCKET: TEST_S3.bucket,
    S3_PREFIX: prefix,
    S3_ENDPOINT: TEST_S3.endpoint,
    S3_REGION: "us-east-1",
    S3_FORCE_PATH_STYLE: "1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_EC2_METADATA_DISABLED: "true",
  };
}

/** The PostgreSQL server the PostgreSQL-backed test servers use (trust auth, user postgres). */
export const PG_SERVER_URL = (process.env.ATELIER_E2E_PG_URL || "postgres://postgres@127.0.0.1:5432").replace(
  /\/+$/,
  "",
);

/** The database URL of a PostgreSQL-backed server spec. */
export function pgUrl(database: string): string {
  return `${PG_SERVER_URL}/${database}`;
}

/** Drops `database` (closing its connections) and creates it empty: a fresh store for a server of a test's own. */
export async function resetPgDatabase(database: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(`drop database if exists ${database} with (force)`);
    await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
}

export const SERVERS = {
  /** Everything but the rate-limit tests: limits so high no test trips them. */
  main: serverSpec("main", 3301, 100_000, 100_000),
  /** Only rate-limits.spec.ts calls it, and starts it: 8 requests a minute per IP. */
  ipLimit: serverSpec("ip-limit", 3302, 8, 100_000, { startedBySpec: true }),
  /** rate-limits.spec.ts and mcp.spec.ts spend keys on it: 4 requests a minute per key. */
  keyLimit: serverSpec("key-limit", 3303, 1000, 4),

  // The runs suites (runs-*.spec.ts), each on both stores. "busy" runs its queue in the server
  // (2 worker slots); "idle" has no worker, so runs stay queued; "workers" has no worker either
  // and only runs-workers.spec.ts uses it, starting and killing worker processes of its own.
  runsSqlite: serverSpec("runs-sqlite", 3311, 100_000, 100_000, { workers: 2 }),
  runsSqliteIdle: serverSpec("runs-sqlite-idle", 3312, 100_000, 100_000, { workers: 0 }),
  runsSqliteWorkers: serverSpec("runs-sqlite-workers", 3313, 100_000, 100_000, { workers: 0, startedBySpec: true }),
  // The PostgreSQL ones keep files and outputs in the test bucket (TEST_S3), the SQLite ones on disk.
  runsPostgres: serverSpec("runs-postgres", 3321, 100_000, 100_000, {
    workers: 2,
    pgDatabase: "atelier_e2e_runs",
    env: bucketEnv("runs-postgres/"),
  }),
  runsPostgresIdle: serverSpec("runs-postgres-idle", 3322, 100_000, 100_000, {
    workers: 0,
    pgDatabase: "atelier_e2e_runs_idle",
    env: bucketEnv("runs-postgres-idle/"),
  }),
  runsPostgresWorkers: serverSpec("runs-postgres-workers", 3323, 100_000, 100_000, {
    workers: 0,
    startedBySpec: true,
    pgDatabase: "atelier_e2e_runs_workers",
    env: bucketEnv("runs-postgres-workers/"),
  }),

  // Issue 4's suites (models-*.spec.ts): every built-in model, moderation, a remote provider.
  models: serverSpec("models", 3331, 100_000, 100_000, {
    workers: 2,
    env: {
      MODERATION_BLOCKLIST: "forbiddenword,never say this",
      PROVIDERS_FILE: path.join(REPO_ROOT, "e2e", "api", "fixtures", "providers.json"),
      FAKE_PROVIDER_KEY: "sk-e2e-fake-provider",
    },
  }),

  // Issue 5's suites (webhooks-*.spec.ts): insecure webhooks (local receivers), a short retry
  // schedule, and the engine's purge of events past 30 days every second instead of hourly.
  webhooks: serverSpec("webhooks", 3341, 100_000, 100_000, {
    workers: 2,
    env: {
      WEBHOOK_ALLOW_INSECURE: "1",
      WEBHOOK_RETRY_SCHEDULE: "0,0.3,0.3,0.3,0.3,0.3,0.3,0.3",
      EVENTS_PURGE_INTERVAL_SECONDS: "1",
    },
  }),
} as const satisfies Record<string, ServerSpec>;

/** Environment both the server and the admin CLI need to share one store. */
export function storeEnv(spec: ServerSpec): Record<string, string> {
  return {
    // Also on PostgreSQL: the secret key lives in the data dir, and so do the blobs (outputs,
    // files) unless spec.env names a bucket.
    DATA_DIR: spec.dataDir,
    // Never let an inherited DATABASE_URL move a SQLite server's store to PostgreSQL.
    DATABASE_URL: spec.pgDatabase ? pgUrl(spec.pgDatabase) : "",
    API_KEY_PREFIX: "atl",
    // The same catalog for the CLI (PROVIDERS_FILE) and the same rules.
    ...spec.env,
  };
}

/** Everything a server process of `spec` runs with: the store's environment and the server's own settings. */
export function serverEnv(spec: ServerSpec): Record<string, string> {
  return {
    ...storeEnv(spec),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    // Fifteen servers making every catalog card's picture at once would slow the whole suite;
    // a page that shows the catalog still gets its pictures made when it asks.
    EXAMPLE_PICTURES: "on-demand",
    // Most of these servers never serve a studio page: each would spend ~6 s of CPU starting the
    // studio's thread. The tests that open a page start it on demand (and so test that path).
    STUDIO_START: "on-demand",
    PORT: String(spec.port),
    PUBLIC_BASE_URL: "",
    LOG_LEVEL: "warn",
    RATE_LIMIT_IP_PER_MIN: String(spec.ipPerMin),
    RATE_LIMIT_KEY_PER_MIN: String(spec.keyPerMin),
    ...(spec.workers === null ? {} : { WORKER_CONCURRENCY: String(spec.workers) }),
  };
}

/**
 * replicas.spec.ts (issue 17, "many replicas"): two servers with no worker slots and two
 * `npm run worker` processes of its own, on one PostgreSQL database and one bucket prefix, plus a
 * local webhook receiver. Started and stopped by that file, not by playwright.config.ts.
 */
export const REPLICAS = {
  database: "atelier_e2e_replicas",
  bucketPrefix: "replicas/",
  ports: { a: 3346, b: 3347, receiver: 3348 },
} as const;
