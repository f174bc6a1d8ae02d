// Routing and request shape: paths without /v1, unknown paths, wrong methods, placeholders,
// bodies that are not JSON, wrong media types, oversized bodies, unknown fields and params.
import http from "node:http";
import { expect, test } from "./fixtures";
import { createKey, createWorkspace, type CreatedKey } from "./admin";
import { expectError, expectOk, expectStandardHeaders, keyHeader } from "./helpers";
import { SERVERS } from "./servers";

let key: CreatedKey;
let headers: Record<string, string>;

test.beforeAll(() => {
  const workspace = createWorkspace({ credit: "1" });
  key = createKey(workspace.id);
  headers = keyHeader(key.key);
});

const QUOTE = { model: "atelier/gradient", input: { prompt: "x" } };

/** POSTs `count` chunks of `size` spaces with Transfer-Encoding: chunked (no Content-Length). */
function rawChunkedPost(
  path: string,
  extraHeaders: Record<string, string>,
  count: number,
  size: number,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: SERVERS.main.port,
        path,
        method: "POST",
        headers: { ...extraHeaders, "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // The server may answer and stop reading before the last chunk: a write error then is fine
    // as long as the answer arrived.
    req.on("error", reject);
    const chunk = Buffer.alloc(size, 0x20);
    for (let i = 0; i < count; i++) req.write(chunk);
    req.end();
  });
}

