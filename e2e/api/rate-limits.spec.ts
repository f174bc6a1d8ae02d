// Rate limits (docs/api.md, "Limits"): 429 ip_rate_limit_exceeded on the ip-limit server (8 a
// minute per IP) and 429 rate_limit_exceeded on the key-limit server (4 a minute per key),
// each with Retry-After, and RateLimit-* headers that count down. Only this file calls the
// ip-limit server, and starts it (mcp.spec.ts also spends keys on the key-limit one); its tests
// run one after another in one worker.
import { expect, request as playwrightRequest, test, type APIResponse } from "./fixtures";
import { createKey, createWorkspace } from "./admin";
import { bearer, expectError, expectOk, expectStandardHeaders, keyHeader } from "./helpers";
import { serversOfThisFile } from "./server-start";
import { SERVERS } from "./servers";

test.describe.configure({ mode: "serial" });
serversOfThisFile(SERVERS.ipLimit);

function expectRetryAfter(res: APIResponse): number {
  const retryAfter = res.headers()["retry-after"];
  expect(retryAfter, "Retry-After header").toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  return seconds;
}

test("per IP: the budget counts down to 429 ip_rate_limit_exceeded with Retry-After", async () => {
  const spec = SERVERS.ipLimit;
  const api = await playwrightRequest.newContext({ baseURL: spec.baseURL });
  try {
    // The readiness probe of the test run may already have spent part of this IP's budget,
    // so count down from wherever it stands until the limit answers.
    const remaining: number[] = [];
    let limited: APIResponse | undefined;
    for (let i = 0; i <= spec.ipPerMin + 1 && !limited; i++) {
      const res = await api.get("/v1/public/models");
      if (res.status() === 429) {
        limited = res;
        break;
      }
      await expectOk(res);
      const h = expectStandardHeaders(res);
      expect(h.limit).toBe(spec.ipPerMin);
      remaining.push(h.remaining);
    }
    expect(limited, `no 429 after ${spec.ipPerMin + 1} requests`).toBeDefined();
    expect(remaining.length).toBeGreaterThan(0);
    expect(remaining.length).toBeLessThanOrEqual(spec.ipPerMin);
    for (let i = 1; i < remaining.length; i++)
      expect(remaining[i], `remaining after ${remaining.slice(0, i)}`).toBe(remaining[i - 1]! - 1);
    expect(remaining.at(-1)).toBe(0);

    await expectError(limited!, 429, "ip_rate_limit_exceeded");
    const retryAfter = expectRetryAfter(limited!);
    const h = expectStandardHeaders(limited!);
    expect(h.limit).toBe(spec.ipPerMin);
    expect(h.remaining).toBe(0);
    expect(retryAfter).toBeLessThanOrEqual(h.reset + 1);

    // The IP limit applies to every request, keyed or not, known path or not.
    await expectError(
      await api.get("/v1/credits", { headers: keyHeader("atl_whatever") }),
      429,
      "ip_rate_limit_exceeded",
    );
    await expectError(await api.post("/v1/quotes", { data: {} }), 429, "ip_rate_limit_exceeded");
    await expectError(await api.get("/v1/nope"), 429, "ip_rate_limit_exceeded");
  } finally {
    await api.dispose();
  }
});

test("per key: the fifth request in a minute → 429 rate_limit_exceeded with Retry-After", async () => {
  const spec = SERVERS.keyLimit;
  const workspace = createWorkspace({ credit: "1" }, spec);
  const key = createKey(workspace.id, {}, spec);
  const sibling = createKey(workspace.id, {}, spec);
  const api = await playwrightRequest.newContext({ baseURL: spec.baseURL });
  try {
    const ipRemaining: number[] = [];
    for (let i = 0; i < spec.keyPerMin; i++) {
      // Both headers count against the same key.
      const res = await api.get("/v1/credits", { headers: i % 2 === 0 ? keyHeader(key.key) : bearer(key.key) });
      expect(await expectOk(res)).toEqual({ object: "credits", available_usd: "1.00", held_usd: "0.00" });
      const h = expectStandardHeaders(res);
      expect(h.limit).toBe(spec.ipPerMin);
      ipRemaining.push(h.remaining);
    }
    // RateLimit-Remaining reports the IP budget and goes down with each request.
    for (let i = 1; i < ipRemaining.length; i++) expect(ipRemaining[i]).toBeLessThan(ipRemaining[i - 1]!);

    const limited = await api.get("/v1/credits", { headers: keyHeader(key.key) });
    await expectError(limited, 429, "rate_limit_exceeded");
    expectRetryAfter(limited);
    expect(expectStandardHeaders(limited).limit).toBe(spec.ipPerMin);

    const viaBearer = await api.get("/v1/models", { headers: bearer(key.key) });
    await expectError(viaBearer, 429, "rate_limit_exceeded");
    expectRetryAfter(viaBearer);

    // The limit is per key: another key of the same workspace still answers.
    expect(await expectOk(await api.get("/v1/credits", { headers: keyHeader(sibling.key) }))).toEqual({
      object: "credits",
      available_usd: "1.00",
      held_usd: "0.00",
    });
    // The public catalog needs no key and is not held back by the key's limit.
    await expectOk(await api.get("/v1/public/models"));
  } finally {
    await api.dispose();
  }
});
