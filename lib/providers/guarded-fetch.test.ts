import { afterEach, describe, expect, it } from "vitest";
import { guardedFetch } from "./guarded-fetch";
import { startTestServer, type TestServer } from "./test-server";

const KEY = "sk-guarded-1234";
let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(): Promise<TestServer> {
  const s = await startTestServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  servers.push(s);
  return s;
}

describe("guardedFetch", () => {
  it("sends the key's headers to the provider's API origin only: not to another port of its host, nor elsewhere", async () => {
    const [api, storage] = [await server(), await server()];
    const fetchLink = guardedFetch({ baseUrl: `${api.url}/v1`, apiKey: KEY, refused: (reason) => new Error(reason) });
    const headers = { authorization: `Bearer ${KEY}`, "x-trace": `t-${KEY}`, accept: "*/*" };
    await fetchLink(`${api.url}/v1/files/f1`, { headers });
    await fetchLink(`${storage.url}/out.png`, { headers });
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(storage.requests[0]!.headers.authorization).toBeUndefined();
    // A header that carries the key under another name is not sent either; others are.
    expect(storage.requests[0]!.headers["x-trace"]).toBeUndefined();
    expect(storage.requests[0]!.headers.accept).toBe("*/*");
  });

  it("refuses a private address that is not the provider's host, before connecting", async () => {
    const api = await server();
    const fetchLink = guardedFetch({ baseUrl: api.url, apiKey: KEY, refused: (reason) => new Error(`refused: ${reason}`) });
    await expect(fetchLink("http://127.0.0.2:9/x.png")).rejects.toThrow("refused: a local or private address");
    await expect(fetchLink("file:///etc/passwd")).rejects.toThrow("refused: not an http(s) link");
  });
});