test.describe("paths", () => {
  test("a path without /v1 → 404 not_found pointing to the /v1 path", async ({ request }) => {
    const res = await request.get("/models", { headers: { ...headers, accept: "application/json" } });
    const error = await expectError(res, 404, "not_found");
    expect(error.message).toContain("/v1/models");

    const post = await request.post("/quotes", { headers: { ...headers, accept: "application/json" }, data: QUOTE });
    expect((await expectError(post, 404, "not_found")).message).toContain("/v1/quotes");

    const credits = await request.get("/credits", { headers: { accept: "application/json" } });
    expect((await expectError(credits, 404, "not_found")).message).toContain("/v1/credits");
  });

  // Issue 11 point 3: a program that forgets /v1 gets JSON, not a studio page.
  test("another version → 404 not_found pointing to /v1, whatever the request asks for", async ({ request }) => {
    const res = await request.get("/v2/models", { headers });
    expect((await expectError(res, 404, "not_found")).message).toContain("GET /v1/models");
    const bare = await request.get("/v2/models");
    expect((await expectError(bare, 404, "not_found")).message).toContain("/v1/models");
    const html = await request.get("/v2/generations/gen_x", { headers: { accept: "text/html" } });
    expect((await expectError(html, 404, "not_found")).message).toContain("/v1/generations/gen_x");
    const unknown = await request.post("/v0/nothing-here", { headers, data: {} });
    expect((await expectError(unknown, 404, "not_found")).message).toContain("GET /v1/models lists the catalog");
    // The right version in the wrong case is not "another version".
    const upper = await request.get("/V1/models", { headers });
    const upperMessage = (await expectError(upper, 404, "not_found")).message;
    expect(upperMessage).toContain("GET /v1/models");
    expect(upperMessage).not.toContain("no API version");
  });

  test("a request with an API key, or asking for JSON, on a path no studio page has → 404 not_found JSON", async ({
    request,
  }) => {
    for (const extra of [
      { authorization: `Bearer ${key.key}` },
      headers,
      { "x-api-key": "atl_wrong" },
      { accept: "application/json" },
    ]) {
      const res = await request.get("/nowhere", { headers: extra });
      const error = await expectError(res, 404, "not_found");
      expect(error.message).toContain("/v1");
    }
    // A key on a studio page's path: the program forgot /v1, it is not a browser.
    await expectError(await request.get("/catalog", { headers: { ...headers, accept: "*/*" } }), 404, "not_found");
  });

  test("browsers asking for HTML keep getting the studio", async ({ request }) => {
    const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
    const missing = await request.get("/nowhere", { headers: browser });
    expect(missing.status()).toBe(404);
    expect(missing.headers()["content-type"]).toMatch(/^text\/html/);
    expect(await missing.text()).toContain("This page does not exist");
    const catalog = await request.get("/catalog", { headers: browser });
    expect(catalog.status()).toBe(200);
    expect(catalog.headers()["content-type"]).toMatch(/^text\/html/);
    // A studio page asked for JSON is still the studio's (only paths it does not have go to the API).
    const page = await request.get("/catalog", { headers: { accept: "application/json" } });
    expect(page.headers()["content-type"]).toMatch(/^text\/html/);
    // next-auth's own JSON routes keep working, with or without a key header.
    for (const extra of [{}, headers]) {
      const session = await request.get("/api/auth/csrf", { headers: { accept: "application/json", ...extra } });
      expect(session.status()).toBe(200);
      expect(Object.keys((await session.json()) as object)).toEqual(["csrfToken"]);
    }
    // Next's assets never go to the API.
    expect((await request.get("/favicon.ico", { headers })).headers()["x-request-id"]).toBeUndefined();
  });

  test("an unknown /v1 path → 404 not_found suggesting the near one", async ({ request }) => {
    const res = await request.get("/v1/modles", { headers });
    expect((await expectError(res, 404, "not_found")).message).toContain("/v1/models");

    const res2 = await request.get("/v1/credit", { headers });
    expect((await expectError(res2, 404, "not_found")).message).toContain("/v1/credits");
  });

  test("a wrong method → 405 method_not_allowed with Allow", async ({ request }) => {
    const del = await request.delete("/v1/models", { headers });
    await expectError(del, 405, "method_not_allowed");
    expect(del.headers()["allow"]).toBe("GET");

    const get = await request.get("/v1/quotes", { headers });
    await expectError(get, 405, "method_not_allowed");
    expect(get.headers()["allow"]).toBe("POST");

    const put = await request.put("/v1/credits", { headers, data: {} });
    await expectError(put, 405, "method_not_allowed");
    expect(put.headers()["allow"]).toBe("GET");

    const post = await request.post("/v1/public/models", { data: {} });
    await expectError(post, 405, "method_not_allowed");
    expect(post.headers()["allow"]).toBe("GET");
  });

  // A 405 says the method is wrong; its Allow header cannot list the very method that was sent.
  test("a trailing slash is not answered 405 with the sent method in Allow", async ({ request }) => {
    for (const [method, path] of [
      ["GET", "/v1/models/"],
      ["POST", "/v1/quotes/"],
    ] as const) {
      const res = await request.fetch(path, { method, headers, data: method === "POST" ? QUOTE : undefined });
      expectStandardHeaders(res);
      const allow = res.headers()["allow"];
      expect(
        res.status() === 405 && (allow ?? "").split(/,\s*/).includes(method),
        `${method} ${path} answered ${res.status()} with Allow: ${allow}: ${await res.text()}`,
      ).toBe(false);
    }
  });

  test("placeholders left in the path → 400 placeholder_in_path", async ({ request }) => {
    const cases: [string, string][] = [
      ["/v1/generations/{id}", "{id}"],
      ["/v1/generations/%3Cid%3E", "<id>"],
      ["/v1/generations/:id", ":id"],
      ["/v1/generations/undefined", "undefined"],
      ["/v1/models/%7Bcreator%7D/%7Bname%7D", "{creator}"],
      ["/v1/public/models/atelier/undefined", "undefined"],
    ];
    for (const [path, placeholder] of cases) {
      const res = await request.get(path, { headers });
      const error = await expectError(res, 400, "placeholder_in_path");
      expect(error.message, path).toContain(placeholder);
    }
  });
});

