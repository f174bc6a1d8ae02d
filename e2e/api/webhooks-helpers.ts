// Shared by the webhooks-*.spec.ts suites: the records the API shows (endpoints, events,
// deliveries, the secret), a real local receiver (node:http) that records every request with its
// raw body and headers and answers as each test scripts it, Standard Webhooks checks made the way
// a customer makes them (the `standardwebhooks` package) and by hand (HMAC over the raw bytes),
// and a cross-process guard so the purge suite never deletes events another suite still reads.
//
// Ports: 3352–3359 are the receivers of these suites (server-shutdown.spec.ts takes 3362–3363). Each
// spec file listens on its own port, as spec files run in parallel worker processes.
import Database from "better-sqlite3";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, type APIResponse } from "@playwright/test";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import type {
  DeliveryAttempt as Attempt,
  Delivery,
  WebhookEndpoint as Endpoint,
  Event as EventObject,
  WebhookSecret as Secret,
} from "../../lib/core/webhooks/webhook-shape";
import { expectOk, ISO_MS } from "./helpers";
import { CURSOR, type Api, type Generation } from "./runs-helpers";
import { pgUrl, type ServerSpec } from "./servers";

export const WEBHOOK_PORTS = {
  /** webhooks-delivery.spec.ts: the receiver the deliveries go to. */
  delivery: 3352,
  /** webhooks-delivery.spec.ts: where the redirecting receiver points (must never be reached). */
  redirectTarget: 3353,
  /** webhooks-events.spec.ts */
  events: 3354,
  /** webhooks-endpoints.spec.ts (URLs only: nothing is delivered there). */
  endpoints: 3355,
  /** webhooks-purge.spec.ts */
  purge: 3356,
  /** webhooks-ssrf.spec.ts: a listener that must never see a connection. */
  refusedTarget: 3357,
  /** webhooks-alerts.spec.ts */
  alerts: 3358,
} as const;

