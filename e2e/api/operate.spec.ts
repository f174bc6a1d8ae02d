// Operating the server: GET /healthz and /readyz (outside /v1: no API key, no rate limit, never
// the studio) and GET /metrics (Prometheus text; loopback only without METRICS_TOKEN, the Bearer
// token with it). /readyz turns 503 while PostgreSQL cannot be reached (a TCP proxy this test
// stops, as store-outage.spec.ts does) and 200 once it is back. Besides the main server, this
// file starts servers of its own (ports 3376–3378), not from playwright.config.ts; the last keeps
// its files in the test bucket behind a TCP proxy, and /readyz names the bucket while it is away.
import { execFileSync } from "node:child_process";
import { expect, test, type APIResponse } from "./fixtures";
import { startTcpProxy, type TcpProxy, viaProxy } from "../../lib/store/testing/test-proxy";
import { expectStandardHeaders } from "./helpers";
import { newTenant, startOwnServer, type WorkerProcess } from "./runs-helpers";
import { bucketEnv, PG_SERVER_URL, pgUrl, SERVERS, serverSpec, TEST_S3, type ServerSpec } from "./servers";

const METRICS_TOKEN = "e2e-metrics-token-0123456789";

async function stopServer(server: WorkerProcess | null): Promise<void> {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill("SIGKILL");
    await server.exited;
  }
}

function psql(...commands: string[]): void {
  execFileSync(
    "psql",
    [`${PG_SERVER_URL}/postgres`, "-q", "-v", "ON_ERROR_STOP=1", ...commands.flatMap((c) => ["-c", c])],
    {
      env: { ...process.env, PGOPTIONS: "--client-min-messages=warning" },
    },
  );
}

