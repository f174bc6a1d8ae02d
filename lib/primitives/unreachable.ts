// Telling "the store cannot be reached right now" apart from every other failure, in one place.
// Such an error is an outage, not a bug: the doors answer 503 service_unavailable with a
// Retry-After (lib/primitives/errors.ts) and log it briefly, and the pools and the LISTEN connection
// survive it. Everything else stays an internal error with its stack.
import type { Logger } from "pino";

/** Node's socket errors for a server that is gone, refusing, unreachable or not answering. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * PostgreSQL SQLSTATEs of an outage: class 08 (connection exception) is matched by its prefix;
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in
 * recovery), 53300 too_many_connections.
 */
const PG_OUTAGE_CODES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** pg and pg-pool say it in words only (no code) when a connection dies or cannot be had. */
const PG_OUTAGE_MESSAGES = [
  /^Connection terminated/, // "Connection terminated unexpectedly", "… due to connection timeout", "Connection terminated"
  /^timeout exceeded when trying to connect/, // pg-pool's connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/,
  /^Connection timeout/,
];

function isOutage(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || PG_OUTAGE_CODES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    // better-sqlite3 gives extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …), and
    // only once the lock wait (lib/store/dialects.ts) has passed: another connection holds the lock for too long.
    if (/^SQLITE_(BUSY|LOCKED)(_|$)/.test(code)) return true;
  }
  return PG_OUTAGE_MESSAGES.some((pattern) => pattern.test(err.message));
}

/**
 * Whether `err` means the store cannot be reached for now (PostgreSQL down, restarting, cut off
 * or full; SQLite locked by another connection past the busy timeout) rather than a failure of
 * the request itself. Looks through wrappers: `cause` chains and AggregateError's `errors`.
 * Only Error objects count: drivers throw nothing else.
 */
export function storeUnreachable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 32) {
    const current = queue.shift();
    if (!(current instanceof Error) || seen.has(current)) continue;
    seen.add(current);
    if (isOutage(current)) return true;
    if (current.cause !== undefined) queue.push(current.cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return false;
}

/** The short form of an outage error for a log line: no stack, it says nothing new. */
export function outageSummary(err: unknown): { code: string | null; message: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return { code: typeof code === "string" ? code : null, message: err instanceof Error ? err.message : String(err) };
}

/** At most one outage line per this long per process; the next one counts what it left out. */
const OUTAGE_LOG_EVERY_MS = 10_000;
let lastOutageLogAt = -Infinity;
let outagesNotLogged = 0;

/**
 * Logs a request that met an unreachable store at warn, briefly and at most once every 10 s: an
 * outage under load would otherwise write a stack per request.
 */
export function logStoreUnreachable(
  logger: Pick<Logger, "warn">,
  err: unknown,
  fields: Record<string, unknown> = {},
  message = "the store cannot be reached: answering 503 service_unavailable",
): void {
  const now = Date.now();
  if (now - lastOutageLogAt < OUTAGE_LOG_EVERY_MS) {
    outagesNotLogged += 1;
    return;
  }
  const alsoSince = outagesNotLogged;
  lastOutageLogAt = now;
  outagesNotLogged = 0;
  logger.warn(
    { ...fields, cause: outageSummary(err), ...(alsoSince > 0 ? { similarSinceLastLine: alsoSince } : {}) },
    message,
  );
}
