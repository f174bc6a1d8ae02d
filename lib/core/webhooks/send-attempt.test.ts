import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRetryAfter, sendAttempt } from "./send-attempt";

// A real receiver whose answer each request path picks; it records what arrives.
const arrived: { path: string; headers: IncomingMessage["headers"]; body: string }[] = [];
const answers: Record<string, (res: ServerResponse) => void> = {
  "/ok": (res) => res.writeHead(200).end("thanks"),
  "/no-content": (res) => res.writeHead(204).end(),
  "/redirect": (res) => res.writeHead(302, { location: "/ok" }).end(),
  "/error": (res) => res.writeHead(500).end("it broke"),
  "/gone": (res) => res.writeHead(410).end(),
  "/busy": (res) => res.writeHead(429, { "retry-after": "7" }).end(),
  "/busy-date": (res) => res.writeHead(503, { "retry-after": new Date(Date.now() + 60_000).toUTCString() }).end(),
  "/huge": (res) => res.writeHead(500).end("x".repeat(200_000)),
  "/nul": (res) => res.writeHead(500).end("before\u0000after\u0000"),
  // 20 479 bytes of "x", then "é" (2 bytes) across the 20 480-byte limit.
  "/cut": (res) => res.writeHead(500).end("x".repeat(20_479) + "é" + "y".repeat(100)),
  "/hang": () => undefined,
};
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString()));
  req.on("end", () => {
    arrived.push({ path: req.url ?? "", headers: req.headers, body });
    (answers[req.url ?? ""] ?? answers["/ok"]!)(res);
  });
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (path: string, extra: { allowInsecure?: boolean; timeoutMs?: number; url?: string } = {}) =>
  sendAttempt({
    url: extra.url ?? `${base}${path}`,
    body: '{"type":"generation.succeeded"}',
    headers: { "content-type": "application/json", "webhook-id": "evt_1" },
    timeoutMs: extra.timeoutMs ?? 5_000,
    allowInsecure: extra.allowInsecure ?? true,
  });

describe("one delivery attempt", () => {
  it("succeeds on any 2xx, delivering the exact body and headers", async () => {
    expect(await send("/ok")).toMatchObject({
      ok: true,
      status: 200,
      responseBody: "thanks",
      error: null,
      gone: false,
    });
    expect(await send("/no-content")).toMatchObject({ ok: true, status: 204 });
    const last = arrived.at(-1)!;
    expect(last).toMatchObject({
      body: '{"type":"generation.succeeded"}',
      headers: { "webhook-id": "evt_1", "content-type": "application/json" },
    });
  });

  it("never follows a redirect: a 3xx is a failure and the target gets nothing", async () => {
    const before = arrived.filter((a) => a.path === "/ok").length;
    expect(await send("/redirect")).toMatchObject({ ok: false, status: 302, error: "redirect (302) not followed" });
    expect(arrived.filter((a) => a.path === "/ok").length).toBe(before);
  });

  it("records failures with their status, body, Retry-After and 410", async () => {
    expect(await send("/error")).toMatchObject({
      ok: false,
      status: 500,
      responseBody: "it broke",
      error: "the receiver answered 500",
    });
    expect(await send("/gone")).toMatchObject({ ok: false, status: 410, gone: true });
    expect(await send("/busy")).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 7 });
    const dated = await send("/busy-date");
    expect(dated.retryAfterSeconds).toBeGreaterThan(50);
    expect(parseRetryAfter("soon")).toBeNull();
  });

  it("keeps only the first 20 kB of an answer", async () => {
    const result = await send("/huge");
    expect(result.responseBody.length).toBe(20_480);
  });

  it("keeps whole characters only, and no U+0000 (PostgreSQL text refuses it)", async () => {
    expect((await send("/nul")).responseBody).toBe("beforeafter");
    const cut = await send("/cut");
    expect(cut.responseBody).toBe("x".repeat(20_479));
  });

  it("gives up at the timeout, and reports a closed port", async () => {
    expect(await send("/hang", { timeoutMs: 300 })).toMatchObject({
      ok: false,
      status: null,
      error: "no answer within 0.3 s (timeout)",
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await send("", { url: `http://127.0.0.1:${port}/x` })).toMatchObject({
      ok: false,
      error: "connection refused",
    });
  });

  it("without insecure webhooks, refuses http and loopback before connecting", async () => {
    const before = arrived.length;
    expect((await send("/ok", { allowInsecure: false })).error).toMatch(/must use https/);
    const loopback = await send("", { allowInsecure: false, url: `https://127.0.0.1:${new URL(base).port}/ok` });
    expect(loopback).toMatchObject({ ok: false, status: null });
    expect(loopback.error).toMatch(/refused address.*loopback/);
    const named = await send("", { allowInsecure: false, url: `https://localhost:${new URL(base).port}/ok` });
    expect(named.error).toMatch(/refused address/);
    expect(arrived.length).toBe(before);
  });

  it("with insecure webhooks, still refuses link-local and unspecified addresses before connecting", async () => {
    const port = new URL(base).port;
    // 0.0.0.0 would reach this very receiver on Linux: refused all the same.
    for (const url of [
      `http://0.0.0.0:${port}/ok`,
      `http://169.254.169.254/latest/meta-data`,
      `http://[fe80::1]:${port}/ok`,
    ]) {
      const result = await send("", { url });
      expect(result, url).toMatchObject({ ok: false, status: null });
      expect(result.error, url).toMatch(/refused address/);
    }
    expect(await send("/ok")).toMatchObject({ ok: true });
  });
});
