// The connection check of "ai-sdk" and "openai-images" providers against the AI SDK fakes: each
// package's free read (ai-sdk-check.ts) at the fake, a refused key (said so, never quoted), an
// unreachable port, no answer within timeout_ms, a 5xx; never a generation sent.
import { afterEach, describe, expect, it } from "vitest";
import { checkProviderConnection, type ConnectionCheck } from "./connection-check";
import { elevenLabsFake, fakeState, googleFake, openAiFake, type FakeState } from "./ai-sdk/testing/ai-sdk-fake";
import { deepInfraFake, replicateHostFake, togetherFake } from "./ai-sdk/testing/ai-sdk-fake-hosts";
import { labsState, xaiFake } from "./ai-sdk/testing/ai-sdk-fake-labs";
import { startTestServer, type Handler, type TestServer } from "./testing/test-server";
import { closedPortUrl, providerConfig } from "./testing/connection-check-support";

const KEY = "sk-test-key-51c0";
const WRONG_KEY = "sk-wrong-key-a9e3";
const ffmpegPath = "ffmpeg"; // only the fakes' speech answers would run it; a check asks for none

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(handler: Handler): Promise<string> {
  server = await startTestServer(handler);
  return server.url;
}

function failed(check: ConnectionCheck): string {
  expect(check.ok, JSON.stringify(check)).toBe(false);
  return (check as { error: string }).error;
}

function passed(check: ConnectionCheck): string {
  expect(check.ok, JSON.stringify(check)).toBe(true);
  return (check as { detail: string }).detail;
}

const aiSdk = (provider: string, baseUrl: string, key: string | null, timeoutMs?: number) =>
  providerConfig("ai-sdk", baseUrl, key, { options: { provider }, timeoutMs });

/** Only reads reached the fake: no generation of any kind. */
function onlyReads(state: { requests: Array<{ method: string }> }): void {
  expect(state.requests.length).toBeGreaterThan(0);
  expect(state.requests.filter((r) => r.method !== "GET")).toEqual([]);
}

describe("each package's read", () => {
  const cases: Array<{
    provider: string;
    fake: (state: FakeState) => Handler;
    base: (url: string) => string;
    path: string;
    detail: string;
  }> = [
    {
      provider: "openai",
      fake: (s) => openAiFake(s, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1`,
      path: "/v1/models",
      detail: "3 models",
    },
    {
      provider: "google",
      fake: (s) => googleFake(s, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1beta`,
      path: "/v1beta/models?pageSize=1000",
      detail: "2 models",
    },
    {
      provider: "elevenlabs",
      fake: (s) => elevenLabsFake(s, { key: KEY, ffmpegPath }),
      base: (u) => u,
      path: "/v1/models",
      detail: "2 models",
    },
    {
      provider: "replicate",
      fake: (s) => replicateHostFake(s, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1`,
      path: "/v1/account",
      detail: "account ada (user)",
    },
    {
      provider: "togetherai",
      fake: (s) => togetherFake(s, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1`,
      path: "/v1/models",
      detail: "2 models",
    },
    {
      provider: "deepinfra",
      fake: (s) => deepInfraFake(s, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1`,
      path: "/v1/openai/models",
      detail: "2 models",
    },
    {
      provider: "xai",
      fake: (s) => xaiFake(s as ReturnType<typeof labsState>, { key: KEY, ffmpegPath }),
      base: (u) => `${u}/v1`,
      path: "/v1/models",
      detail: "2 models",
    },
  ];

  for (const c of cases) {
    it(`${c.provider}: GET ${c.path} with the key, and a refused key said so`, async () => {
      const state = c.provider === "xai" ? labsState() : fakeState();
      const base = c.base(await serve(c.fake(state as FakeState)));
      expect(passed(await checkProviderConnection(aiSdk(c.provider, base, KEY)))).toBe(c.detail);
      expect(state.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${c.path}`]);
      const error = failed(await checkProviderConnection(aiSdk(c.provider, base, WRONG_KEY)));
      // Google answers a wrong key 403 PERMISSION_DENIED: for the AI SDK's kinds only 401 is the key.
      expect(error).toContain(
        c.provider === "google" ? "refused to list what it serves" : "refused this server's credentials (HTTP 401)",
      );
      expect(error).not.toContain(WRONG_KEY);
      onlyReads(state);
    });
  }
});

describe("openai-images", () => {
  it("lists {base_url}/v1/models with the key, a refused one said so", async () => {
    const state = fakeState();
    const url = await serve(openAiFake(state, { key: KEY, ffmpegPath }));
    expect(passed(await checkProviderConnection(providerConfig("openai-images", url, KEY)))).toBe("3 models");
    const error = failed(await checkProviderConnection(providerConfig("openai-images", url, WRONG_KEY)));
    expect(error).toBe(
      "The provider test-openai-images refused this server's credentials (HTTP 401); the operators must check its API key.",
    );
    expect(state.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models", "GET /v1/models"]);
  });

  it("tells a 5xx, no answer within timeout_ms and an unreachable server as outages", async () => {
    const state = fakeState();
    const url = await serve(openAiFake(state, { key: KEY, ffmpegPath }));
    state.mode = "down";
    expect(failed(await checkProviderConnection(providerConfig("openai-images", url, KEY)))).toBe(
      "The provider test-openai-images failed (HTTP 500: The server had an error while processing your request. Sorry about that!). Try again later.",
    );
    state.mode = "hang";
    expect(failed(await checkProviderConnection(providerConfig("openai-images", url, KEY, { timeoutMs: 300 })))).toBe(
      "The provider test-openai-images did not answer within 0.3 s. Try again later.",
    );
    expect(failed(await checkProviderConnection(providerConfig("openai-images", await closedPortUrl(), KEY)))).toBe(
      "The provider test-openai-images could not be reached (ECONNREFUSED). Try again later.",
    );
    onlyReads(state);
  });
});

describe("an OpenAI-compatible server without a key", () => {
  it("lists its models with no Authorization header", async () => {
    const state = fakeState();
    const url = await serve(openAiFake(state, { key: null, ffmpegPath }));
    expect(passed(await checkProviderConnection(aiSdk("openai-compatible", `${url}/v1`, null)))).toBe("3 models");
    expect(state.requests[0]!.headers.authorization).toBeUndefined();
  });
});

it("says so when the package has no check, rather than pretending", async () => {
  const check = await checkProviderConnection(aiSdk("lmnt", "http://127.0.0.1:9", KEY));
  expect(failed(check)).toBe(
    'The provider test-ai-sdk (kind "ai-sdk") has no connection check: Atelier knows no free read of its API, so its key is checked on its first run.',
  );
});
