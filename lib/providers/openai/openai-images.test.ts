import type { ServerResponse } from "node:http";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { ModelError, type ImageOutput, type ModelDefinition } from "../../core/catalog/model-definition";
import { fakePng } from "../testing/fake-media";
import { remoteModels } from "../index";
import { openAiImagesAdapter } from "./openai-images";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition } from "../common/remote-model";
import { failureOf } from "../testing/test-failures";
import { eventually, sendJson, startTestServer, type RecordedRequest, type TestServer } from "../testing/test-server";

const KEY = "sk-test-4f9a";

function providersFile(baseUrl: string, timeoutMs: number): string {
  return JSON.stringify({
    providers: [
      {
        id: "acme",
        kind: "openai-images",
        base_url: baseUrl,
        api_key_env: "ACME_API_KEY",
        timeout_ms: timeoutMs,
        entries: [
          {
            id: "acme/image-1",
            upstream_model: "image-1",
            name: "Acme Image 1",
            description: "Acme's first image model.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: {
              type: "object",
              properties: {
                prompt: { type: "string", title: "Prompt", description: "What to draw.", minLength: 1 },
                n: { type: "integer", title: "Images", description: "How many.", minimum: 1, maximum: 4, default: 1 },
                size: {
                  type: "string",
                  title: "Size",
                  description: "Width x height.",
                  enum: ["64x48", "32x32"],
                  default: "64x48",
                },
              },
              required: ["prompt"],
              additionalProperties: false,
            },
            pricing: { unit: "image", usd: "0.04", drivers: ["n"] },
          },
        ],
      },
    ],
  });
}

function acmeModel(baseUrl: string, timeoutMs = 5_000): ModelDefinition {
  const [model] = remoteModels(parseProvidersFile(providersFile(baseUrl, timeoutMs), { ACME_API_KEY: KEY }));
  return model!;
}

/** A public-looking storage host for result links; the test's fetch sends its requests to a local server. */
const STORAGE = "http://storage.example.test";

/** The model with a fetch that serves STORAGE from `storageUrl` (real storage hosts are not on this machine). */
function acmeModelWithStorage(baseUrl: string, storageUrl: string): ModelDefinition {
  const [provider] = parseProvidersFile(providersFile(baseUrl, 5_000), { ACME_API_KEY: KEY });
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return globalThis.fetch(url.startsWith(STORAGE) ? storageUrl + url.slice(STORAGE.length) : input, init);
  };
  return remoteModelDefinition(provider!, provider!.entries[0]!, openAiImagesAdapter(provider!, fetch));
}

/** What an OpenAI-compatible provider does with a generation request: n images of `size`. */
async function imagesFor(request: RecordedRequest): Promise<Buffer[]> {
  const body = JSON.parse(request.body) as { prompt: string; n: number; size: string };
  const [width, height] = body.size.split("x").map(Number) as [number, number];
  return Promise.all(Array.from({ length: body.n }, (_, i) => fakePng(width, height, `${body.prompt}#${i}`)));
}

async function answerB64(request: RecordedRequest, res: ServerResponse, served: Buffer[] = []): Promise<void> {
  const images = await imagesFor(request);
  served.push(...images);
  sendJson(res, 200, { created: 1, data: images.map((image) => ({ b64_json: image.toString("base64") })) });
}

/** The run fails with a message fit for the person (a ModelError, which the engine shows). */
async function expectModelError(run: Promise<unknown>, message: string): Promise<void> {
  expect((await failureOf(run, ModelError)).message).toBe(message);
}

let server: TestServer | null = null;
let other: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  await other?.close();
  server = other = null;
});

