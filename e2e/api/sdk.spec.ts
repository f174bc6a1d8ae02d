// The TypeScript SDK (sdk/, @atelier/sdk) against the real server, and behind a fault proxy that
// stands between it and the server: a node:http server of this file that forwards requests and,
// as each test scripts it, drops the connection after the server has answered (so the request
// took effect and its answer is lost), answers 502 with an HTML page, 503 or 429 with
// `Retry-After: 1`, or never answers; it records every attempt with its Idempotency-Key and the
// server's own answer. Waits are scaled down through the SDK's retryDelayScale; no test asserts
// a duration. Last, the package builds: tsc emits ESM with declarations that plain Node imports.
import { execFile } from "node:child_process";
import fs from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import sharp from "sharp";
import { Webhook } from "standardwebhooks";
import {
  Atelier,
  AtelierConnectionError,
  AtelierError,
  AtelierTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
  type Generation,
  type RetryInfo,
} from "../../sdk/src/index";
import { expect, test } from "./fixtures";
import { REQUEST_ID } from "./helpers";
import { makeWav, newTenant, pngSize, type Tenant } from "./runs-helpers";
import { REPO_ROOT, SERVERS } from "./servers";

const execFileAsync = promisify(execFile);

/** runs-sqlite runs its queue in the server (2 worker slots): runs end. */
const SERVER = SERVERS.runsSqlite;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Every wait between attempts a thousand times shorter: 1 s of backoff or Retry-After is 1 ms. */
const FAST = 0.001;

function sdkFor(
  tenant: Tenant,
  baseUrl = SERVER.baseURL,
  options: ConstructorParameters<typeof Atelier>[0] = {},
): Atelier {
  return new Atelier({ apiKey: tenant.api.key, baseUrl, retryDelayScale: FAST, ...options });
}

