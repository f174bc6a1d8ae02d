// Requests Node's HTTP parser refuses (issue 11, point 6) get the error envelope, X-Request-Id
// and RateLimit-* like every answer, then the connection closes. Raw sockets: no HTTP client
// would send these bytes.
import net from "node:net";
import { expect, test } from "./fixtures";
import { createKey, createWorkspace } from "./admin";
import { ERROR_TABLE, REQUEST_ID } from "./helpers";
import { SERVERS } from "./servers";

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/** Writes `raw` to the main server and reads until the server closes the connection. */
function rawRequest(raw: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(SERVERS.main.port, "127.0.0.1", () => socket.write(raw));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server kept the connection open; got so far: ${JSON.stringify(Buffer.concat(chunks).toString("utf8").slice(0, 300))}`,
        ),
      );
    }, 10_000);
    socket.on("data", (d: Buffer) => chunks.push(d));
    // A reset after the answer (the server closes while bytes are still coming) is fine.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const data = Buffer.concat(chunks).toString("utf8");
      const split = data.indexOf("\r\n\r\n");
      const head = split === -1 ? data : data.slice(0, split);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
        headers,
        body: split === -1 ? "" : data.slice(split + 4),
        raw: data,
      });
    });
  });
}

/** The answer is one complete HTTP/1.1 response with the envelope and the headers every answer carries. */
function expectEnvelope(answer: RawAnswer, status: number, code: string): { message: string } {
  expect(answer.status, `answer: ${JSON.stringify(answer.raw.slice(0, 400))}`).toBe(status);
  expect(answer.raw.match(/^HTTP\/1\.1 /gm), "exactly one response").toHaveLength(1);
  const h = answer.headers;
  expect(h["content-type"]).toMatch(/^application\/json/);
  expect(h["x-request-id"]).toMatch(REQUEST_ID);
  expect(h["ratelimit-limit"]).toMatch(/^\d+$/);
  expect(h["ratelimit-remaining"]).toMatch(/^\d+$/);
  expect(h["ratelimit-reset"]).toMatch(/^\d+$/);
  expect(Number(h["ratelimit-reset"])).toBeLessThanOrEqual(60);
  expect(h["connection"]).toBe("close");
  expect(Number(h["content-length"])).toBe(Buffer.byteLength(answer.body));
  const { error } = JSON.parse(answer.body) as { error: Record<string, unknown> };
  expect(Object.keys(error).sort()).toEqual(["code", "doc_url", "message", "param", "request_id", "type"]);
  expect(error.code).toBe(code);
  expect(error.type).toBe(ERROR_TABLE[code]!.type);
  expect(error.param).toBeNull();
  expect(error.request_id).toBe(h["x-request-id"]);
  expect(error.doc_url).toMatch(new RegExp(`^https?://.+#${code}$`));
  expect(typeof error.message).toBe("string");
  return error as { message: string };
}

const HOST = `127.0.0.1:${SERVERS.main.port}`;

test.describe("requests the HTTP parser refuses", () => {
  const cases: [string, string | Buffer, number, RegExp][] = [
    [
      "a control character in a header value",
      `GET /v1/models HTTP/1.1\r\nHost: ${HOST}\r\nX-Note: a\u0001b\r\n\r\n`,
      400,
      /header/i,
    ],
    [
      "a NUL in a header value",
      Buffer.from(`GET /v1/models HTTP/1.1\r\nHost: ${HOST}\r\nx-api-key: atl_\u0000x\r\n\r\n`, "latin1"),
      400,
      /header/i,
    ],
    [
      "a space in a header name",
      `GET /v1/public/models HTTP/1.1\r\nHost: ${HOST}\r\nBad Header: 1\r\n\r\n`,
      400,
      /header/i,
    ],
    [
      "headers over 16 KB",
      `GET /v1/public/models HTTP/1.1\r\nHost: ${HOST}\r\nX-Big: ${"a".repeat(17_000)}\r\n\r\n`,
      431,
      /16 KB/,
    ],
    ["an unknown method", `FOO /v1/public/models HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`, 400, /method/i],
    [
      "Content-Length with Transfer-Encoding",
      `POST /v1/quotes HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      /Content-Length|Transfer-Encoding/,
    ],
    [
      "two different Content-Lengths",
      `POST /v1/quotes HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      400,
      /Content-Length/,
    ],
    ["HTTP/9.9", `GET /v1/public/models HTTP/9.9\r\nHost: ${HOST}\r\n\r\n`, 400, /HTTP/],
    [
      "a studio path with a bad header",
      `GET /catalog HTTP/1.1\r\nHost: ${HOST}\r\nX-Note: a\u0001b\r\n\r\n`,
      400,
      /header/i,
    ],
    // Parsed, but Node would answer them bare itself.
    ["no Host header", "GET /v1/public/models HTTP/1.1\r\n\r\n", 400, /Host/],
    [
      "an Expect other than 100-continue",
      `GET /v1/public/models HTTP/1.1\r\nHost: ${HOST}\r\nExpect: 200-ok\r\n\r\n`,
      417,
      /Expect/,
    ],
  ];
  for (const [name, raw, status, message] of cases) {
    test(`${name} → ${status} invalid_request with X-Request-Id and RateLimit-*`, async () => {
      const answer = await rawRequest(raw);
      expect(expectEnvelope(answer, status, "invalid_request").message).toMatch(message);
    });
  }

  test("a bad chunk size after the headers → 400 invalid_request, one answer, the connection closed", async () => {
    const key = createKey(createWorkspace({ credit: "1" }).id).key;
    for (const path of ["/v1/quotes", "/v1/public/models", "/nowhere"]) {
      const answer = await rawRequest(
        `POST ${path} HTTP/1.1\r\nHost: ${HOST}\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      );
      expect(expectEnvelope(answer, 400, "invalid_request").message, path).toMatch(/chunk/);
    }
  });

  test("a refused request reports, and counts against, the IP budget like any request", async () => {
    const first = await rawRequest(`FOO / HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    const second = await rawRequest(`FOO / HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    for (const answer of [first, second]) {
      expect(Number(answer.headers["ratelimit-limit"])).toBe(SERVERS.main.ipPerMin);
      // This very request was counted.
      expect(Number(answer.headers["ratelimit-remaining"])).toBeLessThan(SERVERS.main.ipPerMin);
    }
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  test("a well-formed request on the same server still works", async ({ request }) => {
    const res = await request.get("/v1/public/models");
    expect(res.status()).toBe(200);
  });
});