export const EVENT_TYPES = ["generation.succeeded", "generation.failed", "generation.canceled"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_ID = /^evt_[0-9A-Za-z]+$/;
export const ENDPOINT_ID = /^wh_[0-9A-Za-z]+$/;
export const DELIVERY_ID = /^dlv_[0-9A-Za-z]+$/;

// ---------------------------------------------------------------------------------------------
// Records: their types come from their shapes (lib/core/webhooks/webhook-shape.ts); the key lists
// are what the tests expect of every answer.

export type { Attempt, Delivery, Endpoint, EventObject, Secret };

export const ENDPOINT_KEYS = [
  "created_at",
  "description",
  "disabled_reason",
  "enabled",
  "event_types",
  "id",
  "object",
  "updated_at",
  "url",
];

export const EVENT_KEYS = ["data", "id", "object", "timestamp", "type"];

export const ATTEMPT_KEYS = ["at", "attempt", "error", "latency_ms", "response_body", "response_status"];

export const DELIVERY_KEYS = [
  "attempts",
  "created_at",
  "event_id",
  "id",
  "next_attempt_at",
  "object",
  "status",
  "url",
  "webhook_id",
];

export interface ListOf<T> {
  object: "list";
  url?: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The shape every delivery has, whatever its state. */
export function expectDeliveryShape(d: Delivery): void {
  expect(Object.keys(d).sort(), `keys of delivery ${d.id}`).toEqual(DELIVERY_KEYS);
  expect(d.id).toMatch(DELIVERY_ID);
  expect(d.object).toBe("webhook_delivery");
  expect(d.event_id).toMatch(EVENT_ID);
  if (d.webhook_id !== null) expect(d.webhook_id).toMatch(ENDPOINT_ID);
  expect(["pending", "succeeded", "failed"]).toContain(d.status);
  expect(d.created_at).toMatch(ISO_MS);
  if (d.next_attempt_at !== null) expect(d.next_attempt_at).toMatch(ISO_MS);
  d.attempts.forEach((a, i) => {
    expect(Object.keys(a).sort(), `keys of attempt ${i + 1} of ${d.id}`).toEqual(ATTEMPT_KEYS);
    expect(a.attempt).toBe(i + 1);
    expect(a.at).toMatch(ISO_MS);
    expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    if (a.response_status !== null) expect(Number.isInteger(a.response_status)).toBe(true);
    if (a.response_body !== null) expect(typeof a.response_body).toBe("string");
    if (i > 0) expect(a.at >= d.attempts[i - 1]!.at, "attempts in order").toBe(true);
  });
}

export function expectEndpointShape(e: Endpoint): void {
  expect(Object.keys(e).sort(), `keys of endpoint ${e.id}`).toEqual(ENDPOINT_KEYS);
  expect(e.id).toMatch(ENDPOINT_ID);
  expect(e.object).toBe("webhook_endpoint");
  expect(e.created_at).toMatch(ISO_MS);
  expect(e.updated_at).toMatch(ISO_MS);
  expect(e.updated_at >= e.created_at).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Calls

export function patch(api: Api, pathAndQuery: string, data: unknown): Promise<APIResponse> {
  return api.request.patch(api.url(pathAndQuery), { headers: api.headers(), data, timeout: 90_000 });
}

export function del(api: Api, pathAndQuery: string): Promise<APIResponse> {
  return api.request.delete(api.url(pathAndQuery), { headers: api.headers(), timeout: 90_000 });
}

export async function createEndpoint(api: Api, body: Record<string, unknown>): Promise<Endpoint> {
  const endpoint = await expectOk<Endpoint>(await api.post("/v1/webhooks", body), 201);
  expectEndpointShape(endpoint);
  return endpoint;
}

export async function readEndpoint(api: Api, id: string): Promise<Endpoint> {
  return expectOk<Endpoint>(await api.get(`/v1/webhooks/${id}`));
}

export async function readSecret(api: Api): Promise<Secret> {
  const body = await expectOk<Secret>(await api.get("/v1/webhooks/default/secret"));
  expect(Object.keys(body).sort()).toEqual(["object", "previous_expires_at", "secret"]);
  expect(body.object).toBe("webhook_secret");
  expectSecretFormat(body.secret);
  return body;
}

/** whsec_ + base64 of 24 to 64 random bytes (the Standard Webhooks secret format). */
export function expectSecretFormat(secret: string): void {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  const bytes = Buffer.from(secret.slice("whsec_".length), "base64").length;
  expect(bytes).toBeGreaterThanOrEqual(24);
  expect(bytes).toBeLessThanOrEqual(64);
}

const PROMPT = { prompt: "a lighthouse in the fog" };

/** Starts an atelier/gradient run (optionally with its own webhook) and waits until it ends. */
export async function endedRun(api: Api, webhook?: string): Promise<Generation> {
  const { gen } = await api.create({ model: "atelier/gradient", input: PROMPT, ...(webhook ? { webhook } : {}) });
  return api.waitFinal(gen.id);
}

/** A run that fails: atelier/type-card refuses text that is only blanks (it passes the schema). */
export async function failedRun(api: Api, webhook?: string): Promise<Generation> {
  const { gen } = await api.create({
    model: "atelier/type-card",
    input: { text: "   " },
    ...(webhook ? { webhook } : {}),
  });
  const done = await api.waitFinal(gen.id);
  expect(done.status, "a blank type card fails").toBe("failed");
  return done;
}

/**
 * A run that ends canceled: created and canceled at once. On a busy server a fast run may end
 * first, so it tries again (each try ends before the next starts). Returns every run it ended,
 * in the order they ended, the canceled one last.
 */
export async function canceledRun(api: Api): Promise<Generation[]> {
  const ended: Generation[] = [];
  for (let i = 0; i < 10; i++) {
    const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "canceled", resolution: "hd" } });
    await api.post(`/v1/generations/${gen.id}/cancel`);
    const done = await api.waitFinal(gen.id);
    ended.push(done);
    if (done.status === "canceled") return ended;
  }
  throw new Error("no run could be canceled before it ended in 10 tries");
}

/** Every event of the workspace, newest first (following next_cursor with limit 100). */
export async function allEvents(api: Api, query: Record<string, string> = {}): Promise<EventObject[]> {
  const all: EventObject[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const qs: string = new URLSearchParams({ ...query, limit: "100", ...(cursor ? { cursor } : {}) }).toString();
    const body = await expectOk<ListOf<EventObject>>(await api.get(`/v1/events?${qs}`));
    all.push(...body.data);
    if (!body.has_more) return all;
    expect(body.next_cursor).toMatch(CURSOR);
    cursor = body.next_cursor;
  }
  throw new Error("allEvents: too many pages");
}

/** The one event a run wrote when it ended. */
export async function eventOfRun(api: Api, run: Generation): Promise<EventObject> {
  const events = (await allEvents(api)).filter((e) => (e.data as { id: string }).id === run.id);
  expect(
    events.map((e) => e.type),
    `one event for ${run.id}`,
  ).toEqual([`generation.${run.status}`]);
  return events[0]!;
}

export async function deliveriesOf(api: Api, listPath: string): Promise<Delivery[]> {
  const body = await expectOk<ListOf<Delivery>>(await api.get(`${listPath}?limit=100`));
  expect(body.object).toBe("list");
  body.data.forEach(expectDeliveryShape);
  return body.data;
}

