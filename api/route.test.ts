import { createServer, request as httpRequest, Agent, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/primitives/errors";
import { readLimitedBytes, requestHeader } from "./route";

function streamingRequest(body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/v1/files", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("readLimitedBytes", () => {
  it("reads the whole body", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("abc"));
        controller.enqueue(new TextEncoder().encode("def"));
        controller.close();
      },
    });
    expect((await readLimitedBytes(streamingRequest(body), 10)).toString()).toBe("abcdef");
  });

  it("answers 413 once the streamed bytes pass the limit, and at once when the declared length does", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(4));
      },
    });
    await expect(readLimitedBytes(streamingRequest(body), 10)).rejects.toMatchObject({ code: "payload_too_large" });
    const declared = new Request("http://localhost/v1/files", { method: "POST", body: "x".repeat(20) });
    await expect(readLimitedBytes(declared, 10, "too big")).rejects.toMatchObject({
      code: "payload_too_large",
      message: "too big",
    });
  });

  it("a body the client stopped sending is 400 invalid_request, not an internal error", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(2));
        controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    });
    const err = await readLimitedBytes(streamingRequest(body), 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "invalid_request" });
  });
});

describe("readLimitedBytes from node:http's stream", () => {
  const request = (headers: Record<string, string> = {}) =>
    new Request("http://localhost/v1/generations", { method: "POST", headers });
  /** A stand-in for the IncomingMessage: a Node stream of the chunks, then `end` or an error, with its parsed headers. */
  function incoming(chunks: string[], fail?: Error, headers: Record<string, string> = {}): IncomingMessage {
    const stream = Object.assign(new PassThrough(), { headers });
    for (const chunk of chunks) stream.write(chunk);
    if (fail) setImmediate(() => stream.destroy(fail));
    else stream.end();
    return stream as unknown as IncomingMessage;
  }

  it("reads the whole body straight from the stream", async () => {
    expect((await readLimitedBytes(request(), 10, undefined, incoming(["abc", "def"]))).toString()).toBe("abcdef");
  });

  it("answers 413 past the limit, streamed or declared", async () => {
    await expect(readLimitedBytes(request(), 10, undefined, incoming(["abcdef", "ghijkl"]))).rejects.toMatchObject({
      code: "payload_too_large",
    });
    await expect(
      readLimitedBytes(
        request({ "content-length": "20" }),
        10,
        "too big",
        incoming(["x"], undefined, { "content-length": "20" }),
      ),
    ).rejects.toMatchObject({ code: "payload_too_large", message: "too big" });
  });

  it("a sender gone mid-body is 400 invalid_request", async () => {
    const err = await readLimitedBytes(
      request(),
      10,
      undefined,
      incoming(["ab"], Object.assign(new Error("aborted"), { code: "ECONNRESET" })),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "invalid_request" });
  });
});

describe("readLimitedBytes from a real node:http request", () => {
  /**
   * A server whose handler reads the body at once, or (`later`) once node:http has the whole
   * message. One keep-alive connection carries every request, so a body left unread or read
   * twice would break the next one.
   */
  async function withServer(
    later: boolean,
    fn: (
      send: (body: string, headers?: Record<string, string>) => Promise<{ status: number; text: string }>,
    ) => Promise<void>,
  ) {
    const server = createServer((req, res) => {
      const read = () =>
        readLimitedBytes(new Request("http://localhost/", { method: "POST" }), 10, "too big", req).then(
          (bytes) => res.end(`ok:${bytes.toString()}`),
          (err: ApiError) => res.writeHead(err.status).end(err.code),
        );
      const whenComplete = () => (req.complete ? void read() : setImmediate(whenComplete));
      if (later) whenComplete();
      else void read();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = (server.address() as AddressInfo).port;
    const send = (body: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/", agent, headers }, (res) => {
          let text = "";
          res
            .setEncoding("utf8")
            .on("data", (chunk: string) => (text += chunk))
            .on("end", () => resolve({ status: res.statusCode!, text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    try {
      await fn(send);
    } finally {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it.each([
    ["as it arrives", false],
    ["once node:http holds it whole", true],
  ])("reads a body %s, and the connection serves the next request", async (_when, later) => {
    await withServer(later, async (send) => {
      expect(await send("abcdef")).toEqual({ status: 200, text: "ok:abcdef" });
      expect(await send("")).toEqual({ status: 200, text: "ok:" });
      // Chunked, no declared length: the cap is still applied to what arrived.
      expect(await send("abcdefghijkl", { "transfer-encoding": "chunked" })).toEqual({
        status: 413,
        text: "payload_too_large",
      });
      expect(await send("0123456789", { "transfer-encoding": "chunked" })).toEqual({
        status: 200,
        text: "ok:0123456789",
      });
      expect(await send("xyz")).toEqual({ status: 200, text: "ok:xyz" });
    });
  });
});

describe("requestHeader", () => {
  // Served by node:http: read from the request's raw lines, as Fetch's Headers would give them.
  const served = (rawHeaders: string[]) =>
    ({ env: { incoming: { rawHeaders } } }) as unknown as Parameters<typeof requestHeader>[0];

  it("finds a header whatever its case, and joins every line of it with a comma", () => {
    const c = served(["Host", "x", "AUTHORIZATION", "Bearer a", "X-Api-Key", "k", "authorization", "Bearer b"]);
    expect(requestHeader(c, "authorization")).toBe("Bearer a, Bearer b");
    expect(requestHeader(c, "x-api-key")).toBe("k");
    expect(requestHeader(c, "prefer")).toBeUndefined();
  });

  it("keeps an empty header as empty, not absent", () => {
    expect(requestHeader(served(["Idempotency-Key", ""]), "idempotency-key")).toBe("");
  });

  it("agrees with node:http's own headersDistinct on a real request", async () => {
    const seen = new Promise<IncomingMessage>((resolve) => {
      const server = createServer((req, res) => {
        resolve(req);
        res.end();
        server.close();
      });
      server.listen(0, "127.0.0.1", () => {
        const req = httpRequest({ port: (server.address() as AddressInfo).port, method: "POST", agent: new Agent() });
        req.setHeader("Content-Type", "application/json");
        req.setHeader("Prefer", ["wait=5", "respond-async"]);
        req.end("{}");
        req.on("response", (res) => res.resume());
      });
    });
    const incoming = await seen;
    const c = { env: { incoming } } as unknown as Parameters<typeof requestHeader>[0];
    for (const name of ["content-type", "prefer", "host", "x-missing"]) {
      expect(requestHeader(c, name), name).toBe(incoming.headersDistinct[name]?.join(", "));
    }
  });
});
