// The connection check of the queue kinds (Replicate, fal, ComfyUI) against their fakes: what a
// pass reads, a refused key (said so, the key never quoted), an unreachable port, no answer
// within timeout_ms, a 5xx; and never a prediction, request or prompt made at the provider.
import { afterEach, describe, expect, it } from "vitest";
import { checkProviderConnection, type ConnectionCheck } from "./connection-check";
import { startReplicateFake, type ReplicateFake } from "./replicate/testing/replicate-fake";
import { startFalFake, type FalFake } from "./fal/testing/fal-fake";
import { startComfyFake, type FakeComfy } from "./comfyui/testing/comfyui-fake";
import { closedPortUrl, providerConfig } from "./testing/connection-check-support";
import { parseProvidersFile } from "./providers-file";

const WRONG_KEY = "wrong-key-7d1e9c";

function failed(check: ConnectionCheck): string {
  expect(check.ok, JSON.stringify(check)).toBe(false);
  expect(check.latency_ms).toBeGreaterThanOrEqual(0);
  return (check as { error: string }).error;
}

function passed(check: ConnectionCheck): string {
  expect(check.ok, JSON.stringify(check)).toBe(true);
  expect(check.latency_ms).toBeGreaterThanOrEqual(0);
  return (check as { detail: string }).detail;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("replicate", () => {
  async function fake(): Promise<ReplicateFake> {
    const started = await startReplicateFake();
    closers.push(() => started.close());
    return started;
  }
  const config = (url: string, key: string, timeoutMs?: number) =>
    providerConfig("replicate", url, key, { upstream: ["black-forest-labs/flux-schnell"], timeoutMs });

  it("reads the token's account (GET /v1/account) and creates no prediction", async () => {
    const replicate = await fake();
    const detail = passed(await checkProviderConnection(config(replicate.url, replicate.token)));
    expect(detail).toBe("account acme (organization)");
    expect(replicate.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/account"]);
    expect(replicate.predictions.size).toBe(0);
  });

  it("says a refused token was refused, without quoting it", async () => {
    const replicate = await fake();
    const error = failed(await checkProviderConnection(config(replicate.url, WRONG_KEY)));
    expect(error).toContain("refused this server's credentials (HTTP 401)");
    expect(error).not.toContain(WRONG_KEY);
  });

  it("tells a 5xx, no answer within timeout_ms and an unreachable host as outages", async () => {
    const replicate = await fake();
    // The client asks again five times when a GET answers 5xx: six answers make the outage.
    replicate.failNext(503, { title: "Service Unavailable", detail: "Try again later.", status: 503 }, 6);
    expect(failed(await checkProviderConnection(config(replicate.url, replicate.token)))).toContain("failed (HTTP 503");
    replicate.hangNext();
    expect(failed(await checkProviderConnection(config(replicate.url, replicate.token, 300)))).toContain(
      "did not answer within 0.3 s",
    );
    expect(failed(await checkProviderConnection(config(`${await closedPortUrl()}/v1`, "r8_x")))).toContain(
      "could not be reached (ECONNREFUSED)",
    );
    expect(replicate.predictions.size).toBe(0);
  });
});

describe("fal", () => {
  async function fake(): Promise<FalFake> {
    const started = await startFalFake();
    closers.push(() => started.close());
    return started;
  }
  const config = (
    fal: { url: string; platformUrl: string },
    key: string,
    more: { timeoutMs?: number; upstream?: string[] } = {},
  ) =>
    providerConfig("fal", fal.url, key, {
      options: {
        mode: "queue",
        runBaseUrl: `${fal.url}/run`,
        restBaseUrl: `${fal.url}/rest`,
        platformBaseUrl: fal.platformUrl,
      },
      upstream: more.upstream ?? ["fal-ai/flux/dev", "fal-ai/trellis"],
      timeoutMs: more.timeoutMs,
    });

  it("reads the entries' prices from the Platform API and queues nothing", async () => {
    const fal = await fake();
    const detail = passed(await checkProviderConnection(config(fal, fal.key)));
    expect(detail).toBe("2 of 2 endpoints priced");
    const [request, ...others] = fal.requests;
    expect(others).toEqual([]);
    expect(request!.method).toBe("GET");
    expect(request!.path).toBe("/platform/v1/models/pricing?endpoint_id=fal-ai%2Fflux%2Fdev%2Cfal-ai%2Ftrellis");
    expect(request!.headers.authorization).toBe(`Key ${fal.key}`);
    expect(fal.queue.size).toBe(0);
  });

  it("reads platform_base_url from the providers file", async () => {
    const fal = await fake();
    const schema = {
      type: "object",
      additionalProperties: false,
      required: ["prompt"],
      properties: { prompt: { type: "string" } },
    };
    const file = JSON.stringify({
      providers: [
        {
          id: "fal",
          kind: "fal",
          base_url: fal.url,
          platform_base_url: fal.platformUrl,
          api_key_env: "FAL_KEY",
          entries: [
            {
              id: "bfl/flux-dev",
              upstream_model: "fal-ai/flux/dev",
              name: "FLUX.1 [dev]",
              description: "On fal.",
              modality: "image",
              tasks: ["text-to-image"],
              input_schema: schema,
              pricing: { unit: "image", usd: "0.025" },
            },
          ],
        },
      ],
    });
    const [config] = parseProvidersFile(file, { FAL_KEY: fal.key });
    expect(passed(await checkProviderConnection(config!))).toBe("1 of 1 endpoint priced");
  });

  it("names an entry whose endpoint fal does not price", async () => {
    const fal = await fake();
    const detail = passed(
      await checkProviderConnection(config(fal, fal.key, { upstream: ["fal-ai/flux/dev", "fal-ai/no-such"] })),
    );
    expect(detail).toBe("1 of 2 endpoints priced; not priced: fal-ai/no-such");
  });

  it("says a refused key was refused, without quoting it", async () => {
    const fal = await fake();
    const error = failed(await checkProviderConnection(config(fal, WRONG_KEY)));
    expect(error).toContain("refused this server's credentials (HTTP 401)");
    expect(error).not.toContain(WRONG_KEY);
  });

  it("tells a 5xx, no answer within timeout_ms and an unreachable host as outages", async () => {
    const fal = await fake();
    fal.failNext(502, { detail: "Bad gateway", error_type: "runner_connection_error" });
    expect(failed(await checkProviderConnection(config(fal, fal.key)))).toContain("failed (HTTP 502: Bad gateway)");
    fal.hangNext();
    expect(failed(await checkProviderConnection(config(fal, fal.key, { timeoutMs: 300 })))).toContain(
      "did not answer within 0.3 s",
    );
    const closed = await closedPortUrl();
    expect(
      failed(await checkProviderConnection(config({ url: closed, platformUrl: `${closed}/v1` }, fal.key))),
    ).toContain("could not be reached (ECONNREFUSED)");
    expect(fal.queue.size).toBe(0);
  });
});

describe("comfyui", () => {
  async function fake(token?: string): Promise<FakeComfy> {
    const started = await startComfyFake(token ? { token } : {});
    closers.push(() => started.close());
    return started;
  }
  const config = (url: string, key: string | null, timeoutMs?: number) =>
    providerConfig("comfyui", url, key, { timeoutMs });

  it("reads its system stats and queue, and queues no prompt", async () => {
    const comfy = await fake();
    const detail = passed(await checkProviderConnection(config(comfy.url, null)));
    expect(detail).toBe(
      "ComfyUI 0.3.66, 1 device(s): cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync; queue: 0 running, 0 pending",
    );
    expect(comfy.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /system_stats", "GET /queue"]);
    expect(comfy.prompts).toEqual([]);
  });

  it("says a proxy refused the token, without quoting it", async () => {
    const comfy = await fake("proxy-token-1234");
    const error = failed(await checkProviderConnection(config(comfy.url, WRONG_KEY)));
    expect(error).toContain("refused this server's credentials (HTTP 401)");
    expect(error).not.toContain(WRONG_KEY);
    expect(passed(await checkProviderConnection(config(comfy.url, "proxy-token-1234")))).toMatch(/^ComfyUI /);
  });

  it("tells a 5xx, no answer within timeout_ms and an unreachable box as outages", async () => {
    const comfy = await fake();
    comfy.failNext("GET /system_stats", { status: 500, body: { error: "internal" } });
    expect(failed(await checkProviderConnection(config(comfy.url, null)))).toContain("failed (HTTP 500");
    comfy.failNext("GET /queue", "hang");
    expect(failed(await checkProviderConnection(config(comfy.url, null, 300)))).toContain(
      "did not answer within 0.3 s",
    );
    expect(failed(await checkProviderConnection(config(await closedPortUrl(), null)))).toContain(
      "could not be reached (ECONNREFUSED)",
    );
    expect(comfy.prompts).toEqual([]);
  });
});

it("answers, rather than throws, for a kind it does not know", async () => {
  const check = await checkProviderConnection(providerConfig("telepathy", "http://127.0.0.1:9", null));
  expect(failed(check)).toContain('unknown provider kind "telepathy"');
});
