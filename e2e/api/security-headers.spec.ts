// Headers every answer carries (X-Content-Type-Options: nosniff, a Referrer-Policy), the blob
// door's sandbox policy, and HOST: a server started with HOST=127.0.0.1 answers on loopback only.
// Besides the main server, this file starts one of its own on port 3367.
import { execFileSync } from "node:child_process";
import os from "node:os";
import { expect, test, type APIResponse } from "./fixtures";
import { newTenant, startOwnServer, type WorkerProcess } from "./runs-helpers";
import { SERVERS, serverSpec } from "./servers";

function expectCommon(res: APIResponse, what: string): void {
  expect(res.headers()["x-content-type-options"], what).toBe("nosniff");
  expect(res.headers()["referrer-policy"], what).toBe("strict-origin-when-cross-origin");
}

test("JSON answers, errors, blobs and /healthz carry nosniff; blobs are sandboxed", async ({ request }) => {
  const main = SERVERS.main;
  const { api } = newTenant(request, main, "5", "headers");
  const { res: created, gen } = await api.create({
    model: "atelier/gradient",
    input: { prompt: "headers on every answer" },
  });
  expectCommon(created, "POST /v1/generations");
  // The API's JSON is not a studio page: no page policy on it.
  expect(created.headers()["content-security-policy"]).toBeUndefined();
  const done = await api.waitFinal(gen.id);
  expect(done.status).toBe("succeeded");

  const refused = await request.get(`${main.baseURL}/v1/credits`);
  expect(refused.status()).toBe(401);
  expectCommon(refused, "401");

  for (const path of ["/healthz", "/readyz", "/v1/public/models"])
    expectCommon(await request.get(`${main.baseURL}${path}`), path);

  const blob = await request.get(done.output[0]!.url);
  expect(blob.status()).toBe(200);
  expectCommon(blob, "blob");
  expect(blob.headers()["content-security-policy"]).toBe("sandbox");
  expect(blob.headers()["x-frame-options"]).toBe("DENY");
  const ranged = await request.get(done.output[0]!.url, { headers: { range: "bytes=0-9" } });
  expect(ranged.status()).toBe(206);
  expect(ranged.headers()["content-security-policy"]).toBe("sandbox");
});

/** An IPv4 address of this machine other than loopback, or null. */
function otherLocalAddress(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return null;
}

async function answers(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    (res) => res.ok,
    () => false,
  );
}

test("HOST=127.0.0.1 keeps the server to loopback", async () => {
  const address = otherLocalAddress();
  test.skip(address === null, "this machine has no address besides loopback");
  test.setTimeout(120_000);
  // Reachable at all: the main server (every interface) answers there.
  expect(await answers(`http://${address}:${SERVERS.main.port}/healthz`)).toBe(true);
  const spec = serverSpec("host-loopback", 3367, 100_000, 100_000, { workers: 0 });
  execFileSync("rm", ["-rf", spec.dataDir]);
  let server: WorkerProcess | null = null;
  try {
    server = await startOwnServer(spec, { HOST: "127.0.0.1" });
    expect(await answers(`http://127.0.0.1:${spec.port}/healthz`)).toBe(true);
    expect(await answers(`http://${address}:${spec.port}/healthz`)).toBe(false);
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  }
});