async function rejection(promise: Promise<unknown>): Promise<AtelierError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected an error, got ${JSON.stringify(outcome.value).slice(0, 300)}`);
  expect(outcome.error).toBeInstanceOf(AtelierError);
  return outcome.error as AtelierError;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The fault proxy

type Fault = "pass" | "drop" | "html502" | "busy503" | "limit429" | "hang";

interface Attempt {
  method: string;
  path: string;
  idempotencyKey: string | null;
  fault: Fault;
  /** What the server answered, for the attempts that reached it. */
  upstream: { status: number; headers: IncomingHttpHeaders; body: string } | null;
}

const PROXY_502_PAGE =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>";
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "host",
  "proxy-connection",
  "upgrade",
]);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

class FaultProxy {
  attempts: Attempt[] = [];
  private plan: Fault[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  url = "";

  constructor(private readonly target: URL) {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The faults of the next requests, in order; after them every request passes. Forgets the attempts. */
  script(...faults: Fault[]): void {
    this.plan = [...faults];
    this.attempts = [];
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Each attempt on a connection of its own: a kept-alive socket the proxy closes as idle just
    // as the SDK sends on it loses that attempt before the proxy sees it (a loaded CI machine
    // did), and the SDK's attempts would no longer line up with the scripted faults.
    res.setHeader("connection", "close");
    const body = await readBody(req);
    const fault = this.plan.shift() ?? "pass";
    const key = req.headers["idempotency-key"];
    const attempt: Attempt = {
      method: req.method ?? "",
      path: req.url ?? "",
      idempotencyKey: typeof key === "string" ? key : null,
      fault,
      upstream: null,
    };
    this.attempts.push(attempt);
    const envelope = (type: string, code: string, message: string) =>
      JSON.stringify({ error: { type, code, message, param: null, doc_url: null, request_id: "req_proxy" } });
    switch (fault) {
      case "html502":
        res.writeHead(502, { "content-type": "text/html" });
        res.end(PROXY_502_PAGE);
        return;
      case "busy503":
        res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
        res.end(envelope("api_error", "service_unavailable", "Out of service for a moment."));
        return;
      case "limit429":
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(envelope("rate_limit_error", "rate_limit_exceeded", "Too many requests."));
        return;
      case "hang":
        return; // never answered; the client gives up (its timeout) or close() ends it
      default:
        break;
    }
    const upstream = await this.forward(req, body);
    attempt.upstream = upstream;
    if (fault === "drop") {
      // The server has done the work and answered; the client never hears of it.
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    res.writeHead(upstream.status, headers);
    res.end(upstream.body);
  }

  private forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers["content-length"] = String(body.length);
    return new Promise((resolve, reject) => {
      const out = httpRequest(
        { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers },
        (res) => {
          readBody(res).then(
            (data) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data.toString("utf8") }),
            reject,
          );
        },
      );
      out.on("error", reject);
      out.end(body);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Against the real server

test.describe("SDK against the real server", () => {
  test("run() returns a succeeded Generation with outputs; quotes, credits, workspace, models (a preset with @)", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk");
    const atelier = sdkFor(tenant);

    const quote = await atelier.quotes.create({ model: "atelier/gradient", input: { prompt: "sdk lighthouse" } });
    expect(quote).toMatchObject({ object: "quote", model: "atelier/gradient", cost_usd: "0.002", hold_usd: "0.002" });
    expect(quote.input).toMatchObject({ prompt: "sdk lighthouse" });

    const run = await atelier.run("atelier/gradient", { prompt: "sdk lighthouse" });
    expect(run.id).toMatch(/^gen_/);
    expect(run.status).toBe("succeeded");
    expect(run.usage.cost_usd).toBe(quote.cost_usd);
    expect(run.output).toHaveLength(1);
    const [image] = run.output;
    expect(image).toMatchObject({ type: "image", content_type: "image/png" });
    const served = await fetch(image!.url);
    expect(served.status).toBe(200);
    expect(pngSize(Buffer.from(await served.arrayBuffer()))).toEqual({ width: image!.width, height: image!.height });
    // Read again: the same run, final.
    expect(await atelier.generations.get(run.id)).toMatchObject({ id: run.id, status: "succeeded" });

    expect(await atelier.credits.get()).toEqual({ object: "credits", available_usd: "0.998", held_usd: "0.00" });
    expect(await atelier.workspace.get()).toMatchObject({ object: "workspace", id: tenant.workspaceId });

    const models = await atelier.models.list();
    expect(models.object).toBe("list");
    const ids = models.data.map((m) => m.id);
    expect(ids).toEqual(
      expect.arrayContaining(["atelier/gradient", "atelier/gradient-poster@1", "atelier/gradient-poster@2"]),
    );
    // The @ of a preset's version is URL-encoded in the path: /v1/models/atelier/gradient-poster%402.
    const preset = await atelier.models.get("atelier/gradient-poster@2");
    expect(preset).toMatchObject({ id: "atelier/gradient-poster@2", type: "preset", version: "2" });
    expect(preset.input_schema).toMatchObject({ type: "object" });
    expect((await atelier.models.get("atelier/gradient-poster@1")).version).toBe("1");
    // The public twins need no key.
    const keyless = new Atelier({ baseUrl: SERVER.baseURL, apiKey: "" });
    expect((await keyless.models.listPublic()).data.map((m) => m.id)).toEqual(ids);
    expect(await keyless.models.getPublic("atelier/gradient-poster@2")).toMatchObject({
      id: "atelier/gradient-poster@2",
      version: "2",
    });
  });

  test("iterate() follows next_cursor over more than one page: runs of a batch, their events", async ({ request }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk");
    const listed: string[] = [];
    // The SDK's fetch is injectable: this one notes each list page and hands on to the global fetch.
    const atelier = sdkFor(tenant, SERVER.baseURL, {
      fetch: (url, init) => {
        if (/\/v1\/(generations|events)\?/.test(url)) listed.push(url);
        return globalThis.fetch(url, init);
      },
    });
    const batch = await atelier.batches.create({
      requests: Array.from({ length: 7 }, (_, i) => ({
        model: "atelier/gradient",
        input: { prompt: `sdk page ${i}` },
      })),
    });
    expect(batch.id).toMatch(/^bat_/);
    expect(batch.data).toHaveLength(7);
    const batchIds = batch.data.map((g) => g.id);

    const walked = await all(atelier.generations.iterate({ batch: batch.id, limit: 3 }));
    expect(walked.map((g) => g.id).sort()).toEqual([...batchIds].sort());
    expect(new Set(walked.map((g) => g.id)).size).toBe(7);
    const runPages = listed.filter((u) => u.includes("/v1/generations?"));
    expect(runPages).toHaveLength(3);
    expect(runPages[0]).not.toContain("cursor=");
    for (const page of runPages.slice(1))
      expect(new URL(page).searchParams.get("cursor")).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    for (const page of runPages) expect(new URL(page).searchParams.get("limit")).toBe("3");

    // Each run followed to its end with Prefer: wait; then the batch reads them all succeeded.
    for (const id of batchIds) expect((await atelier.generations.follow(id)).status).toBe("succeeded");
    expect((await atelier.batches.get(batch.id)).data.map((g) => g.status)).toEqual(Array(7).fill("succeeded"));

    // Each ending wrote one event; three to a page.
    listed.length = 0;
    const events = await all(atelier.events.iterate({ limit: 3 }));
    expect(events.map((e) => (e.data as { id: string }).id).sort()).toEqual([...batchIds].sort());
    expect(events.every((e) => e.type === "generation.succeeded")).toBe(true);
    expect(listed.filter((u) => u.includes("/v1/events?"))).toHaveLength(3);
    expect(await atelier.events.get(events[0]!.id)).toMatchObject({ id: events[0]!.id, object: "event" });
    // The status filter reaches the server: none of the seven is queued any more.
    expect(await all(atelier.generations.iterate({ status: "queued,running", limit: 3 }))).toEqual([]);
  });

  test("files.upload of a PNG, uploads.upload of a WAV (open, PUT upload_url, complete), files.iterate", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk");
    const atelier = sdkFor(tenant);
    const png = await sharp({ create: { width: 33, height: 17, channels: 3, background: { r: 200, g: 80, b: 20 } } })
      .png()
      .toBuffer();
    const image = await atelier.files.upload(png, { filename: "swatch.png", contentType: "image/png" });
    expect(image).toMatchObject({
      object: "file",
      content_type: "image/png",
      bytes: png.length,
      width: 33,
      height: 17,
      filename: "swatch.png",
      duration: null,
    });
    const back = await fetch(image.url);
    expect(Buffer.from(await back.arrayBuffer()).equals(png)).toBe(true);
    expect(await atelier.files.get(image.id)).toMatchObject({ id: image.id, bytes: png.length });

    // A Blob works as well as a Buffer.
    const wav = makeWav(0.5);
    const sound = await atelier.uploads.upload(new Blob([new Uint8Array(wav)]), {
      filename: "tone.wav",
      contentType: "audio/wav",
    });
    expect(sound).toMatchObject({ object: "file", content_type: "audio/wav", bytes: wav.length, filename: "tone.wav" });
    expect(sound.duration).toBeCloseTo(0.5, 1);

    const files = await all(atelier.files.iterate({ limit: 1 }));
    expect(files.map((f) => f.id)).toEqual([sound.id, image.id]);
  });

  test("errors: AtelierError with status, type, code, param and the request id", async ({ request }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk");
    const atelier = sdkFor(tenant);

    const unknownRun = await rejection(
      atelier.generations.create({ model: "atelier/no-such-model", input: { prompt: "x" } }),
    );
    expect([400, 404]).toContain(unknownRun.status);
    expect(unknownRun.type).toBe("invalid_request_error");
    expect(["resource_not_found", "invalid_parameter"]).toContain(unknownRun.code);
    if (unknownRun.status === 400) expect(unknownRun.param).toBe("model");
    else expect(unknownRun.param).toBeNull();
    expect(unknownRun.requestId).toMatch(REQUEST_ID);
    expect(unknownRun.headers?.get("x-request-id")).toBe(unknownRun.requestId);
    expect(unknownRun.message).toContain("atelier/no-such-model");

    const unknownModel = await rejection(atelier.models.get("atelier/no-such-model"));
    expect(unknownModel).toMatchObject({
      status: 404,
      type: "invalid_request_error",
      code: "resource_not_found",
      param: null,
    });
    expect(unknownModel.requestId).toMatch(REQUEST_ID);

    const badInput = await rejection(
      atelier.quotes.create({ model: "atelier/gradient", input: { prompt: "x", num_images: 0 } }),
    );
    expect(badInput).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_parameter",
      param: "input.num_images",
    });

    const noKey = await rejection(
      new Atelier({ baseUrl: SERVER.baseURL, apiKey: "atl_not-a-real-key", retryDelayScale: FAST }).credits.get(),
    );
    expect(noKey).toMatchObject({ status: 401, type: "authentication_error", code: "invalid_api_key" });

    // The run never started: nothing held, nothing listed.
    expect(await atelier.credits.get()).toMatchObject({ available_usd: "1.00", held_usd: "0.00" });
    expect((await atelier.generations.list()).data).toEqual([]);
  });

  test("verifyWebhook: a payload signed with standardwebhooks is read; a tampered one is refused", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk");
    const atelier = sdkFor(tenant);
    const { secret } = await atelier.webhooks.getSecret();
    expect(secret).toMatch(/^whsec_/);
    const run = await atelier.run("atelier/gradient", { prompt: "sdk signed" });
    const payload = JSON.stringify({ type: "generation.succeeded", timestamp: run.completed_at, data: run });
    const now = new Date();
    const headers = {
      "webhook-id": "evt_sdkTest1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("evt_sdkTest1", now, payload),
    };

    const verified = verifyWebhook(payload, headers, secret);
    expect(verified.type).toBe("generation.succeeded");
    expect(verified.data).toEqual(run);
    // Node's req.headers any case, a Fetch Headers, the body as bytes: all read the same.
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect((verifyWebhook(new TextEncoder().encode(payload), upper, secret).data as { id: string }).id).toBe(run.id);
    expect((verifyWebhook(payload, new Headers(headers), secret).data as { id: string }).id).toBe(run.id);

    expect(() => verifyWebhook(payload.replace('"succeeded"', '"failed"'), headers, secret)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(payload, { ...headers, "webhook-id": "evt_other" }, secret)).toThrow(
      WebhookVerificationError,
    );
    expect(() =>
      verifyWebhook(payload, headers, `whsec_${Buffer.from("another secret of 32 bytes......").toString("base64")}`),
    ).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(payload, { "webhook-id": "evt_sdkTest1" }, secret)).toThrow(WebhookVerificationError);
  });

  test("verifyWebhook reads a real delivery of the server's (webhooks server, a local receiver)", async ({
    request,
  }) => {
    const spec = SERVERS.webhooks;
    const tenant = newTenant(request, spec, "1", "sdk-hook");
    const atelier = sdkFor(tenant, spec.baseURL);
    const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
    const receiver = createServer((req, res) => {
      void readBody(req).then((body) => {
        received.push({ body: body.toString("utf8"), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const run = await atelier.run("atelier/gradient", { prompt: "sdk delivered" }, { webhook: url });
      expect(run.status).toBe("succeeded");
      await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(0);
      const { secret } = await atelier.webhooks.getSecret();
      const delivery = received[0]!;
      const payload = verifyWebhook(delivery.body, delivery.headers, secret);
      expect(payload.type).toBe("generation.succeeded");
      expect((payload.data as { id: string }).id).toBe(run.id);
      const eventId = delivery.headers["webhook-id"] as string;
      expect(await atelier.events.get(eventId)).toMatchObject({
        id: eventId,
        type: "generation.succeeded",
        data: { id: run.id },
      });
      const deliveries = await atelier.events.deliveries(eventId);
      expect(deliveries.data.map((d) => d.url)).toContain(url);
      expect(() => verifyWebhook(delivery.body.replace(run.id, "gen_someoneElse"), delivery.headers, secret)).toThrow(
        WebhookVerificationError,
      );
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Behind the fault proxy

test.describe("SDK retries (the API's retry rules) through a fault proxy", () => {
  let proxy: FaultProxy;

  test.beforeAll(async () => {
    proxy = new FaultProxy(new URL(SERVER.baseURL));
    await proxy.start();
  });

  test.afterAll(async () => {
    await proxy.close();
  });

  test("generations.create through two lost answers, a 502, a 503 and a 429 ends with one run: the first attempt's", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");
    const retries: RetryInfo[] = [];
    const atelier = sdkFor(tenant, proxy.url, { onRetry: (info) => retries.push(info) });
    const marker = `sdk-fault-${Date.now()}`;
    proxy.script("drop", "drop", "html502", "busy503", "limit429");

    const run = await atelier.generations.create({ model: "atelier/gradient", input: { prompt: marker } });

    expect(proxy.attempts.map((a) => a.fault)).toEqual(["drop", "drop", "html502", "busy503", "limit429", "pass"]);
    // One Idempotency-Key, made by the SDK, on every attempt.
    const keys = new Set(proxy.attempts.map((a) => a.idempotencyKey));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(UUID);
    // The first attempt created the run (its answer was lost); every later one that reached the
    // server was answered the same run as a replay, and that is what create() returned.
    const reached = proxy.attempts.filter((a) => a.upstream);
    expect(reached.map((a) => a.upstream!.status)).toEqual([201, 201, 201]);
    expect(reached.map((a) => a.upstream!.headers["idempotent-replayed"])).toEqual(["false", "true", "true"]);
    const first = JSON.parse(reached[0]!.upstream!.body) as Generation;
    expect(run.id).toBe(first.id);
    expect(reached.map((a) => (JSON.parse(a.upstream!.body) as Generation).id)).toEqual([first.id, first.id, first.id]);

    // What each retry waited for: backoff after the lost answers and the 502 (1 s, 2 s, 4 s with
    // jitter, scaled), Retry-After after the 503 and the 429.
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(retries[0]!.error).toBeInstanceOf(AtelierConnectionError);
    expect(retries[1]!.error).toBeInstanceOf(AtelierConnectionError);
    expect(retries[2]!.error).toMatchObject({ status: 502, code: null });
    expect(retries[3]!.error).toMatchObject({ status: 503, code: "service_unavailable", retryAfter: 1 });
    expect(retries[4]!.error).toMatchObject({ status: 429, code: "rate_limit_exceeded", retryAfter: 1 });
    [1000, 2000, 4000].forEach((ms, i) => {
      expect(retries[i]!.delayMs).toBeGreaterThanOrEqual(ms * 0.75 * FAST);
      expect(retries[i]!.delayMs).toBeLessThanOrEqual(ms * FAST);
    });
    expect(retries[3]!.delayMs).toBe(1000 * FAST);
    expect(retries[4]!.delayMs).toBe(1000 * FAST);

    // Counted through the real server: one run with the marker, one hold or charge.
    const direct = sdkFor(tenant);
    const runs = await all(direct.generations.iterate());
    expect(runs.map((g) => g.id)).toEqual([first.id]);
    expect(runs.filter((g) => g.input.prompt === marker)).toHaveLength(1);
    expect((await direct.generations.follow(first.id)).status).toBe("succeeded");
    expect(await direct.credits.get()).toMatchObject({ available_usd: "0.998", held_usd: "0.00" });
  });

  test("batches.create through a lost answer starts one batch; a caller's key is sent as given", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");
    const atelier = sdkFor(tenant, proxy.url);
    const key = `sdk-batch-${Date.now()}`;
    proxy.script("drop", "html502");
    const batch = await atelier.batches.create(
      {
        requests: [
          { model: "atelier/gradient", input: { prompt: "one" } },
          { model: "atelier/gradient", input: { prompt: "two" } },
        ],
      },
      { idempotencyKey: key },
    );
    expect(proxy.attempts.map((a) => a.idempotencyKey)).toEqual([key, key, key]);
    const first = JSON.parse(proxy.attempts[0]!.upstream!.body) as { id: string };
    expect(batch.id).toBe(first.id);
    const runs = await all(sdkFor(tenant).generations.iterate());
    expect(runs.map((g) => g.batch_id)).toEqual([batch.id, batch.id]);
  });

  test("GETs are retried after a lost answer and after a timeout", async ({ request }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");
    const retries: RetryInfo[] = [];
    const atelier = sdkFor(tenant, proxy.url, { timeoutMs: 1000, onRetry: (info) => retries.push(info) });
    proxy.script("drop", "hang");
    expect(await atelier.credits.get()).toMatchObject({ object: "credits", available_usd: "1.00" });
    expect(proxy.attempts.map((a) => a.fault)).toEqual(["drop", "hang", "pass"]);
    expect(retries[0]!.error).toBeInstanceOf(AtelierConnectionError);
    expect(retries[1]!.error).toBeInstanceOf(AtelierTimeoutError);
  });

  test("400, 404, 409 and 401 are not retried: the proxy sees one attempt each", async ({ request }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");
    const atelier = sdkFor(tenant, proxy.url, { maxRetries: 5 });

    proxy.script();
    const bad = await rejection(
      atelier.generations.create({ model: "atelier/gradient", input: { prompt: "x", num_images: 0 } }),
    );
    expect(bad).toMatchObject({ status: 400, code: "invalid_parameter", param: "input.num_images" });
    expect(proxy.attempts).toHaveLength(1);

    proxy.script();
    const missing = await rejection(atelier.generations.get("gen_doesNotExist"));
    expect(missing).toMatchObject({ status: 404, code: "resource_not_found" });
    expect(proxy.attempts).toHaveLength(1);

    const key = `sdk-conflict-${Date.now()}`;
    await atelier.generations.create(
      { model: "atelier/gradient", input: { prompt: "first body" } },
      { idempotencyKey: key },
    );
    proxy.script();
    const conflict = await rejection(
      atelier.generations.create(
        { model: "atelier/gradient", input: { prompt: "another body" } },
        { idempotencyKey: key },
      ),
    );
    expect(conflict).toMatchObject({ status: 409, type: "conflict_error", code: "conflict" });
    expect(proxy.attempts).toHaveLength(1);

    proxy.script();
    const unauthorized = await rejection(
      new Atelier({ baseUrl: proxy.url, apiKey: "atl_wrong", retryDelayScale: FAST }).credits.get(),
    );
    expect(unauthorized).toMatchObject({ status: 401, code: "invalid_api_key" });
    expect(proxy.attempts).toHaveLength(1);
  });

  test("a proxy's HTML 502 becomes an AtelierError with the text as its message once retries are spent", async ({
    request,
  }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");

    proxy.script("html502", "html502", "html502");
    const once = await rejection(sdkFor(tenant, proxy.url, { maxRetries: 1 }).credits.get());
    expect(proxy.attempts).toHaveLength(2);
    expect(once).toMatchObject({ status: 502, type: null, code: null, param: null, requestId: null });
    expect(once.message).toBe(PROXY_502_PAGE);
    expect(once.message).toContain("<h1>502 Bad Gateway</h1>");

    proxy.script("html502", "html502");
    const never = await rejection(
      sdkFor(tenant, proxy.url, { maxRetries: 0 }).generations.create({
        model: "atelier/gradient",
        input: { prompt: "x" },
      }),
    );
    expect(proxy.attempts).toHaveLength(1);
    expect(never.status).toBe(502);
    expect(never.message).toContain("502 Bad Gateway");
    // That 502 came from the proxy: the server never saw the run.
    expect((await sdkFor(tenant).generations.list()).data).toEqual([]);
  });

  test("files.upload and uploads.create are never retried; an upload's complete is", async ({ request }) => {
    const tenant = newTenant(request, SERVER, "1", "sdk-faults");
    const atelier = sdkFor(tenant, proxy.url);
    const direct = sdkFor(tenant);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
      .png()
      .toBuffer();

    // The server stored the image and the answer was lost: retrying would store a second copy.
    proxy.script("drop");
    const lost = await rejection(atelier.files.upload(png, { filename: "once.png", contentType: "image/png" }));
    expect(lost).toBeInstanceOf(AtelierConnectionError);
    expect(proxy.attempts).toHaveLength(1);
    expect((await direct.files.list()).data.map((f) => f.filename)).toEqual(["once.png"]);

    proxy.script("html502");
    const refused = await rejection(
      atelier.uploads.create({ filename: "clip.wav", content_type: "audio/wav", bytes: 100 }),
    );
    expect(refused.status).toBe(502);
    expect(proxy.attempts).toHaveLength(1);

    // Open (passes), PUT to upload_url (the server's own address, not the proxy's), complete
    // (its answer lost once, then a 502), completed on the third try.
    const wav = makeWav(0.25);
    proxy.script("pass", "drop", "html502");
    const sound = await atelier.uploads.upload(wav, { filename: "retry.wav", contentType: "audio/wav" });
    expect(sound).toMatchObject({ object: "file", content_type: "audio/wav", bytes: wav.length });
    expect(proxy.attempts.map((a) => `${a.method} ${a.path.replace(/upl_\w+/, "upl_…")} ${a.fault}`)).toEqual([
      "POST /v1/uploads pass",
      "POST /v1/uploads/upl_…/complete drop",
      "POST /v1/uploads/upl_…/complete html502",
      "POST /v1/uploads/upl_…/complete pass",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The package builds

test("the package builds: tsc emits ESM and declarations that plain Node imports and runs", async () => {
  test.setTimeout(180_000);
  const results = path.join(REPO_ROOT, "test-results");
  fs.mkdirSync(results, { recursive: true });
  // Inside the repository, so that the emitted code finds standardwebhooks in its node_modules.
  const outDir = fs.mkdtempSync(path.join(results, "sdk-build-"));
  try {
    await execFileAsync("npx", ["tsc", "-p", "sdk/tsconfig.json", "--outDir", outDir], {
      cwd: REPO_ROOT,
      timeout: 150_000,
    });
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "sdk", "package.json"), "utf8")) as {
      name: string;
      type: string;
      exports: { ".": { types: string; import: string } };
    };
    expect(pkg).toMatchObject({ name: "@atelier/sdk", type: "module" });
    // What package.json's exports name (under dist/) is what tsc emitted.
    for (const file of [pkg.exports["."].types, pkg.exports["."].import]) {
      expect(fs.existsSync(path.join(outDir, file.replace(/^\.\/dist\//, ""))), file).toBe(true);
    }
    expect(fs.readFileSync(path.join(outDir, "index.d.ts"), "utf8")).toContain("Atelier");
    expect(fs.existsSync(path.join(outDir, "schema.d.ts"))).toBe(true);
    expect(fs.readdirSync(outDir).filter((f) => f.endsWith(".test.js"))).toEqual([]);
    // The emitted files are ES modules as sdk/package.json declares them.
    fs.writeFileSync(path.join(outDir, "package.json"), JSON.stringify({ type: "module" }));
    const script = `
      const sdk = await import(process.argv[1]);
      const atelier = new sdk.Atelier({ baseUrl: process.argv[2] });
      const list = await atelier.models.listPublic();
      const preset = await atelier.models.getPublic("atelier/gradient-poster@2");
      let error = null;
      try { await atelier.models.getPublic("atelier/none"); } catch (e) { error = { isAtelierError: e instanceof sdk.AtelierError, status: e.status, code: e.code }; }
      console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), models: list.data.length, preset: preset.id, error }));
    `;
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--input-type=module", "-e", script, pathToFileURL(path.join(outDir, "index.js")).href, SERVER.baseURL],
      {
        cwd: outDir,
        timeout: 60_000,
      },
    );
    const out = JSON.parse(stdout) as { exports: string[]; models: number; preset: string; error: unknown };
    expect(out.exports).toEqual(
      expect.arrayContaining(["Atelier", "AtelierError", "verifyWebhook", "WebhookVerificationError"]),
    );
    expect(out.models).toBeGreaterThan(5);
    expect(out.preset).toBe("atelier/gradient-poster@2");
    expect(out.error).toEqual({ isAtelierError: true, status: 404, code: "resource_not_found" });
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
});
