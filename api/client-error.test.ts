import { createServer, type Server } from "node:http";
import net from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../lib/boot/config";
import { ApiError } from "../lib/primitives/errors";
import { createClientErrorHandler, createRequestRefusals, parserRefusal, rawErrorResponse } from "./client-error";
import type { RateLimits } from "./rate-limit";

let ipRequests = 0;
const rateLimits: RateLimits = {
  async consumeIp() {
    ipRequests += 1;
    return { limit: 300, remaining: 300 - ipRequests, resetSeconds: 42 };
  },
  async consumeKey() {},
  async ready() {},
  async close() {},
};

let server: Server;
let port: number;
let handled = 0;

beforeAll(async () => {
  const refusals = createRequestRefusals({
    config: { publicBaseUrl: "http://api.test" } as Config,
    logger: pino({ level: "silent" }),
    rateLimits,
  });
  server = createServer({ requireHostHeader: false }, (req, res) => {
    const refusal = refusals.check(req);
    if (refusal) return refusals.refuse(req, res, refusal);
    handled += 1;
    // A slow handler: it must not answer into a socket the parser gave up on.
    req.resume();
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("handler"), 100);
  });
  server.on("checkExpectation", refusals.expectation);
  server.on(
    "clientError",
    createClientErrorHandler({
      config: { publicBaseUrl: "http://api.test" } as Config,
      logger: pino({ level: "silent" }),
      rateLimits,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

function send(raw: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(raw));
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (data += d));
    socket.on("error", () => {});
    socket.on("close", () => {
      const [head = "", ...rest] = data.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      const status = Number(statusLine.split(" ")[1]);
      if (!status) reject(new Error(`no answer: ${JSON.stringify(data)}`));
      resolve({ status, headers, body: rest.join("\r\n\r\n"), raw: data });
    });
  });
}

describe("parserRefusal", () => {
  it("maps Node's parser codes to the API's codes and statuses", () => {
    expect(parserRefusal("HPE_HEADER_OVERFLOW", undefined)).toMatchObject({ code: "invalid_request", status: 431 });
    expect(parserRefusal("HPE_INVALID_METHOD", undefined)).toMatchObject({ code: "invalid_request", status: 400 });
    expect(parserRefusal("ERR_HTTP_REQUEST_TIMEOUT", undefined)).toMatchObject({
      code: "invalid_request",
      status: 408,
    });
    expect(parserRefusal("HPE_CHUNK_EXTENSIONS_OVERFLOW", undefined)).toMatchObject({
      code: "payload_too_large",
      status: 413,
    });
    expect(parserRefusal("HPE_SOMETHING_NEW", "Odd bytes").message).toContain("Odd bytes");
  });
});

describe("rawErrorResponse", () => {
  it("writes a complete response with Content-Length in bytes and no header injection", () => {
    const raw = rawErrorResponse(431, { "X-Request-Id": "req_1", Evil: "a\r\nSet-Cookie: x" }, '{"é":1}');
    expect(raw.startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n")).toBe(true);
    expect(raw).toContain("Content-Length: 8\r\n");
    expect(raw).toContain("Connection: close\r\n");
    // What every other answer carries (server.ts): a refused request's body is never sniffed either.
    expect(raw).toContain("X-Content-Type-Options: nosniff\r\n");
    expect(raw).not.toContain("\r\nSet-Cookie");
    expect(raw.endsWith('\r\n\r\n{"é":1}')).toBe(true);
  });
});

describe("the clientError listener", () => {
  const cases: [string, string, number][] = [
    ["a control character in a header value", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n", 400],
    ["a space in a header name", "GET /v1/models HTTP/1.1\r\nHost: x\r\nBad Header: a\r\n\r\n", 400],
    ["headers over 16 KB", `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17_000)}\r\n\r\n`, 431],
    ["an unknown method", "FOO /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    [
      "Content-Length with Transfer-Encoding",
      "POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
    ],
    ["HTTP/9.9", "GET /v1/models HTTP/9.9\r\nHost: x\r\n\r\n", 400],
    ["no Host header", "GET /v1/models HTTP/1.1\r\n\r\n", 400],
    ["an Expect other than 100-continue", "GET /v1/models HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", 417],
  ];
  for (const [name, raw, status] of cases) {
    it(`answers ${name} with the envelope, X-Request-Id and RateLimit-*`, async () => {
      const before = ipRequests;
      const answer = await send(raw);
      expect(answer.status).toBe(status);
      expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(answer.headers["connection"]).toBe("close");
      expect(answer.headers["x-request-id"]).toMatch(/^req_[0-9A-Za-z]{24}$/);
      expect(answer.headers["ratelimit-limit"]).toBe("300");
      expect(answer.headers["ratelimit-reset"]).toBe("42");
      expect(ipRequests).toBe(before + 1);
      expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
      const { error } = JSON.parse(answer.body) as { error: Record<string, unknown> };
      expect(error).toMatchObject({
        type: "invalid_request_error",
        code: "invalid_request",
        param: null,
        request_id: answer.headers["x-request-id"],
      });
      expect(error.doc_url).toBe("http://api.test/docs/errors#invalid_request");
    });
  }

  it("answers a bad chunk size once, instead of the handler that already has the request", async () => {
    const before = handled;
    const answer = await send(
      "POST /v1/quotes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    );
    expect(handled).toBe(before + 1);
    expect(answer.status).toBe(400);
    expect(answer.raw.match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(answer.raw).not.toContain("handler");
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("invalid_request");
  });

  it("answers 429 when the IP is over its budget", async () => {
    const limited: RateLimits = {
      ...rateLimits,
      async consumeIp() {
        throw Object.assign(new ApiError("ip_rate_limit_exceeded", "Too many.", { headers: { "Retry-After": "7" } }), {
          rateLimit: { limit: 8, remaining: 0, resetSeconds: 7 },
        });
      },
    };
    const other = createServer(() => {});
    other.on(
      "clientError",
      createClientErrorHandler({
        config: { publicBaseUrl: "http://api.test" } as Config,
        logger: pino({ level: "silent" }),
        rateLimits: limited,
      }),
    );
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const savedPort = port;
    port = (other.address() as net.AddressInfo).port;
    try {
      const answer = await send("FOO / HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(answer.status).toBe(429);
      expect(answer.headers["retry-after"]).toBe("7");
      expect(answer.headers["ratelimit-remaining"]).toBe("0");
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("ip_rate_limit_exceeded");
    } finally {
      port = savedPort;
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
