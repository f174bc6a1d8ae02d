// Whether this process can serve now (GET /readyz): the store answers a cheap query within a
// short timeout, its schema is current (the store's migration table names exactly the
// migrations this code ships), and, when files and outputs live in a bucket, the bucket answers. A result is kept about a second, and checks in flight are shared, so a
// load balancer asking many times a second costs the store at most two small queries a second.
import { DEFAULT_MIGRATION_TABLE, sql, type Kysely } from "kysely";
import type { Database } from "./database";
import { MIGRATIONS } from "./migrations";

export type CheckState = "ok" | "failed" | "skipped";

export interface ReadinessReport {
  ready: boolean;
  /** store and schema always; bucket only when a bucket check is given. */
  checks: Record<string, CheckState>;
  /** Why each failed check failed, in words for ops. */
  errors: Record<string, string>;
}

export interface ReadinessOptions {
  db: Kysely<Database>;
  /** How long the store may take to answer (each query). */
  timeoutMs?: number;
  /** The migrations this code ships; the store's table must name exactly these. */
  migrations?: readonly string[];
  /** The bucket check (S3_BUCKET): resolves when the bucket answers. */
  bucket?: () => Promise<void>;
}

export const READINESS_TIMEOUT_MS = 2_000;
export const READINESS_CACHE_MS = 1_000;
/** Store queries of earlier checks still waiting (a store that stopped answering): no more are sent. */
const MAX_HUNG_QUERIES = 3;

class TimeoutError extends Error {}

function explain(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message || err.name : String(err);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/** A check's verdict on what the schema lacks or has too much, or null when it matches. */
export function schemaMismatch(applied: readonly string[], shipped: readonly string[]): string | null {
  if (applied.length === 0)
    return "the store has no migrations applied (it was never migrated). Run `npm run admin -- migrate`, or start the server, which migrates.";
  const missing = shipped.filter((name) => !applied.includes(name));
  const unknown = applied.filter((name) => !shipped.includes(name));
  const parts: string[] = [];
  if (missing.length)
    parts.push(
      `${missing.length} migration(s) this code ships are not applied: ${missing.join(", ")}. Run \`npm run admin -- migrate\`, or restart the server, which migrates`,
    );
  if (unknown.length)
    parts.push(
      `the store has migration(s) this code does not ship: ${unknown.join(", ")} (a newer version migrated it; run that version)`,
    );
  return parts.length ? `${parts.join("; ")}.` : null;
}

function isMissingTable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL: 42P01 undefined_table; SQLite: "no such table".
  return code === "42P01" || (err instanceof Error && /no such table/i.test(err.message));
}

/** Runs the checks once, uncached. */
export function readinessChecker(options: ReadinessOptions): () => Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const shipped = options.migrations ?? Object.keys(MIGRATIONS);
  let hung = 0;

  /** `query` within the timeout; a query past it stays counted as hung until it settles. */
  const within = async <T>(query: () => Promise<T>): Promise<T> => {
    if (hung >= MAX_HUNG_QUERIES) throw new TimeoutError(`earlier queries have had no answer for over ${timeoutMs} ms`);
    const running = query();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        hung += 1;
        void running.then(
          () => (hung -= 1),
          () => (hung -= 1),
        );
        reject(new TimeoutError(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([running, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return async () => {
    const checks: Record<string, CheckState> = { store: "skipped", schema: "skipped" };
    const errors: Record<string, string> = {};
    try {
      await within(() => sql`select 1`.execute(options.db));
      checks.store = "ok";
    } catch (err) {
      checks.store = "failed";
      errors.store = `the store cannot be reached: ${explain(err)}`;
    }
    if (checks.store === "ok") {
      try {
        const { rows } = await within(() =>
          sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(options.db),
        );
        const mismatch = schemaMismatch(
          rows.map((r) => r.name),
          shipped,
        );
        checks.schema = mismatch ? "failed" : "ok";
        if (mismatch) errors.schema = `the schema is not current: ${mismatch}`;
      } catch (err) {
        checks.schema = "failed";
        errors.schema = isMissingTable(err)
          ? `the schema is not current: ${schemaMismatch([], shipped)}`
          : `the migrations applied could not be read: ${explain(err)}`;
      }
    }
    if (options.bucket) {
      try {
        await within(options.bucket);
        checks.bucket = "ok";
      } catch (err) {
        checks.bucket = "failed";
        errors.bucket = `the bucket cannot be reached: ${explain(err)}`;
      }
    }
    return { ready: Object.values(checks).every((state) => state === "ok"), checks, errors };
  };
}

/**
 * The checks behind GET /readyz: a result is reused for `cacheMs` after it was made, and callers
 * arriving while a check runs share it.
 */
export function createReadiness(options: ReadinessOptions & { cacheMs?: number; now?: () => number }): {
  check(): Promise<ReadinessReport>;
} {
  const run = readinessChecker(options);
  const cacheMs = options.cacheMs ?? READINESS_CACHE_MS;
  const now = options.now ?? Date.now;
  let last: { at: number; report: ReadinessReport } | null = null;
  let running: Promise<ReadinessReport> | null = null;
  return {
    check() {
      if (last && now() - last.at < cacheMs) return Promise.resolve(last.report);
      running ??= run()
        .then((report) => {
          last = { at: now(), report };
          return report;
        })
        .finally(() => {
          running = null;
        });
      return running;
    },
  };
}
