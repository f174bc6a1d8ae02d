// Rate limits through Redis (REDIS_URL): the real Redis on this machine, database 7.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { ApiError } from "../lib/primitives/errors";
import { createRateLimits, type RateLimits } from "./rate-limit";

const REDIS_URL = process.env.ATELIER_TEST_REDIS_URL ?? "redis://127.0.0.1:6379/7";
const opened: RateLimits[] = [];
function limits(redisUrl: string | null, perKey = 5, perIp = 1000): RateLimits {
  const made = createRateLimits({ databaseUrl: null, redisUrl, rateLimitIpPerMin: perIp, rateLimitKeyPerMin: perKey });
  opened.push(made);
  return made;
}

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
});

/** How many of `attempts` consumes pass before the first refusal (and that the refusal is the 429 the API answers). */
async function sharedLimits(count: number, perKey = 5, perIp = 1000): Promise<RateLimits[]> {
  const made = Array.from({ length: count }, () => limits(REDIS_URL, perKey, perIp));
  await Promise.all(made.map((l) => l.ready()));
  return made;
}

async function passes(attempts: Array<() => Promise<unknown>>): Promise<number> {
  let passed = 0;
  for (const attempt of attempts) {
    try {
      await attempt();
      passed++;
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("rate_limit_exceeded");
      return passed;
    }
  }
  return passed;
}

describe("rate limits through Redis", () => {
  it("two processes with one REDIS_URL share one budget per key", async () => {
    const [a, b] = (await sharedLimits(2)) as [RateLimits, RateLimits];
    const key = `key_${randomUUID()}`;
    // 5 a minute across both: alternating between them, the sixth is refused wherever it lands.
    const attempts = Array.from({ length: 8 }, (_, i) => () => (i % 2 ? b : a).consumeKey(key));
    expect(await passes(attempts)).toBe(5);
    await expect(a.consumeKey(key)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    // Another key has its own budget.
    await expect(b.consumeKey(`key_${randomUUID()}`)).resolves.toBeUndefined();
  });

  it("the IP budget is shared too, and reports what is left of it", async () => {
    const [a, b] = (await sharedLimits(2, 5, 3)) as [RateLimits, RateLimits];
    const ip = `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}-${randomUUID()}`;
    expect((await a.consumeIp(ip)).remaining).toBe(2);
    expect((await b.consumeIp(ip)).remaining).toBe(1);
    expect((await a.consumeIp(ip)).remaining).toBe(0);
    await expect(b.consumeIp(ip)).rejects.toMatchObject({ code: "ip_rate_limit_exceeded" });
  });

  it("without a shared store each process counts alone (the embedded default)", async () => {
    const [a, b] = [limits(null), limits(null)];
    const key = `key_${randomUUID()}`;
    for (let i = 0; i < 5; i++) await a.consumeKey(key);
    await expect(a.consumeKey(key)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    await expect(b.consumeKey(key)).resolves.toBeUndefined();
  });

  it("a Redis that cannot be reached limits in memory instead of failing requests", async () => {
    const away = limits("redis://127.0.0.1:1/0", 2);
    await away.ready(300);
    const key = `key_${randomUUID()}`;
    await expect(away.consumeKey(key)).resolves.toBeUndefined();
    await expect(away.consumeKey(key)).resolves.toBeUndefined();
    await expect(away.consumeKey(key)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
  });
});
