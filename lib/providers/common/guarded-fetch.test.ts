import { afterEach, describe, expect, it } from "vitest";
import { guardedFetch } from "./guarded-fetch";
import { startTestServer, type TestServer } from "../testing/test-server";

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
    const fetchLink = guardedFetch({
      baseUrl: api.url,
      apiKey: KEY,
      refused: (reason) => new Error(`refused: ${reason}`),
    });
    await expect(fetchLink("http://127.0.0.2:9/x.png")).rejects.toThrow("refused: a local or private address");
    await expect(fetchLink("file:///etc/passwd")).rejects.toThrow("refused: not an http(s) link");
  });

  it("connects only to what it checked: a name that answers public, then local (DNS rebinding), is refused at the connection", async () => {
    const api = await server();
    const target = await server();
    const answers = ["93.184.216.34", "127.0.0.1"];
    const asked: string[] = [];
    // The first lookup (the check before the request) sees a public address, the connection's the local one.
    const resolve = async (host: string) => {
      asked.push(host);
      return [answers.shift() ?? "127.0.0.1"];
    };
    const fetchLink = guardedFetch({
      baseUrl: api.url,
      apiKey: KEY,
      refused: (reason) => new Error(`refused: ${reason}`),
      resolve,
    });
    await expect(fetchLink(`http://rebind.example:${new URL(target.url).port}/x.png`)).rejects.toThrow(
      "refused: a name of a local or private address",
    );
    expect(asked).toEqual(["rebind.example", "rebind.example"]);
    expect(target.requests).toHaveLength(0);
  });

  it("connects by name to the provider's own host, even on a private address, through the same checked connections", async () => {
    const api = await server();
    const resolve = async (host: string) => (host === "gpu-box.lan" ? ["127.0.0.1"] : []);
    const fetchLink = guardedFetch({
      baseUrl: `http://gpu-box.lan:${new URL(api.url).port}`,
      apiKey: KEY,
      refused: (reason) => new Error(`refused: ${reason}`),
      resolve,
    });
    const response = await fetchLink(`http://gpu-box.lan:${new URL(api.url).port}/view?filename=a.png`);
    expect(await response.text()).toBe("ok");
    expect(api.requests[0]!.headers.host).toBe(`gpu-box.lan:${new URL(api.url).port}`);
  });
});
