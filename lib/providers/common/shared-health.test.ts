// A provider found down in one process is out of service in all of them: a "worker" (its own
// adapter, so its own in-memory health, like `npm run worker`) runs an entry against a real local
// server that answers 502, through the engine's real run tools on a real store; the "API server"
// side (the catalog's own adapter, which never saw the failure) must then list the entry out of
// service and answer quotes with 503 + Retry-After, until a good answer clears it.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCatalog, registerRemoteModels } from "../../core/catalog/catalog";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../primitives/errors";
import { createGeneration } from "../../core/runs/generations";
import { outOfServiceModelIds } from "../../core/catalog/model-pauses";
import { quoteRun } from "../../core/runs/quotes";
import { createWorkspace } from "../../core/workspaces/workspaces";
import { claimNextRun } from "../../engine/claim";
import { createRunTools } from "../../engine/run-tools";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { remoteModels } from "../index";
import { sendJson, startTestServer, type TestServer } from "../testing/test-server";
import type { ProviderConfig } from "./types";

const ID = "sharedco/painter";

function config(baseUrl: string): ProviderConfig {
  return {
    id: "sharedco",
    kind: "openai-images",
    baseUrl,
    apiKey: null,
    timeoutMs: 5_000,
    jobTimeoutMs: null,
    options: {},
    entries: [
      {
        id: ID,
        upstreamModel: "painter-1",
        name: "Painter",
        creator: "Shared Co",
        description: "Paints, when its server is up.",
        modality: "image",
        tasks: ["text-to-image"],
        revision: "2026-11-22",
        status: "stable",
        lifecycle: null,
        inputSchema: {
          type: "object",
          properties: { prompt: { type: "string", title: "Prompt", description: "What to paint.", minLength: 1 } },
          required: ["prompt"],
          additionalProperties: false,
        },
        pricing: { unit: "image", usd: "0.05", drivers: [], overrides: [] },
        options: {},
      },
    ],
  };
}

describe(`a provider's outage is shared through the store (${testDialect()})`, () => {
  let t: TestStore;
  let server: TestServer;
  let status = 502;
  let apiSide: ModelDefinition;
  let workerSide: ModelDefinition;

  beforeAll(async () => {
    t = await openTestStore();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#884422" } })
      .png()
      .toBuffer();
    server = await startTestServer((_request, res) => {
      if (status === 200) sendJson(res, 200, { created: 1, data: [{ b64_json: png.toString("base64") }] });
      else sendJson(res, status, { error: { message: "upstream is on fire" } });
    });
    // Two adapters for one provider: the API server's (in the catalog) and a worker process's.
    apiSide = remoteModels([config(server.url)])[0]!;
    workerSide = remoteModels([config(server.url)])[0]!;
    registerRemoteModels([apiSide]);
  });
  afterAll(async () => {
    await server?.close();
    await t?.cleanup();
  });

  async function quoteError(ctx: Ctx): Promise<ApiError | null> {
    return quoteRun(ctx, { model: ID, input: { prompt: "a heron" } }).then(
      () => null,
      (err: unknown) => err as ApiError,
    );
  }

  it("a 5xx seen by a worker takes the entry out of service for the API server; a good answer brings it back", async () => {
    const db = t.store.db;
    const workspace = await createWorkspace({ db }, { name: "shared health", creditMicros: 1_000_000 });
    const ctx = testCtx(t, workspace.id);
    expect(await quoteError(ctx)).toBeNull();
    const { generation } = await createGeneration(ctx, { model: ID, input: { prompt: "a heron" } });
    const owner = "worker-elsewhere";
    const run = await claimNextRun(db, t.store.dialect, { owner, leaseMs: 60_000 });
    expect(run?.id).toBe(generation.id);
    const tools = createRunTools({
      db,
      services: ctx.services,
      run: run!,
      owner,
      signal: new AbortController().signal,
    });

    status = 502;
    const failure = await workerSide.run({ prompt: "a heron" }, tools).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as Error).message).toContain("HTTP 502");

    // The API server's adapter saw nothing: what it knows comes from the store.
    expect(apiSide.unavailableReason!()).toBeNull();
    const entry = (await listCatalog(db)).data.find((m) => m.id === ID)!;
    expect(entry.availability.status).toBe("out_of_service");
    expect(entry.availability.message).toMatch(/^its provider sharedco is failing \(HTTP 502, at /);
    expect(Date.parse(entry.availability.until!)).toBeGreaterThan(Date.now());
    const err = await quoteError(ctx);
    expect(err).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(err!.message).toContain("HTTP 502");
    const retryAfter = Number(err!.headers["Retry-After"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // Queued runs on it wait in every process's engine.
    expect(await outOfServiceModelIds(db)).toContain(ID);

    status = 200;
    const [image] = await workerSide.run({ prompt: "a heron" }, tools);
    expect(image).toMatchObject({ type: "image", width: 8, height: 8 });
    expect((await listCatalog(db)).data.find((m) => m.id === ID)!.availability.status).toBe("available");
    expect(await quoteError(ctx)).toBeNull();
    expect(await outOfServiceModelIds(db)).not.toContain(ID);
  });
});
