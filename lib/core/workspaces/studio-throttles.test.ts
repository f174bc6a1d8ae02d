import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../primitives/errors";
import { createSignInThrottle, createStudioUserBudget } from "./studio-throttles";

async function refusal(promise: Promise<void>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe("studio throttles", () => {
  const limits = { perEmail: 3, perIp: 5, firstLockSeconds: 60, longestLockSeconds: 200 };

  it("an email runs out of tries, and each lockout lasts twice the one before, up to the longest", async () => {
    const throttle = createSignInThrottle(limits);
    const lockout = async (ip: string) => {
      // Each lockout's tries from a new IP, so only the email's count speaks.
      for (let i = 0; i < limits.perEmail; i++) await throttle.attempt("Who@Example.com", ip);
      const err = await refusal(throttle.attempt("who@example.com ", ip));
      expect(err.status).toBe(429);
      expect(err.code).toBe("rate_limit_exceeded");
      expect(err.message).toMatch(/^Too many sign-in attempts for this email\. Try again in \d+ s\.$/);
      return Number(err.headers?.["Retry-After"]);
    };
    vi.useFakeTimers();
    try {
      expect(await lockout("10.0.0.1")).toBe(60);
      // Tries during a lockout are refused and do not lengthen it; other emails are not locked.
      vi.advanceTimersByTime(30_000);
      expect(Number((await refusal(throttle.attempt("who@example.com", "10.0.0.9"))).headers?.["Retry-After"])).toBe(
        30,
      );
      await throttle.attempt("other@example.com", "10.0.0.9");
      vi.advanceTimersByTime(31_000);
      expect(await lockout("10.0.0.2")).toBe(120);
      vi.advanceTimersByTime(121_000);
      expect(await lockout("10.0.0.3")).toBe(200);
      vi.advanceTimersByTime(201_000);
      expect(await lockout("10.0.0.4")).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a right password starts the email over", async () => {
    const throttle = createSignInThrottle(limits);
    for (let i = 0; i < limits.perEmail; i++) await throttle.attempt("a@example.com", `10.2.0.${i}`);
    await throttle.succeeded("a@example.com");
    await throttle.attempt("a@example.com", "10.2.1.1");
  });

  it("an IP address runs out of tries whatever the emails, and says so", async () => {
    const throttle = createSignInThrottle(limits);
    for (let i = 0; i < limits.perIp; i++) await throttle.attempt(`user${i}@example.com`, "10.3.0.1");
    const err = await refusal(throttle.attempt("fresh@example.com", "10.3.0.1"));
    expect(err.code).toBe("ip_rate_limit_exceeded");
    expect(err.message).toMatch(/from this IP address/);
    await throttle.attempt("fresh@example.com", "10.3.0.2");
  });

  it("odd emails are counted like any other, without throwing anything but the 429", async () => {
    const throttle = createSignInThrottle(limits);
    for (const email of ["constructor", "__proto__", "toString", "\u0000", "x".repeat(100_000), ""]) {
      for (let i = 0; i < limits.perEmail; i++) await throttle.attempt(email, `10.4.${email.length % 250}.${i}`);
      expect((await refusal(throttle.attempt(email, "10.4.9.9"))).status).toBe(429);
    }
  });

  it("each user has a budget of studio actions a minute", async () => {
    const budget = createStudioUserBudget(3);
    for (let i = 0; i < 3; i++) await budget.spend("usr_a");
    const err = await refusal(budget.spend("usr_a"));
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.message).toMatch(/limit is 3 a minute for each user/);
    expect(Number(err.headers?.["Retry-After"])).toBeGreaterThan(0);
    await budget.spend("usr_b");
  });
});
