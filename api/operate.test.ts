import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { Hono } from "hono";
import type { Counter } from "prom-client";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../lib/boot/config";
import { METRICS } from "../lib/primitives/metrics";
import { openTestStore, testDialect, type TestStore } from "../lib/store/testing/test-store";
import { countApiRequest, createOperate, type Operate } from "./operate";
import { createRateLimits } from "./rate-limit";

const TOKEN = "metrics-token-0123456789";
const silent = pino({ level: "silent" });

async function valueOf(
  labels: Record<string, string>,
  metric: Counter<string> = METRICS.httpRequests,
): Promise<number> {
  const { values } = await metric.get();
  const same = (l: object) =>
    JSON.stringify(Object.entries(l).sort()) === JSON.stringify(Object.entries(labels).sort());
  return values.find((v) => same(v.labels))?.value ?? 0;
}

/** A server that answers what `operate` takes, and counts everything else as the studio's (204). */
async function serve(operate: Operate, host = "127.0.0.1"): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (operate.handle(req, res)) return;
    operate.countStudioRequest(req, res);
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** This machine's first non-loopback IPv4 address, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

describe(`operating endpoints (${testDialect()})`, () => {
  let t: TestStore;
  const servers: Server[] = [];
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await t?.cleanup();
  });

  async function start(metricsToken: string | null, host?: string): Promise<string> {
    const operate = createOperate({
      store: t.store,
      config: { metricsToken, publicBaseUrl: "http://localhost:3000" },
      logger: silent,
      readiness: { cacheMs: 0 },
    });
    const { server, port } = await serve(operate, host);
    servers.push(server);
    return `http://${host ?? "127.0.0.1"}:${port}`;
  }

  it("/healthz answers 200 {status: ok} to GET and HEAD, with the query ignored; another method gets 405 with Allow", async () => {
    const base = await start(null);
    const get = await fetch(`${base}/healthz?probe=1`);
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(get.headers.get("cache-control")).toBe("no-store");
    expect(await get.json()).toEqual({ status: "ok" });
    const head = await fetch(`${base}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`${base}/healthz`, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
    // Other paths are not theirs: here the stand-in studio answers 204.
    expect((await fetch(`${base}/healthz/`)).status).toBe(204);
    expect((await fetch(`${base}/metricsx`)).status).toBe(204);
  });

  it("/readyz answers 200 with its checks on a live store, and 503 with Retry-After naming the store once it is gone", async () => {
    const own = await openTestStore();
    const operate = createOperate({
      store: own.store,
      config: { metricsToken: null, publicBaseUrl: "http://localhost:3000" },
      logger: silent,
      readiness: { cacheMs: 0 },
    });
    const { server, port } = await serve(operate);
    servers.push(server);
    try {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("retry-after")).toBeNull();
      expect(await ok.json()).toEqual({ status: "ready", checks: { store: "ok", schema: "ok" } });
      expect((await fetch(`http://127.0.0.1:${port}/readyz`, { method: "HEAD" })).status).toBe(200);
      await own.store.close();
      const down = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("2");
      const body = (await down.json()) as {
        status: string;
        checks: Record<string, string>;
        errors: Record<string, string>;
      };
      expect(body.status).toBe("not_ready");
      expect(body.checks).toEqual({ store: "failed", schema: "skipped" });
      expect(body.errors.store).toMatch(/^the store cannot be reached: /);
    } finally {
      await own.cleanup().catch(() => undefined);
    }
  });

  it("/metrics without METRICS_TOKEN answers loopback requests in the text format", async () => {
    const base = await start(null);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain("# TYPE atelier_http_requests_total counter");
    expect(text).toContain("# TYPE atelier_queue_depth gauge");
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
  });

  it.skipIf(!outsideAddress)(
    "/metrics without METRICS_TOKEN refuses a request from another address with 403",
    async () => {
      const base = await start(null, outsideAddress);
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("permission_denied");
      // Health and readiness answer anyone.
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    },
  );

  it("/metrics with METRICS_TOKEN wants it as a Bearer token: 401 without it or with another, 200 with it", async () => {
    const base = await start(TOKEN);
    for (const authorization of [undefined, "Bearer wrong-token", `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const res = await fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="Atelier"');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("authentication_required");
    }
    const ok = await fetch(`${base}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("atelier_http_requests_total");
  });

  it("counts its own answers and the studio's by fixed route names", async () => {
    const base = await start(null);
    const before = [
      await valueOf({ route: "/healthz", method: "GET", status: "200" }),
      await valueOf({ route: "studio", method: "GET", status: "204" }),
    ];
    await fetch(`${base}/healthz`);
    await fetch(`${base}/some/studio/page?x=1`);
    await fetch(`${base}/another`);
    expect(await valueOf({ route: "/healthz", method: "GET", status: "200" })).toBe(before[0]! + 1);
    expect(await valueOf({ route: "studio", method: "GET", status: "204" })).toBe(before[1]! + 2);
  });
});

describe("API request counting and rate-limit refusals", () => {
  it("labels an API request with the route pattern that answered, `unmatched` when none did", async () => {
    const app = new Hono();
    app.use(async (c, next) => {
      const started = performance.now();
      await next();
      countApiRequest(c, started);
    });
    // As the API's chain does: a refusal (429) answered by the middleware, before the route runs.
    app.use(async (c, next) => (c.req.header("x-limited") ? c.json({}, 429) : next()));
    app.get("/v1/things/:id", (c) => c.json({ id: c.req.param("id") }));
    app.post("/v1/things", (c) => c.json({}, 201));
    const labels = { route: "/v1/things/:id", method: "GET", status: "200" };
    const limited = { route: "/v1/things/:id", method: "GET", status: "429" };
    const unmatched = { route: "unmatched", method: "GET", status: "404" };
    const posted = { route: "/v1/things", method: "POST", status: "201" };
    const before = await Promise.all([labels, limited, unmatched, posted].map((l) => valueOf(l)));
    await app.request("/v1/things/thing_1");
    await app.request("/v1/things/thing_2");
    await app.request("/v1/things/thing_3", { headers: { "x-limited": "1" } });
    await app.request("/v1/nothing/here");
    await app.request("/v1/things", { method: "POST" });
    expect(await Promise.all([labels, limited, unmatched, posted].map((l) => valueOf(l)))).toEqual([
      before[0]! + 2,
      before[1]! + 1,
      before[2]! + 1,
      before[3]! + 1,
    ]);
  });

  it("counts 429 refusals by kind: ip and key", async () => {
    const limits = createRateLimits({ databaseUrl: null, rateLimitIpPerMin: 1, rateLimitKeyPerMin: 1 } as Config);
    const before = [
      await valueOf({ kind: "ip" }, METRICS.rateLimitRefusals),
      await valueOf({ kind: "key" }, METRICS.rateLimitRefusals),
    ];
    await limits.consumeIp("192.0.2.1");
    await expect(limits.consumeIp("192.0.2.1")).rejects.toMatchObject({ code: "ip_rate_limit_exceeded" });
    await limits.consumeKey("key_1");
    await expect(limits.consumeKey("key_1")).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    await expect(limits.consumeKey("key_1")).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    expect(await valueOf({ kind: "ip" }, METRICS.rateLimitRefusals)).toBe(before[0]! + 1);
    expect(await valueOf({ kind: "key" }, METRICS.rateLimitRefusals)).toBe(before[1]! + 2);
    await limits.close();
  });
});
