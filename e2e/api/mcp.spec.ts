// Issue 13 over HTTP: the MCP door (POST /mcp), driven by the official SDK's own client and its
// Streamable HTTP transport, on both stores. Tools call the same verbs as /v1: runs are recorded
// with source "mcp", money moves exactly as over REST (ledger identity after each test), another
// workspace's ids are not found, failures are tool results with the API's error code, and the
// door answers 401 with WWW-Authenticate and the API's envelope without a key.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "./fixtures";
import { call, connect } from "./mcp-client";
import sharp from "sharp";
import { createKey } from "./admin";
import { expectLedgerIdentity, makePng, micros, newTenant, PRICE, STORES, type Generation } from "./runs-helpers";
import { SERVERS } from "./servers";

const TOOL_NAMES = [
  "cancel_generation",
  "generate",
  "get_credits",
  "get_generation",
  "get_model",
  "keep_output",
  "list_generations",
  "list_models",
  "quote",
  "upload_image",
];

/** The API error carried in a failed tool result's text. */
function toolError(result: CallToolResult): { code: string; message: string; param: string | null } {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = result.content[0];
  expect(first?.type).toBe("text");
  return (
    JSON.parse((first as { text: string }).text) as { error: { code: string; message: string; param: string | null } }
  ).error;
}

function generationOf(result: CallToolResult): Generation {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as unknown as Generation;
}

function contentOfType<T extends CallToolResult["content"][number]["type"]>(result: CallToolResult, type: T) {
  return result.content.filter((c) => c.type === type) as Array<
    Extract<CallToolResult["content"][number], { type: T }>
  >;
}

test("without a key, or with a bad one: 401 with WWW-Authenticate and the API's error envelope", async ({
  request,
}) => {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const none = await request.post(`${SERVERS.main.baseURL}/mcp`, { headers, data: body });
  expect(none.status()).toBe(401);
  expect(none.headers()["www-authenticate"]).toMatch(/^Bearer /);
  expect((await none.json()).error).toMatchObject({ type: "authentication_error", code: "missing_api_key" });
  const bad = await request.post(`${SERVERS.main.baseURL}/mcp`, {
    headers: { ...headers, "x-api-key": "atl_nope" },
    data: body,
  });
  expect(bad.status()).toBe(401);
  expect((await bad.json()).error.code).toBe("invalid_api_key");
  // The SDK's client gives up with the status and shows the API's message.
  await expect(connect(SERVERS.main, "atl_nope")).rejects.toMatchObject({ code: 401, message: /looks cut short/ });
});

test("malformed messages get the JSON-RPC error they deserve, bad arguments the tool's error; GET and DELETE are 405", async ({
  request,
}) => {
  const tenant = newTenant(request, SERVERS.main, "1", "mcp-bad");
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-api-key": tenant.api.key,
  };
  const res = await request.post(`${SERVERS.main.baseURL}/mcp`, { headers, data: "{not json" });
  expect(res.status()).toBe(400);
  expect((await res.json()).error).toMatchObject({ code: -32700 });
  // The message of an SSE answer (the transport streams every tools/call answer).
  const message = async (data: unknown) => {
    const answer = await request.post(`${SERVERS.main.baseURL}/mcp`, { headers, data });
    expect(answer.status()).toBe(200);
    return JSON.parse(/^data: (.*)$/m.exec(await answer.text())![1]!) as {
      error?: { code: number; message: string };
      result?: CallToolResult;
    };
  };
  const toolsCall = (params: unknown) => message({ jsonrpc: "2.0", id: 2, method: "tools/call", params });
  // Params that are not tools/call's: JSON-RPC's invalid params, saying what is wrong.
  for (const params of [
    { name: "get_credits", arguments: null },
    { name: "get_credits", arguments: [1] },
    { arguments: {} },
    undefined,
  ]) {
    const answer = await toolsCall(params);
    expect(answer.error, JSON.stringify(params)).toMatchObject({
      code: -32602,
      message: /Invalid tools\/call request/,
    });
  }
  expect((await message({ jsonrpc: "2.0", id: 3, method: "resources/list" })).error?.code).toBe(-32601);
  // Arguments nested past the API's limit, or holding U+0000: the tool's invalid_parameter, never a crash.
  // Sent as text: the client's own serialiser would overflow on such a depth.
  const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
  const deepCall = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quote","arguments":{"model":"atelier/gradient","input":${deep}}}}`;
  expect(toolError((await message(deepCall)).result!)).toMatchObject({ code: "invalid_parameter", param: "input" });
  expect(
    toolError((await toolsCall({ name: "get_generation", arguments: { id: "gen_\u0000" } })).result!),
  ).toMatchObject({ code: "invalid_parameter", param: "id" });
  const huge = await request.post(`${SERVERS.main.baseURL}/mcp`, {
    headers,
    data: JSON.stringify({ pad: "x".repeat(7 * 1024 * 1024) }),
  });
  expect(huge.status()).toBe(413);
  expect((await huge.json()).error.code).toBe("payload_too_large");

  for (const method of ["GET", "DELETE"]) {
    const other = await request.fetch(`${SERVERS.main.baseURL}/mcp`, { method, headers });
    expect(other.status()).toBe(405);
    expect(other.headers()["allow"]).toBe("POST");
    expect((await other.json()).error.code).toBe("method_not_allowed");
  }
});

