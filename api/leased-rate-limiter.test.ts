// Rate limits shared through PostgreSQL in leased slices: two "processes" (their own pools) on one
// rate_limits table let exactly the limit through together, with far fewer transactions than
// requests, and a process that saw the budget run out refuses without asking again.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testDialect, type TestStore } from "../lib/store/testing/test-store";
import { leasedRateLimiter, leaseSize } from "./leased-rate-limiter";

describe("lease sizes", () => {
  it("are a twentieth of the budget, a quarter of what is unleased near the end, and at least 1", () => {
    expect(leaseSize(600, 600)).toBe(30);
    expect(leaseSize(600, 100)).toBe(25);
    expect(leaseSize(600, 9)).toBe(2);
    expect(leaseSize(600, 3)).toBe(1);
    expect(leaseSize(4, 4)).toBe(1);
  });
});

describe.skipIf(testDialect() !== "postgres")("rate limits leased from PostgreSQL (postgres)", () => {
  let t: TestStore;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await t?.cleanup();
  });

  /** A process's own pool on the test schema. */
  function pool(): pg.Pool {
    const made = new pg.Pool({
      connectionString: t.postgres!.databaseUrl,
      max: 4,
      options: `-c search_path=${t.postgres!.schema}`,
    });
    pools.push(made);
    return made;
  }

  async function passes(limiter: { consume(key: string): Promise<unknown> }, key: string): Promise<boolean> {
    try {
      await limiter.consume(key);
      return true;
    } catch (err) {
      expect(err).toBeInstanceOf(RateLimiterRes);
      return false;
    }
  }

  it("two processes drain one budget together: exactly the limit passes, in few transactions", async () => {
    const a = leasedRateLimiter({ pool: pool(), points: 600, durationSeconds: 60, keyPrefix: "key" });
    const b = leasedRateLimiter({ pool: pool(), points: 600, durationSeconds: 60, keyPrefix: "key" });
    const key = `key_${randomUUID()}`;
    let passed = 0;
    const refused = { a: false, b: false };
    // Alternating until both refuse: whatever one leased and did not spend, it spends.
    for (let i = 0; !(refused.a && refused.b) && i < 2_000; i++) {
      const side = i % 2 === 0 ? "a" : "b";
      if (await passes(side === "a" ? a : b, key)) passed += 1;
      else refused[side] = true;
    }
    expect(passed).toBe(600);
    const transactions = a.leasesTaken() + b.leasesTaken();
    expect(transactions).toBeLessThan(60);
    const { rows } = await pools[0]!.query<{ points: number }>("select points from rate_limits where key = $1", [
      `key:${key}`,
    ]);
    expect(rows[0]!.points).toBe(600);
    // Once a process saw the budget run out, refusing costs it no transaction.
    const before = a.leasesTaken();
    for (let i = 0; i < 20; i++) expect(await passes(a, key)).toBe(false);
    expect(a.leasesTaken()).toBe(before);
  });

  it("many requests at once on one process pass exactly the limit", async () => {
    const limiter = leasedRateLimiter({ pool: pool(), points: 50, durationSeconds: 60, keyPrefix: "ip" });
    const key = `10.0.0.${Math.floor(Math.random() * 255)}-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 120 }, () => passes(limiter, key)));
    expect(results.filter(Boolean)).toHaveLength(50);
  });

  it("reports what is left and when the window ends, and opens a new window once it has", async () => {
    const limiter = leasedRateLimiter({ pool: pool(), points: 3, durationSeconds: 1, keyPrefix: "key" });
    const key = `key_${randomUUID()}`;
    const first = await limiter.consume(key);
    expect(first.remainingPoints).toBe(2);
    expect(first.msBeforeNext).toBeGreaterThan(0);
    expect(first.msBeforeNext).toBeLessThanOrEqual(1_000);
    await limiter.consume(key);
    await limiter.consume(key);
    const refusal = await limiter.consume(key).then(
      () => null,
      (e: unknown) => e as RateLimiterRes,
    );
    expect(refusal).toBeInstanceOf(RateLimiterRes);
    await new Promise((resolve) => setTimeout(resolve, refusal!.msBeforeNext + 50));
    expect((await limiter.consume(key)).remainingPoints).toBe(2);
  });
});