test.describe("request bodies", () => {
  test("a body that is not JSON → 400 invalid_parameter, param null, fixed message", async ({ request }) => {
    for (const body of ["{bad", '{"model": "atelier/gradient",}', "not json at all"]) {
      // A Buffer, so that the client sends the bytes as they are (a string would be JSON-encoded).
      const res = await request.post("/v1/quotes", {
        headers: { ...headers, "content-type": "application/json" },
        data: Buffer.from(body),
      });
      await expectError(res, 400, "invalid_parameter", { param: null, message: "Invalid request parameters." });
    }
  });

  test("Content-Type text/plain → 415 unsupported_media_type", async ({ request }) => {
    const res = await request.post("/v1/quotes", {
      headers: { ...headers, "content-type": "text/plain" },
      data: Buffer.from(JSON.stringify(QUOTE)),
    });
    await expectError(res, 415, "unsupported_media_type");
  });

  test("JSON with a charset parameter is accepted", async ({ request }) => {
    const res = await request.post("/v1/quotes", {
      headers: { ...headers, "content-type": "application/json; charset=utf-8" },
      data: Buffer.from(JSON.stringify(QUOTE)),
    });
    expect((await expectOk<{ cost_usd: string }>(res)).cost_usd).toBe("0.002");
  });

  test("a body of exactly 1,000,000 bytes is read; one byte more → 413 payload_too_large", async ({ request }) => {
    const json = JSON.stringify(QUOTE);
    const atLimit = Buffer.from(json + " ".repeat(1_000_000 - json.length));
    expect(atLimit.byteLength).toBe(1_000_000);
    const ok = await request.post("/v1/quotes", {
      headers: { ...headers, "content-type": "application/json" },
      data: atLimit,
    });
    expect((await expectOk<{ object: string }>(ok)).object).toBe("quote");

    const over = Buffer.from(json + " ".repeat(1_000_001 - json.length));
    expect(over.byteLength).toBe(1_000_001);
    const res = await request.post("/v1/quotes", {
      headers: { ...headers, "content-type": "application/json" },
      data: over,
    });
    await expectError(res, 413, "payload_too_large");
  });

  test("a chunked body with no Content-Length over 1,000,000 bytes → 413 payload_too_large", async () => {
    const { status, headers: resHeaders, body } = await rawChunkedPost("/v1/quotes", headers, 11, 100_000);
    expect(status, body).toBe(413);
    const error = (JSON.parse(body) as { error: { code: string; type: string; request_id: string } }).error;
    expect(error.code).toBe("payload_too_large");
    expect(error.type).toBe("invalid_request_error");
    expect(error.request_id).toBe(resHeaders["x-request-id"]);
    expect(resHeaders["ratelimit-limit"]).toMatch(/^\d+$/);
  });

  test("an unknown body field → 400 invalid_parameter naming it", async ({ request }) => {
    const res = await request.post("/v1/quotes", { headers, data: { ...QUOTE, colour: "red" } });
    const error = await expectError(res, 400, "invalid_parameter", { param: "colour" });
    expect(error.message).toContain("colour");
  });

  test("a body that is JSON but not an object → 400 invalid_parameter", async ({ request }) => {
    for (const body of ["[]", '"atelier/gradient"', "42", "null"]) {
      const res = await request.post("/v1/quotes", {
        headers: { ...headers, "content-type": "application/json" },
        data: Buffer.from(body),
      });
      const error = await expectError(res, 400, "invalid_parameter");
      expect(error.message).not.toBe("Invalid request parameters.");
    }
  });

  test("an unknown query parameter → 400 invalid_parameter with param = its name", async ({ request }) => {
    const res = await request.get("/v1/models?modality=image", { headers });
    const error = await expectError(res, 400, "invalid_parameter", { param: "modality" });
    expect(error.message).toContain("modality");

    const pub = await request.get("/v1/public/models?foo=1");
    await expectError(pub, 400, "invalid_parameter", { param: "foo" });
  });
});

test.describe("headers on every answer", () => {
  test("each answer has its own request id", async ({ request }) => {
    const ids = new Set<string>();
    for (const res of [
      await request.get("/v1/public/models"),
      await request.get("/v1/public/models"),
      await request.get("/v1/models", { headers }),
      await request.get("/v1/models"),
      await request.get("/v1/nope", { headers }),
    ]) {
      expectStandardHeaders(res);
      ids.add(res.headers()["x-request-id"]!);
    }
    expect(ids.size).toBe(5);
  });
});