/** Polls a deliveries list until every delivery in it is final (none pending); returns them. */
export async function finalDeliveries(api: Api, listPath: string, count: number): Promise<Delivery[]> {
  let last: Delivery[] = [];
  await expect
    .poll(
      async () => {
        last = await deliveriesOf(api, listPath);
        return last.length === count && last.every((d) => d.status !== "pending");
      },
      { timeout: 15_000, message: `${count} final deliveries at ${listPath}` },
    )
    .toBe(true);
  return last;
}

// ---------------------------------------------------------------------------------------------
// The receiver

export interface Arrival {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A local HTTP server that records every request and answers per path as scripted: one answer
 * per arrival at that path, the last repeating; 204 when nothing was scripted.
 */
export class Receiver {
  readonly arrivals: Arrival[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private server: Server | null = null;
  private counter = 0;

  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        const p = req.url ?? "";
        this.arrivals.push({
          method: req.method ?? "",
          path: p,
          headers: req.headers,
          raw,
          body: raw.toString("utf8"),
        });
        const script = this.scripts.get(p) ?? [{ status: 204 }];
        const n = this.at(p).length;
        const answer = script[Math.min(n - 1, script.length - 1)]!;
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? "");
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(this.port, "127.0.0.1", resolve);
    });
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
    this.server = null;
  }

  /** A fresh path on this receiver (unique within the process). */
  path(label: string): string {
    this.counter += 1;
    return `/${label}-${process.pid}-${this.counter}`;
  }

  url(p: string): string {
    return `http://127.0.0.1:${this.port}${p}`;
  }

  /** Scripts the answers of a path: numbers are bare statuses. */
  answer(p: string, ...answers: (number | Answer)[]): void {
    this.scripts.set(
      p,
      answers.map((a) =>
        typeof a === "number" ? { status: a, body: a >= 400 ? `status ${a} from the receiver` : "" } : a,
      ),
    );
  }

  at(p: string): Arrival[] {
    return this.arrivals.filter((a) => a.path === p);
  }

  /** Waits until `count` requests arrived at the path; returns them. */
  async waitFor(p: string, count: number): Promise<Arrival[]> {
    await expect
      .poll(() => this.at(p).length, { timeout: 15_000, message: `${count} requests at ${p}` })
      .toBeGreaterThanOrEqual(count);
    return this.at(p);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Standard Webhooks

/** The three signing headers as one string each (what a receiver hands to `verify`). */
export function signingHeaders(
  arrival: Arrival,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const one = (name: string): string => {
    const v = arrival.headers[name];
    expect(typeof v, `one ${name} header`).toBe("string");
    return v as string;
  };
  return {
    "webhook-id": one("webhook-id"),
    "webhook-timestamp": one("webhook-timestamp"),
    "webhook-signature": one("webhook-signature"),
  };
}

/** The v1 signature of an arrival's exact bytes with a secret, computed by hand. */
export function hmacOf(secret: string, arrival: Arrival): string {
  const h = signingHeaders(arrival);
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const mac = createHmac("sha256", key)
    .update(`${h["webhook-id"]}.${h["webhook-timestamp"]}.`)
    .update(arrival.raw)
    .digest("base64");
  return `v1,${mac}`;
}

/** Verifies as a customer would (standardwebhooks); returns the parsed payload or throws. */
export function verifyWith(secret: string, arrival: Arrival, signature?: string): unknown {
  const headers = signingHeaders(arrival);
  return new Webhook(secret).verify(
    arrival.body,
    signature === undefined ? headers : { ...headers, "webhook-signature": signature },
  );
}

/**
 * Everything a delivery must be (docs/api.md, "Webhook deliveries"): a POST with JSON content type,
 * the Atelier user agent, webhook-id = the event id, a webhook-timestamp of now in whole
 * seconds, and a body {type, timestamp, data} that verifies with `secret` (standardwebhooks and
 * by hand: the first signature is the one of `secret`). Returns the parsed payload.
 */
export function expectSignedDelivery(
  arrival: Arrival,
  secret: string,
  opts: { eventId?: string; signatures?: number; types?: readonly string[] } = {},
): { type: string; timestamp: string; data: Generation } {
  expect(arrival.method).toBe("POST");
  expect(arrival.headers["content-type"]).toBe("application/json");
  expect(arrival.headers["user-agent"]).toBe("Atelier-Webhooks/1");
  const h = signingHeaders(arrival);
  expect(h["webhook-id"]).toMatch(EVENT_ID);
  expect(h["webhook-id"]).not.toContain(".");
  if (opts.eventId) expect(h["webhook-id"]).toBe(opts.eventId);
  expect(h["webhook-timestamp"]).toMatch(/^\d{10}$/);
  expect(Math.abs(Number(h["webhook-timestamp"]) - Date.now() / 1000), "webhook-timestamp is now").toBeLessThan(120);
  const signatures = h["webhook-signature"].split(" ");
  expect(signatures).toHaveLength(opts.signatures ?? 1);
  for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  expect(signatures[0]).toBe(hmacOf(secret, arrival));
  const payload = verifyWith(secret, arrival) as { type: string; timestamp: string; data: Generation };
  expect(Object.keys(payload).sort()).toEqual(["data", "timestamp", "type"]);
  expect(payload).toEqual(JSON.parse(arrival.body));
  expect(opts.types ?? (EVENT_TYPES as readonly string[])).toContain(payload.type);
  expect(payload.timestamp).toMatch(ISO_MS);
  return payload;
}

/** A delivery's payload is exactly the event's {type, timestamp, data}. */
export function expectPayloadOf(arrival: Arrival, event: EventObject): void {
  expect(JSON.parse(arrival.body)).toEqual({ type: event.type, timestamp: event.timestamp, data: event.data });
}

// ---------------------------------------------------------------------------------------------
// The purge guard
//
// `admin events purge --older-than-days 0` deletes every event of every workspace on the
// webhooks server. Suites reading events hold a shared guard for each test (holdEvents in
// beforeEach); the purge test takes the exclusive one (purgeGuard), which waits until no test
// holds a shared one, and while it is held no new test starts. Files under the OS temp dir,
// keyed by the Playwright runner's pid (every worker's parent); a dead holder's file is ignored.

const GUARD_DIR = path.join(os.tmpdir(), `atelier-e2e-webhook-events-${process.ppid}`);
const PURGE_FILE = path.join(GUARD_DIR, "purge");
let guardCounter = 0;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function purgeHeld(): boolean {
  try {
    const pid = Number(fs.readFileSync(PURGE_FILE, "utf8"));
    return pid > 0 && alive(pid) ? true : (fs.rmSync(PURGE_FILE, { force: true }), false);
  } catch {
    return false;
  }
}

/** A shared hold: no purge runs until the returned release is called. */
export async function holdEvents(): Promise<() => void> {
  fs.mkdirSync(GUARD_DIR, { recursive: true });
  guardCounter += 1;
  const mine = path.join(GUARD_DIR, `reader-${process.pid}-${guardCounter}`);
  for (;;) {
    fs.writeFileSync(mine, String(process.pid));
    if (!purgeHeld()) return () => fs.rmSync(mine, { force: true });
    fs.rmSync(mine, { force: true });
    await sleep(100);
  }
}

/** The exclusive hold of the purge test: waits until no other live process holds a shared one. */
export async function purgeGuard(): Promise<() => void> {
  fs.mkdirSync(GUARD_DIR, { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(PURGE_FILE, String(process.pid), { flag: "wx" });
      break;
    } catch {
      purgeHeld();
      await sleep(100);
    }
  }
  for (;;) {
    const readers = fs
      .readdirSync(GUARD_DIR)
      .filter((f) => f.startsWith("reader-"))
      .filter((f) => {
        const pid = Number(f.split("-")[1]);
        if (pid !== process.pid && alive(pid)) return true;
        fs.rmSync(path.join(GUARD_DIR, f), { force: true });
        return false;
      });
    if (readers.length === 0) return () => fs.rmSync(PURGE_FILE, { force: true });
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// The server's own store
//
// A few cases need a state no API call can make: an event 31 days old (the scheduled purge), an
// endpoint whose address has changed since registration checked it (the check at connect time).
// They write it straight into the store of the server under test, as the passing of time or a
// DNS change would; everything else goes through the API.

/** Runs statements (with `?` parameters) in one transaction on the server's store. */
export async function writeServerStore(
  spec: ServerSpec,
  statements: [sql: string, params: unknown[]][],
): Promise<void> {
  if (spec.pgDatabase === null) {
    const db = new Database(path.join(spec.dataDir, "atelier.sqlite"));
    try {
      db.pragma("busy_timeout = 10000");
      db.transaction(() => {
        for (const [sql, params] of statements) db.prepare(sql).run(...params);
      }).immediate();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: pgUrl(spec.pgDatabase) });
  await client.connect();
  try {
    await client.query("begin");
    for (const [sql, params] of statements) {
      let n = 0;
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
    }
    await client.query("commit");
  } finally {
    await client.end();
  }
}