describe("openai-images provider", () => {
  it("sends the request with the key, past the cancel point, and returns the b64 images as they came", async () => {
    const served: Buffer[] = [];
    const tools = testRunTools();
    let cancelPointAtArrival: string[] | null = null;
    server = await startTestServer((request, res) => {
      cancelPointAtArrival = [...tools.uncancelableReasons];
      return answerB64(request, res, served);
    });
    const outputs = (await runModelForTest(
      acmeModel(server.url),
      { prompt: "a red fox", n: 2 },
      tools,
    )) as ImageOutput[];

    expect(cancelPointAtArrival).toEqual(["provider"]);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/images/generations" });
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(request!.body)).toEqual({
      model: "image-1",
      prompt: "a red fox",
      n: 2,
      size: "64x48",
      response_format: "b64_json",
    });

    expect(outputs).toHaveLength(2);
    for (const [i, output] of outputs.entries()) {
      expect(output).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
      expect(output.data.equals(served[i]!)).toBe(true);
      const meta = await sharp(output.data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 64, 48]);
      const stats = await sharp(output.data).stats();
      expect(stats.channels.some((c) => c.stdev > 0)).toBe(true);
    }
    expect(outputs[0]!.data.equals(outputs[1]!.data)).toBe(false);
  });

  it("fetches url results, finds their type from the bytes, and sends the key to the provider's own host only", async () => {
    const jpeg = await sharp(await fakePng(40, 30, "harbour"))
      .jpeg()
      .toBuffer();
    other = await startTestServer((_request, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(jpeg);
    });
    server = await startTestServer((request, res) => {
      if (request.path === "/files/own.jpg") return void res.writeHead(200, { "content-type": "image/jpeg" }).end(jpeg);
      sendJson(res, 200, {
        created: 1,
        data: [{ url: `${server!.url}/files/own.jpg` }, { url: `${STORAGE}/bucket/x.jpg?sig=1` }],
      });
    });
    const outputs = (await runModelForTest(acmeModelWithStorage(server.url, other.url), {
      prompt: "a harbour",
      n: 2,
    })) as ImageOutput[];

    expect(outputs.map((o) => [o.content_type, o.width, o.height])).toEqual([
      ["image/jpeg", 40, 30],
      ["image/jpeg", 40, 30],
    ]);
    expect(outputs.every((o) => o.data.equals(jpeg))).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/images/generations", "/files/own.jpg"]);
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(other.requests.map((r) => r.path)).toEqual(["/bucket/x.jpg?sig=1"]);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("refuses a result link on a local address other than the provider's own (the AI SDK's download guard), without fetching it", async () => {
    other = await startTestServer((_request, res) => void res.writeHead(200, { "content-type": "image/png" }).end());
    server = await startTestServer((_request, res) =>
      sendJson(res, 200, { created: 1, data: [{ url: `${other!.url}/private.png` }] }),
    );
    const model = acmeModel(server.url);
    await expectModelError(
      runModelForTest(model, { prompt: "a harbour" }),
      "The provider acme gave a result link Atelier does not fetch (not http(s), or a local or private address).",
    );
    expect(other.requests).toHaveLength(0);
    expect(model.unavailableReason!()).toBeNull();
  });

  it("passes on the provider's own message when it refuses the request (4xx), and stays in service", async () => {
    server = await startTestServer((_request, res) =>
      sendJson(res, 400, {
        error: { message: "Your prompt was rejected by our safety system.", type: "invalid_request_error" },
      }),
    );
    const model = acmeModel(server.url);
    const failure = runModelForTest(model, { prompt: "something refused" });
    await expect(failure).rejects.toThrow(ModelError);
    await expect(failure).rejects.toThrow(
      "The provider acme refused the request: Your prompt was rejected by our safety system.",
    );
    expect(model.unavailableReason!()).toBeNull();
  });

  it("fails the run and takes the provider's entries out of service for a while on a 5xx", async () => {
    server = await startTestServer((_request, res) =>
      sendJson(res, 502, { error: { message: "upstream overloaded" } }),
    );
    const model = acmeModel(server.url);
    expect(model.unavailableReason!()).toBeNull();
    await expectModelError(
      runModelForTest(model, { prompt: "a fox" }),
      "The provider acme failed (HTTP 502: upstream overloaded). Try again later.",
    );
    const reason = model.unavailableReason!();
    expect(reason?.message).toMatch(/^its provider acme is failing \(HTTP 502, at \d{4}-.*Z\)$/);
    const secondsLeft = (Date.parse(reason!.until!) - Date.now()) / 1000;
    expect(secondsLeft).toBeGreaterThan(20);
    expect(secondsLeft).toBeLessThanOrEqual(30);
  });

  it("gives up after timeout_ms when the provider never answers, aborts the request and marks it down", async () => {
    server = await startTestServer(() => undefined);
    const model = acmeModel(server.url, 300);
    await expectModelError(
      runModelForTest(model, { prompt: "a fox" }),
      "The provider acme did not answer within 0.3 s. Try again later.",
    );
    await eventually(() => server!.abandoned.length === 1);
    expect(model.unavailableReason!()?.message).toContain("no answer within 0.3 s");
  });

  it("waits for a slow answer that comes within the timeout", async () => {
    server = await startTestServer(async (request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await answerB64(request, res);
    });
    const model = acmeModel(server.url, 5_000);
    const outputs = await runModelForTest(model, { prompt: "a slow fox", size: "32x32" });
    expect(outputs).toMatchObject([{ type: "image", content_type: "image/png", width: 32, height: 32 }]);
    expect(model.unavailableReason!()).toBeNull();
  });

  it("aborts the request when the run's signal is aborted, without blaming the provider", async () => {
    const controller = new AbortController();
    server = await startTestServer(() => {
      controller.abort(new Error("run canceled"));
    });
    const model = acmeModel(server.url);
    const failure = runModelForTest(model, { prompt: "a fox" }, testRunTools({ signal: controller.signal }));
    await expect(failure).rejects.toThrow("run canceled");
    await expect(failure).rejects.not.toBeInstanceOf(ModelError);
    await eventually(() => server!.abandoned.length === 1);
    expect(model.unavailableReason!()).toBeNull();
  });

  it("sends nothing when the run cannot pass its cancel point (canceled meanwhile)", async () => {
    server = await startTestServer(answerB64);
    const tools = testRunTools();
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    await expect(runModelForTest(acmeModel(server.url), { prompt: "a fox" }, tools)).rejects.toThrow("cancel point");
    expect(server.requests).toHaveLength(0);
  });

  it("marks the provider down when it cannot be reached", async () => {
    const gone = await startTestServer(() => undefined);
    await gone.close();
    const model = acmeModel(gone.url);
    await expectModelError(
      runModelForTest(model, { prompt: "a fox" }),
      "The provider acme could not be reached (ECONNREFUSED). Try again later.",
    );
    expect(model.unavailableReason!()?.message).toContain("unreachable (ECONNREFUSED)");
  });

  it("does not show the provider's words when it refuses the key (401)", async () => {
    server = await startTestServer((_request, res) =>
      sendJson(res, 401, { error: { message: `Incorrect API key provided: ${KEY}` } }),
    );
    const failure = runModelForTest(acmeModel(server.url), { prompt: "a fox" });
    await expect(failure).rejects.toThrow("refused this server's credentials (HTTP 401)");
    await expect(failure).rejects.not.toThrow(KEY);
  });

  it("refuses a result that is not an image", async () => {
    server = await startTestServer((_request, res) =>
      sendJson(res, 200, { data: [{ b64_json: Buffer.from("<html>not an image</html>").toString("base64") }] }),
    );
    await expectModelError(
      runModelForTest(acmeModel(server.url), { prompt: "a fox" }),
      "The provider acme returned a result that is not an image Atelier serves (PNG, JPEG, WebP, GIF or AVIF).",
    );
  });
});