test("the tool list: every tool with a title, a description, input and output schemas and annotations", async ({
  request,
}) => {
  const tenant = newTenant(request, SERVERS.main, "1", "mcp-list");
  const client = await connect(SERVERS.main, tenant.api.key);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  for (const tool of tools) {
    expect(tool.title, tool.name).toBeTruthy();
    expect(tool.description!.length, tool.name).toBeGreaterThan(40);
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.outputSchema?.type, tool.name).toBe("object");
    expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  expect(byName.generate!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  expect(byName.cancel_generation!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
  expect(byName.list_models!.annotations).toMatchObject({ readOnlyHint: true });
  expect(byName.generate!.inputSchema.required).toEqual(["model"]);
  await client.close();
});

for (const store of STORES) {
  test.describe(`[${store.name}] MCP tools`, () => {
    test("list_models, get_model, quote: data as over REST; an invalid input names its field", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1", "mcp-catalog");
      const client = await connect(store.busy, tenant.api.key);
      const all = (await call(client, "list_models")).structuredContent as {
        models: Array<{ id: string; modality: string; price: string }>;
      };
      expect(all.models.map((m) => m.id)).toContain("atelier/gradient");
      const audio = (await call(client, "list_models", { modality: "audio" })).structuredContent as typeof all;
      expect(audio.models.length).toBeGreaterThan(0);
      expect(audio.models.every((m) => m.modality === "audio")).toBe(true);
      const found = (await call(client, "list_models", { search: "GRADIENT" })).structuredContent as typeof all;
      expect(found.models.map((m) => m.id)).toContain("atelier/gradient");
      expect(found.models.map((m) => m.id)).not.toContain("atelier/speech");
      expect(found.models.length).toBeLessThan(all.models.length);
      expect(found.models.find((m) => m.id === "atelier/gradient")?.price).toMatch(/^\$[\d.]+ \/ image$/);

      const model = (await call(client, "get_model", { id: "atelier/gradient" })).structuredContent as {
        input_schema: { properties: Record<string, unknown> };
      };
      expect(Object.keys(model.input_schema.properties)).toContain("prompt");

      const quote = await call(client, "quote", { model: "atelier/gradient", input: { prompt: "dunes" } });
      expect(micros((quote.structuredContent as { cost_usd: string }).cost_usd)).toBe(PRICE.gradientStandard);
      expect(micros((quote.structuredContent as { cost_usd: string }).cost_usd)).toBe(
        await tenant.api.quote("atelier/gradient", { prompt: "dunes" }),
      );

      expect(
        toolError(await call(client, "quote", { model: "atelier/gradient", input: { prompt: "x", num_images: 99 } })),
      ).toMatchObject({
        code: "invalid_parameter",
        param: "input.num_images",
      });
      expect(toolError(await call(client, "get_model", { id: "atelier/nothing-here" })).code).toBe(
        "resource_not_found",
      );
      expect(toolError(await call(client, "list_models", { modality: "smell" }))).toMatchObject({
        code: "invalid_parameter",
        param: "modality",
      });
      expect(toolError(await call(client, "list_models", { colour: "red" }))).toMatchObject({
        code: "invalid_parameter",
        param: "colour",
      });
      expect(
        toolError(await call(client, "quote", { model: "atelier/gradient", input: { prompt: "a\u0000b" } })),
      ).toMatchObject({ code: "invalid_parameter", param: "input.prompt" });
      await client.close();
      await expectLedgerIdentity(tenant);
    });

    test("generate: the image inline and linked, the run recorded as mcp, charged exactly the quote", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "1", "mcp-generate");
      const client = await connect(store.busy, tenant.api.key);
      const result = await call(client, "generate", {
        model: "atelier/gradient",
        input: { prompt: "harbour at dawn", resolution: "hd" },
        wait_seconds: 30,
      });
      const gen = generationOf(result);
      expect(gen.status).toBe("succeeded");
      expect(gen.source).toBe("mcp");
      const [image] = contentOfType(result, "image");
      const meta = await sharp(Buffer.from(image!.data, "base64")).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(1024);
      expect(image!.mimeType).toMatch(/^image\/(png|jpeg)$/);
      const [link] = contentOfType(result, "resource_link");
      expect(link!.uri).toBe(gen.output[0]!.url);
      const full = await request.get(link!.uri);
      expect(full.status()).toBe(200);
      expect((await sharp(await full.body()).metadata()).width).toBe(gen.output[0]!.width);

      const listed = await tenant.api.list({ source: "mcp" });
      expect(listed.data.map((g) => g.id)).toEqual([gen.id]);
      expect(micros(gen.usage.cost_usd)).toBe(PRICE.gradientHd);
      expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - PRICE.gradientHd, held: 0 });

      // The same idempotency key twice is one run.
      const first = generationOf(
        await call(client, "generate", {
          model: "atelier/gradient",
          input: { prompt: "kite" },
          idempotency_key: "mcp-once",
        }),
      );
      const again = generationOf(
        await call(client, "generate", {
          model: "atelier/gradient",
          input: { prompt: "kite" },
          idempotency_key: "mcp-once",
        }),
      );
      expect(again.id).toBe(first.id);
      await client.close();
      await expectLedgerIdentity(tenant);
    });

    test("a run still queued comes back with its id and advice, reports progress while waiting, and can be canceled", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1", "mcp-queued");
      const client = await connect(store.idle, tenant.api.key);
      const progress: Array<{ progress: number; message?: string }> = [];
      const result = await call(
        client,
        "generate",
        { model: "atelier/gradient", input: { prompt: "slow" }, wait_seconds: 3 },
        (p) => progress.push(p),
      );
      const gen = generationOf(result);
      expect(gen.status).toBe("queued");
      expect((result.content[0] as { text: string }).text).toContain(`get_generation with id "${gen.id}"`);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]!.message).toMatch(/^gen_\w+: queued, #\d+ in the queue$/);
      for (let i = 1; i < progress.length; i++)
        expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
      expect(await tenant.api.credits()).toEqual({
        available: 1_000_000 - PRICE.gradientStandard,
        held: PRICE.gradientStandard,
      });

      expect(generationOf(await call(client, "get_generation", { id: gen.id, wait_seconds: 1 })).status).toBe("queued");
      const canceled = generationOf(await call(client, "cancel_generation", { id: gen.id }));
      expect(canceled.status).toBe("canceled");
      expect(generationOf(await call(client, "cancel_generation", { id: gen.id })).status).toBe("canceled");
      expect(await tenant.api.credits()).toEqual({ available: 1_000_000, held: 0 });

      const list = (await call(client, "list_generations", { source: "mcp", status: "canceled", limit: 5 }))
        .structuredContent as { data: Generation[] };
      expect(list.data.map((g) => g.id)).toEqual([gen.id]);
      await client.close();
      await expectLedgerIdentity(tenant);
    });

    test("refusals are tool results with the code: no credit, another workspace's run, a read-only key", async ({
      request,
    }) => {
      const poor = newTenant(request, store.idle, "0", "mcp-poor");
      const client = await connect(store.idle, poor.api.key);
      expect(
        toolError(await call(client, "generate", { model: "atelier/gradient", input: { prompt: "x" } })).code,
      ).toBe("insufficient_credit");
      expect(toolError(await call(client, "generate", { model: "atelier/gradient", wait_seconds: 61 }))).toMatchObject({
        code: "invalid_parameter",
        param: "wait_seconds",
      });
      expect(await poor.api.list()).toMatchObject({ data: [] });

      const other = newTenant(request, store.idle, "1", "mcp-other");
      const { gen } = await other.api.create({ model: "atelier/gradient", input: { prompt: "mine" } });
      for (const [tool, args] of [
        ["get_generation", { id: gen.id }],
        ["cancel_generation", { id: gen.id }],
        ["keep_output", { generation_id: gen.id, index: 0 }],
      ] as const) {
        expect(toolError(await call(client, tool, args)).code, tool).toBe("resource_not_found");
      }
      expect((await other.api.read(gen.id)).status).toBe("queued");
      await client.close();

      const reader = createKey(other.workspaceId, { scopes: ["generations:read"] }, store.idle).key;
      const readOnly = await connect(store.idle, reader);
      expect(
        toolError(await call(readOnly, "generate", { model: "atelier/gradient", input: { prompt: "x" } })).code,
      ).toBe("permission_denied");
      expect(generationOf(await call(readOnly, "get_generation", { id: gen.id })).id).toBe(gen.id);
      await readOnly.close();
      await other.api.request.post(`${store.idle.baseURL}/v1/generations/${gen.id}/cancel`, {
        headers: { "x-api-key": other.api.key },
      });
      await expectLedgerIdentity(poor);
      await expectLedgerIdentity(other);
    });

    test("upload_image feeds a run; keep_output keeps its result; sound comes back as audio, video as its poster", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "5", "mcp-files");
      const client = await connect(store.busy, tenant.api.key);
      const png = await makePng(64, 48);
      const uploaded = (
        await call(client, "upload_image", {
          data: `data:image/png;base64,${png.toString("base64")}`,
          filename: "tile.png",
        })
      ).structuredContent as { id: string; width: number };
      expect(uploaded.id).toMatch(/^file_/);
      expect(uploaded.width).toBe(64);
      expect(toolError(await call(client, "upload_image", { data: "not base64 at all!" }))).toMatchObject({
        code: "invalid_parameter",
        param: "data",
      });

      const edited = generationOf(
        await call(client, "generate", {
          model: "atelier/upscale",
          input: { image: uploaded.id, scale: 2 },
          wait_seconds: 60,
        }),
      );
      expect(edited.status).toBe("succeeded");
      const kept = (await call(client, "keep_output", { generation_id: edited.id, index: 0 })).structuredContent as {
        id: string;
      };
      expect(
        (await call(client, "keep_output", { generation_id: edited.id, index: 0 })).structuredContent,
      ).toMatchObject({ id: kept.id });

      const speech = await call(client, "generate", {
        model: "atelier/speech",
        input: { text: "Hello from the agent." },
        wait_seconds: 60,
      });
      expect(generationOf(speech).status).toBe("succeeded");
      const [audio] = contentOfType(speech, "audio");
      expect(audio!.mimeType).toMatch(/^audio\//);
      expect(Buffer.from(audio!.data, "base64").length).toBeGreaterThan(1000);

      const video = await call(client, "generate", {
        model: "atelier/title-motion",
        input: { prompt: "teal dusk", title: "Agents", duration: 2 },
        wait_seconds: 60,
      });
      const videoGen = generationOf(video);
      expect(videoGen.status).toBe("succeeded");
      expect(contentOfType(video, "image")).toHaveLength(1);
      expect(contentOfType(video, "resource_link")[0]!.mimeType).toBe("video/mp4");
      expect((videoGen.output[0] as { poster?: unknown }).poster).toBeTruthy();

      const credits = (await call(client, "get_credits")).structuredContent as {
        available_usd: string;
        held_usd: string;
      };
      expect({ available: micros(credits.available_usd), held: micros(credits.held_usd) }).toEqual(
        await tenant.api.credits(),
      );
      await client.close();
      await expectLedgerIdentity(tenant);
    });
  });
}

test("the per-key rate limit counts MCP calls: past it, HTTP 429 with the envelope", async ({ request }) => {
  const spec = SERVERS.keyLimit;
  const tenant = newTenant(request, spec, "1", "mcp-rate");
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-api-key": tenant.api.key,
  };
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await request.post(`${spec.baseURL}/mcp`, { headers, data: list })).status());
  expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
  expect(statuses[4]).toBe(429);
  const limited = await request.post(`${spec.baseURL}/mcp`, { headers, data: list });
  expect((await limited.json()).error.code).toBe("rate_limit_exceeded");
  expect(limited.headers()["retry-after"]).toBeTruthy();
});