/** The value of one sample line of the exposition (`name{labels} value`), or null when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (
      Object.entries(labels).every(([k, v]) => found[k] === v) &&
      Object.keys(found).length === Object.keys(labels).length
    )
      return Number(match[3]);
  }
  return null;
}

async function readyzBody(
  res: APIResponse,
): Promise<{ status: string; checks: Record<string, string>; errors?: Record<string, string> }> {
  expect(res.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(res.headers()["cache-control"]).toBe("no-store");
  return (await res.json()) as { status: string; checks: Record<string, string>; errors?: Record<string, string> };
}

/** Polls `url` until it answers `status` (a readiness result is kept about a second). */
async function untilStatus(url: string, status: number, why: string): Promise<Response> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(url);
    if (res.status === status) return res;
    await res.arrayBuffer();
    expect(Date.now(), `${url} did not answer ${status} within 30 s ${why}`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test.describe("health, readiness and metrics on the main server", () => {
  test("/healthz and /readyz answer 200 with their JSON to GET and HEAD, without an API key or the API's headers", async ({
    request,
  }) => {
    const base = SERVERS.main.baseURL;
    const health = await request.get(`${base}/healthz`);
    expect(health.status()).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await request.get(`${base}/readyz`);
    expect(ready.status()).toBe(200);
    expect(await readyzBody(ready)).toEqual({ status: "ready", checks: { store: "ok", schema: "ok" } });
    for (const res of [health, ready]) {
      expect(res.headers()["ratelimit-limit"]).toBeUndefined();
      expect(res.headers()["x-request-id"]).toBeUndefined();
    }
    for (const path of ["/healthz", "/readyz"]) {
      const head = await request.head(`${base}${path}`);
      expect(head.status()).toBe(200);
      expect((await head.body()).length).toBe(0);
    }
    // Whatever the client prefers, never the studio.
    const html = await request.get(`${base}/healthz`, { headers: { accept: "text/html" } });
    expect(html.headers()["content-type"]).toBe("application/json; charset=utf-8");
  });

  test("/metrics from 127.0.0.1 answers the text format: requests by route pattern, runs by model and status, the queue depth", async ({
    request,
  }) => {
    const main = SERVERS.main;
    const { api } = newTenant(request, main, "5", "operate");
    const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "a lamp in the window" } });
    expect((await api.waitFinal(gen.id)).status).toBe("succeeded");
    await api.get(`/v1/generations/${gen.id}`);

    const res = await request.get(`${main.baseURL}/metrics`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8/);
    const text = await res.text();
    expect(text).toContain("# TYPE atelier_http_requests_total counter");
    expect(
      sample(text, "atelier_http_requests_total", { route: "/v1/generations", method: "POST", status: "201" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "atelier_http_requests_total", { route: "/v1/generations/:id", method: "GET", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    // Never a raw path: the run's ID appears nowhere.
    expect(text).not.toContain(gen.id);
    expect(
      sample(text, "atelier_runs_total", { model: "atelier/gradient", status: "succeeded" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "atelier_run_duration_seconds_count", { model: "atelier/gradient", status: "succeeded" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, "atelier_queue_wait_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(text).toContain("# TYPE atelier_queue_depth gauge");
    expect(sample(text, "atelier_queue_depth")).toBeGreaterThanOrEqual(0);
    expect(text).toContain("# TYPE process_resident_memory_bytes gauge");
  });
});

test.describe("[sqlite] a server with a small IP budget and METRICS_TOKEN", () => {
  const s: ServerSpec = serverSpec("operate-sqlite", 3376, 8, 100_000, { workers: 0, env: { METRICS_TOKEN } });
  let server: WorkerProcess | null = null;
  test.beforeAll(() => {
    execFileSync("rm", ["-rf", s.dataDir]);
  });
  test.afterAll(async () => {
    await stopServer(server);
  });

  test("health and readiness spend no IP budget; /metrics wants the token and counts the 429s", async ({ request }) => {
    test.setTimeout(120_000);
    server = await startOwnServer(s);
    const first = await request.get(`${s.baseURL}/v1/public/models`);
    expect(first.status()).toBe(200);
    const before = expectStandardHeaders(first);
    expect(before.limit).toBe(8);

    for (let i = 0; i < 20; i++) {
      const path = ["/healthz", "/readyz"][i % 2]!;
      const res = await request.get(`${s.baseURL}${path}`);
      expect(res.status(), `${path}, call ${i + 1}`).toBe(200);
      expect(res.headers()["ratelimit-remaining"]).toBeUndefined();
    }
    const after = expectStandardHeaders(await request.get(`${s.baseURL}/v1/public/models`));
    expect(after.remaining).toBe(before.remaining - 1);

    // The budget spent: the API answers 429, health and readiness still 200.
    let limited = false;
    for (let i = 0; i < 10 && !limited; i++)
      limited = (await request.get(`${s.baseURL}/v1/public/models`)).status() === 429;
    expect(limited).toBe(true);
    expect((await request.get(`${s.baseURL}/healthz`)).status()).toBe(200);
    expect((await request.get(`${s.baseURL}/readyz`)).status()).toBe(200);

    for (const headers of [
      {},
      { authorization: "Bearer not-the-token-at-all" },
      { authorization: METRICS_TOKEN },
    ] as Array<Record<string, string>>) {
      const refused = await request.get(`${s.baseURL}/metrics`, { headers });
      expect(refused.status()).toBe(401);
      expect(refused.headers()["www-authenticate"]).toBe('Bearer realm="Atelier"');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("authentication_required");
    }
    const res = await request.get(`${s.baseURL}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status()).toBe(200);
    const text = await res.text();
    expect(sample(text, "atelier_rate_limit_refusals_total", { kind: "ip" })).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "atelier_http_requests_total", { route: "/v1/public/models", method: "GET", status: "429" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "atelier_http_requests_total", { route: "/healthz", method: "GET", status: "200" }),
    ).toBeGreaterThanOrEqual(10);
    expect(sample(text, "atelier_queue_depth")).toBe(0);
  });
});

test.describe("[postgres] /readyz while the database stops and comes back", () => {
  const s: ServerSpec = serverSpec("operate-postgres", 3377, 100_000, 100_000, {
    workers: 1,
    pgDatabase: "atelier_e2e_operate",
  });
  let server: WorkerProcess | null = null;
  let proxy: TcpProxy | null = null;
  test.beforeAll(() => {
    execFileSync("rm", ["-rf", s.dataDir]);
    psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`, `CREATE DATABASE ${s.pgDatabase}`);
  });
  test.afterAll(async () => {
    await stopServer(server);
    await proxy?.close();
    psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`);
  });

  test("503 with Retry-After naming the store while it is unreachable, /healthz still 200, and 200 again once it is back", async () => {
    test.setTimeout(120_000);
    const target = new URL(PG_SERVER_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startOwnServer(s, { DATABASE_URL: viaProxy(pgUrl(s.pgDatabase!), proxy) });
    const readyz = `${s.baseURL}/readyz`;
    expect((await fetch(readyz)).status).toBe(200);

    await proxy.stop();
    const down = await untilStatus(readyz, 503, "after the database went away");
    expect(down.headers.get("retry-after")).toBe("2");
    expect(down.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = (await down.json()) as {
      status: string;
      checks: Record<string, string>;
      errors: Record<string, string>;
    };
    expect(body.status).toBe("not_ready");
    expect(body.checks).toEqual({ store: "failed", schema: "skipped" });
    expect(body.errors.store).toMatch(/^the store cannot be reached: /);
    expect((await fetch(`${s.baseURL}/healthz`)).status).toBe(200);
    // HEAD says the same, without a body.
    expect((await fetch(readyz, { method: "HEAD" })).status).toBe(503);

    await proxy.start();
    const up = await untilStatus(readyz, 200, "after the database came back");
    expect(await up.json()).toEqual({ status: "ready", checks: { store: "ok", schema: "ok" } });
    expect(server.child.exitCode).toBeNull();
  });
});

test.describe("[sqlite · bucket] /readyz while the bucket stops and comes back", () => {
  const s: ServerSpec = serverSpec("operate-bucket", 3378, 100_000, 100_000, { workers: 0 });
  let server: WorkerProcess | null = null;
  let proxy: TcpProxy | null = null;
  test.beforeAll(() => {
    execFileSync("rm", ["-rf", s.dataDir]);
  });
  test.afterAll(async () => {
    await stopServer(server);
    await proxy?.close();
  });

  test("503 naming the bucket while it is unreachable, and 200 again once it is back", async () => {
    test.setTimeout(120_000);
    // The test bucket behind a TCP proxy this test stops and starts.
    proxy = await startTcpProxy({ host: "127.0.0.1", port: TEST_S3.port });
    server = await startOwnServer(s, {
      ...bucketEnv("operate-bucket/"),
      S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
    });
    const readyz = `${s.baseURL}/readyz`;
    const ready = await untilStatus(readyz, 200, "with the bucket reachable");
    expect(await ready.json()).toEqual({ status: "ready", checks: { store: "ok", schema: "ok", bucket: "ok" } });

    await proxy.stop();
    const down = await untilStatus(readyz, 503, "after the bucket went away");
    expect(down.headers.get("retry-after")).toBe("2");
    const body = (await down.json()) as {
      status: string;
      checks: Record<string, string>;
      errors: Record<string, string>;
    };
    expect(body.checks).toEqual({ store: "ok", schema: "ok", bucket: "failed" });
    expect(body.errors.bucket).toMatch(/^the bucket cannot be reached: /);
    expect((await fetch(`${s.baseURL}/healthz`)).status).toBe(200);

    await proxy.start();
    const up = await untilStatus(readyz, 200, "after the bucket came back");
    expect(await up.json()).toEqual({ status: "ready", checks: { store: "ok", schema: "ok", bucket: "ok" } });
    expect(server.child.exitCode).toBeNull();
  });
});
