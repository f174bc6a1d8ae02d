// Requests per IP and per API key per minute (rate-limiter-flexible): in memory on the embedded
// store; in the shared PostgreSQL table when several processes serve one database, leased in
// slices so that a request writes nothing there (leased-rate-limiter.ts); and in Redis (REDIS_URL)
// when it is set. Every process shares one budget either way.
import { Redis } from "ioredis";
import type pg from "pg";
import { pgPackage } from "../lib/store/pg-package";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../lib/boot/config";
import { ApiError } from "../lib/primitives/errors";
import { LIMITS } from "../lib/primitives/limits";
import { METRICS } from "../lib/primitives/metrics";
import { leasedRateLimiter, type ConsumingLimiter } from "./leased-rate-limiter";

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface RateLimits {
  consumeIp(ip: string): Promise<RateLimitState>;
  consumeKey(keyId: string): Promise<void>;
  /** Resolves once the shared store answers (Redis connected), or after `timeoutMs` anyway: until then counts are kept in memory. */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Where the shared counts live: nowhere (memory), PostgreSQL or Redis. */
type SharedStore = { kind: "memory" } | { kind: "postgres"; pool: pg.Pool } | { kind: "redis"; client: Redis };

function limiter(points: number, keyPrefix: string, shared: SharedStore): ConsumingLimiter {
  const duration = LIMITS.rateLimitWindowSeconds;
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  // If the shared store hiccups, keep limiting in memory rather than failing requests.
  if (shared.kind === "redis") {
    return new RateLimiterRedis({
      storeClient: shared.client,
      points,
      duration,
      keyPrefix: `atelier:rl:${keyPrefix}`,
      insuranceLimiter: memory,
      rejectIfRedisNotReady: true,
    });
  }
  if (shared.kind === "postgres") {
    const leased = leasedRateLimiter({ pool: shared.pool, points, durationSeconds: duration, keyPrefix });
    return {
      // The database hiccups: this process limits in memory meanwhile, as with Redis.
      consume: (key) =>
        leased
          .consume(key)
          .catch((err: unknown) => (err instanceof RateLimiterRes ? Promise.reject(err) : memory.consume(key))),
    };
  }
  return memory;
}

function sharedStore(config: Pick<Config, "databaseUrl" | "redisUrl">): SharedStore {
  if (config.redisUrl) {
    // No offline queue: while Redis is away a request is limited in memory at once, not held.
    const client = new Redis(config.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectionName: "atelier-rate-limits",
    });
    client.on("error", () => undefined);
    return { kind: "redis", client };
  }
  if (config.databaseUrl) {
    const pool = new (pgPackage().Pool)({
      connectionString: config.databaseUrl,
      max: 4,
      application_name: "atelier-rate-limits",
    });
    // An idle connection cut by a database restart: the pool drops it, and the insurance limiter
    // covers until the database is back. Without a listener it would be an uncaught exception.
    pool.on("error", () => undefined);
    return { kind: "postgres", pool };
  }
  return { kind: "memory" };
}

function state(limit: number, res: RateLimiterRes): RateLimitState {
  return {
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

export function createRateLimits(
  config: Pick<Config, "databaseUrl" | "redisUrl" | "rateLimitIpPerMin" | "rateLimitKeyPerMin">,
): RateLimits {
  const shared = sharedStore(config);
  const byIp = limiter(config.rateLimitIpPerMin, "ip", shared);
  const byKey = limiter(config.rateLimitKeyPerMin, "key", shared);
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
    async ready(timeoutMs = 5000) {
      if (shared.kind !== "redis" || shared.client.status === "ready") return;
      const client = shared.client;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          client.off("ready", done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        client.once("ready", done);
      });
    },
    async close() {
      if (shared.kind === "postgres") await shared.pool.end();
      if (shared.kind === "redis") await shared.client.quit().catch(() => shared.client.disconnect());
    },
  };
}
