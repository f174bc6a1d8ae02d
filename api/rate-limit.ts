// Requests per IP and per API key per minute (rate-limiter-flexible): in memory on the embedded
// store, in the shared PostgreSQL table when several processes serve one database.
import pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../lib/config";
import { ApiError } from "../lib/core/errors";
import { LIMITS } from "../lib/core/limits";
import { METRICS } from "../lib/metrics";

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface RateLimits {
  consumeIp(ip: string): Promise<RateLimitState>;
  consumeKey(keyId: string): Promise<void>;
  close(): Promise<void>;
}

function limiter(points: number, keyPrefix: string, pool: pg.Pool | null): RateLimiterAbstract {
  const duration = LIMITS.rateLimitWindowSeconds;
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  if (!pool) return memory;
  return new RateLimiterPostgres({
    storeClient: pool,
    tableName: "rate_limits",
    tableCreated: true,
    points,
    duration,
    keyPrefix,
    // If the database hiccups, keep limiting in memory rather than failing requests.
    insuranceLimiter: memory,
  });
}

function state(limit: number, res: RateLimiterRes): RateLimitState {
  return { limit, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}

export function createRateLimits(config: Config): RateLimits {
  const pool = config.databaseUrl ? new pg.Pool({ connectionString: config.databaseUrl, max: 4, application_name: "atelier-rate-limits" }) : null;
  // An idle connection cut by a database restart: the pool drops it, and the insurance limiter
  // covers until the database is back. Without a listener it would be an uncaught exception.
  pool?.on("error", () => undefined);
  const byIp = limiter(config.rateLimitIpPerMin, "ip", pool);
  const byKey = limiter(config.rateLimitKeyPerMin, "key", pool);
  return {
    async consumeIp(ip) {
      try {
        return state(config.rateLimitIpPerMin, await byIp.consume(ip));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        METRICS.rateLimitRefusals.inc({ kind: "ip" });
        const s = state(config.rateLimitIpPerMin, rejection);
        throw Object.assign(
          new ApiError(
            "ip_rate_limit_exceeded",
            `Too many requests from this IP address: the limit is ${config.rateLimitIpPerMin} a minute. Try again in ${s.resetSeconds} s.`,
            { headers: { "Retry-After": String(s.resetSeconds) } },
          ),
          { rateLimit: s },
        );
      }
    },
    async consumeKey(keyId) {
      try {
        await byKey.consume(keyId);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        METRICS.rateLimitRefusals.inc({ kind: "key" });
        const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw new ApiError(
          "rate_limit_exceeded",
          `Too many requests with this API key: the limit is ${config.rateLimitKeyPerMin} a minute. Try again in ${seconds} s.`,
          { headers: { "Retry-After": String(seconds) } },
        );
      }
    },
    async close() {
      await pool?.end();
    },
  };
}
