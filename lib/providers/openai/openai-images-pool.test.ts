// An openai-images provider over a `pool` of servers (openai-images-pool.ts, server-pool.ts),
// against real local HTTP servers that speak the OpenAI images API: each call goes to the server
// with the fewest calls in flight, never past its max_running (waiting, cancelably); a server that
// fails (killed mid-call, unreachable, 5xx) is out alone and the call goes to another; a refusal is
// not tried again; every server down is an outage of the provider, shared through the store.
import type { ServerResponse } from "node:http";
import { getEventListeners } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { ModelError, type ImageOutput, type ModelDefinition } from "../../core/catalog/model-definition";
import { listCatalog, registerRemoteModels } from "../../core/catalog/catalog";
import { createGeneration } from "../../core/runs/generations";
import { createWorkspace } from "../../core/workspaces/workspaces";
import { claimNextRun } from "../../engine/claim";
import { createRunTools } from "../../engine/run-tools";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { fakePng } from "../testing/fake-media";
import { failureOf } from "../testing/test-failures";
import { eventually, sendJson, startTestServer, type RecordedRequest, type TestServer } from "../testing/test-server";
import { checkProviderConnection } from "../connection-check";
import { parseProvidersFile, ProvidersFileError } from "../providers-file";
import { remoteModels } from "../index";
import type { ProviderConfig } from "../common/types";

type Json = Record<string, unknown>;
const KEY = "sk-pool-7c1e";

const ENTRY: Json = {
  id: "local-gpus/image-1",
  upstream_model: "image-1",
  name: "Image 1",
  description: "An image model on the local GPU servers.",
  modality: "image",
  tasks: ["text-to-image"],
  input_schema: {
    type: "object",
    properties: { prompt: { type: "string", title: "Prompt", description: "What to draw.", minLength: 1 } },
    required: ["prompt"],
    additionalProperties: false,
  },
  pricing: { unit: "image", usd: "0.01", drivers: [] },
};

function parse(provider: Json): ProviderConfig {
  const file = {
    providers: [
      {
        id: "local-gpus",
        kind: "openai-images",
        api_key_env: "POOL_API_KEY",
        timeout_ms: 5_000,
        entries: [ENTRY],
        ...provider,
      },
    ],
  };
  return parseProvidersFile(JSON.stringify(file), { POOL_API_KEY: KEY })[0]!;
}

function parseError(provider: Json | string): string {
  try {
    if (typeof provider === "string")
      parseProvidersFile(`{"providers": [${provider}]}`, { POOL_API_KEY: KEY }); // a document JSON.parse reads as is
    else parse(provider);
  } catch (err) {
    expect(err).toBeInstanceOf(ProvidersFileError);
    return (err as Error).message;
  }
  throw new Error("the providers file parsed");
}

/**
 * A local OpenAI-compatible image server: one PNG per call (after `gate`, when held), its model
 * list for the connection check; `active` and `mostActive` count the calls it holds at once.
 */
interface ImageServer extends TestServer {
  active: number;
  mostActive: number;
  /** Held: calls wait until release(); `answer` other than 200 answers that status instead. */
  hold(): void;
  release(): void;
  answer: number;
  generations(): RecordedRequest[];
}

let servers: ImageServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function imageServer(): Promise<ImageServer> {
  let gate: { promise: Promise<void>; open(): void } | null = null;
  const png = await fakePng(16, 12, "pool");
  const server = (await startTestServer(async (request, res: ServerResponse) => {
    if (request.method === "GET" && request.path === "/v1/models")
      return sendJson(res, 200, { object: "list", data: [{ id: "image-1", object: "model" }] });
    s.active++;
    s.mostActive = Math.max(s.mostActive, s.active);
    let counted = true;
    const done = () => {
      if (counted) s.active--;
      counted = false;
    };
    res.on("close", done);
    if (gate) await gate.promise;
    // Not counted from here: the answer is on its way (the client may send the next call before "close").
    done();
    if (s.answer === 200) sendJson(res, 200, { created: 1, data: [{ b64_json: png.toString("base64") }] });
    else if (s.answer === 400)
      sendJson(res, 400, { error: { message: "Your prompt was rejected by our safety system." } });
    else sendJson(res, s.answer, { error: { message: "the GPU fell over" } });
  })) as ImageServer;
  const s = Object.assign(server, {
    active: 0,
    mostActive: 0,
    answer: 200,
    hold() {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = null;
    },
    generations: () => server.requests.filter((r) => r.path === "/v1/images/generations"),
  });
  servers.push(s);
  return s;
}

async function imageServers(n: number): Promise<ImageServer[]> {
  return Promise.all(Array.from({ length: n }, () => imageServer()));
}

/** The provider's entry over `pool` (one adapter, as in the server). */
function poolModel(pool: Array<{ server: TestServer; max?: number }>): ModelDefinition {
  const config = parse({
    pool: pool.map((p) => ({ base_url: p.server.url, ...(p.max ? { max_running: p.max } : {}) })),
  });
  return remoteModels([config])[0]!;
}

const run = (model: ModelDefinition, tools = testRunTools()) => runModelForTest(model, { prompt: "a fox" }, tools);

describe("pool of an openai-images provider, in the providers file", () => {
  it("reads the servers, max_running 1 by default, base_url left out or the first server's", () => {
    const config = parse({
      pool: [{ base_url: "http://10.0.0.1:8080/" }, { base_url: "http://10.0.0.2:8080", max_running: 4 }],
    });
    expect(config).toMatchObject({ baseUrl: "" });
    expect(config.options.pool).toEqual([
      { baseUrl: "http://10.0.0.1:8080", maxRunning: 1 },
      { baseUrl: "http://10.0.0.2:8080", maxRunning: 4 },
    ]);
    const both = parse({ base_url: "http://10.0.0.1:8080", pool: [{ base_url: "http://10.0.0.1:8080" }] });
    expect(both.baseUrl).toBe("http://10.0.0.1:8080");
    expect(parse({ base_url: "http://10.0.0.1:8080" }).options).toEqual({});
  });

  it.each<[string, Json | string, string]>([
    [
      "neither base_url nor pool",
      {},
      "providers[0].base_url is required (the server's URL), unless pool lists the servers.",
    ],
    ["an empty pool", { pool: [] }, "providers[0].pool must hold at least 1 item."],
    [
      "a pool that is not a list",
      { pool: { base_url: "http://10.0.0.1" } },
      "providers[0].pool must be an array; got an object.",
    ],
    [
      "a server twice",
      { pool: [{ base_url: "http://10.0.0.1:8080" }, { base_url: "http://10.0.0.1:8080/", max_running: 2 }] },
      "providers[0].pool[1].base_url repeats pool[0]'s (http://10.0.0.1:8080); list each server once (raise its max_running instead).",
    ],
    [
      "base_url naming another server than the pool's first",
      { base_url: "http://10.0.0.9:8080", pool: [{ base_url: "http://10.0.0.1:8080" }] },
      "providers[0].base_url must be left out or be the first server of pool (http://10.0.0.1:8080).",
    ],
    ...[0, -1, 1.5, "1e3", 65, null].map((bad): [string, Json, string] => [
      `max_running ${JSON.stringify(bad)}`,
      { pool: [{ base_url: "http://10.0.0.1:8080", max_running: bad }] },
      `providers[0].pool[0].max_running must be a whole number from 1 to 64; got ${JSON.stringify(bad)}.`,
    ]),
    ["a server without base_url", { pool: [{ max_running: 2 }] }, "providers[0].pool[0].base_url is required."],
    [
      "a __proto__ key in a server",
      '{"id": "local-gpus", "kind": "openai-images", "entries": [], "pool": [{"base_url": "http://10.0.0.1:8080", "__proto__": {"max_running": 3}}]}',
      "providers[0].pool[0].__proto__ is not a known field; the fields are: base_url, max_running.",
    ],
    [
      "a __proto__ key beside pool",
      '{"id": "local-gpus", "kind": "openai-images", "entries": [], "pool": [{"base_url": "http://10.0.0.1:8080"}], "__proto__": {"pool": []}}',
      "providers[0].__proto__ is not a known field",
    ],
  ])("refuses %s, naming the field", (_what, provider, message) => {
    expect(parseError(provider)).toContain(message);
  });
});

describe("an openai-images provider over a pool of servers", () => {
  it("sends the next call to the other server while one holds a slow call", async () => {
    const [a, b] = await imageServers(2);
    const model = poolModel([
      { server: a!, max: 2 },
      { server: b!, max: 2 },
    ]);
    a!.hold();
    const slow = run(model);
    await eventually(() => a!.active === 1);
    expect(await run(model)).toMatchObject([{ type: "image", width: 16, height: 12 }]);
    expect([a!.generations().length, b!.generations().length]).toEqual([1, 1]);
    expect(b!.generations()[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    a!.release();
    expect(await slow).toHaveLength(1);
  });

  it("moves a call whose server was killed mid-call to the other; that server is out alone", async () => {
    const [a, b] = await imageServers(2);
    const model = poolModel([{ server: a! }, { server: b! }]);
    a!.hold();
    const tools = testRunTools();
    const moved = run(model, tools);
    await eventually(() => a!.active === 1);
    await a!.close();
    const [image] = (await moved) as ImageOutput[];
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 16, height: 12 });
    expect(b!.generations()).toHaveLength(1);
    // The provider stays in service, and tells the other processes so.
    expect(model.unavailableReason!()).toBeNull();
    expect(tools.providerReports).toEqual([{ providerId: "local-gpus", down: null }]);
    // Server A stays out: the next calls go to B without trying A.
    const before = a!.requests.length;
    for (let i = 0; i < 2; i++) expect(await run(model)).toHaveLength(1);
    expect(a!.requests.length).toBe(before);
    expect(b!.generations()).toHaveLength(3);
  });

  it("tries a call a server failed with a 5xx on another server, but not one it refused (400)", async () => {
    const [a, b] = await imageServers(2);
    const model = poolModel([{ server: a! }, { server: b! }]);
    a!.answer = 502;
    expect(await run(model)).toHaveLength(1);
    expect([a!.generations().length, b!.generations().length]).toEqual([1, 1]);
    expect(model.unavailableReason!()).toBeNull();

    const [c, d] = await imageServers(2);
    const refusing = poolModel([{ server: c! }, { server: d! }]);
    c!.answer = 400;
    expect((await failureOf(run(refusing), ModelError)).message).toBe(
      "The provider local-gpus refused the request: Your prompt was rejected by our safety system.",
    );
    expect([c!.generations().length, d!.generations().length]).toEqual([1, 0]);
    expect(refusing.unavailableReason!()).toBeNull();
  });

  it("takes the provider out of service when every server is down", async () => {
    const [a, b] = await imageServers(2);
    const model = poolModel([{ server: a! }, { server: b! }]);
    await Promise.all([a!.close(), b!.close()]);
    const tools = testRunTools();
    const failure = await failureOf(run(model, tools));
    expect(failure).toMatchObject({
      transient: true,
      message: expect.stringMatching(/^The provider local-gpus could not be reached \(\w+\)\. Try again later\.$/),
    });
    expect(model.unavailableReason!()?.message).toMatch(
      /^its provider local-gpus is failing \(every server is out of service; server [12]: unreachable \(\w+\), at /,
    );
    expect(tools.providerReports).toMatchObject([
      { providerId: "local-gpus", down: { reason: expect.stringContaining("every server is out of service") } },
    ]);
    // Meanwhile a run (one queued before the catalog knew) fails at once, without a call.
    expect((await failureOf(run(model))).message).toBe(
      "The provider local-gpus has no server in service: each stopped answering a moment ago. Try again later.",
    );
  });

  it("holds each server to max_running: with 1, calls to one server go one after another", async () => {
    const [a] = await imageServers(1);
    const model = poolModel([{ server: a!, max: 1 }]);
    a!.hold();
    const runs = [run(model), run(model), run(model)];
    for (let sent = 1; sent <= 3; sent++) {
      await eventually(() => a!.generations().length === sent);
      if (sent < 3) a!.release();
      if (sent < 3) a!.hold();
    }
    a!.release();
    expect((await Promise.all(runs)).flat()).toHaveLength(3);
    expect(a!.mostActive).toBe(1);
  });

  it("cancels a run waiting for a slot: nothing is sent for it, and its place is not kept", async () => {
    const [a] = await imageServers(1);
    const model = poolModel([{ server: a!, max: 1 }]);
    a!.hold();
    const first = run(model);
    await eventually(() => a!.active === 1);
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    const waiting = run(model, tools);
    // It waits for the slot listening to its run's signal (the pool's wait is its only listener then).
    await eventually(() => getEventListeners(controller.signal, "abort").length === 1);
    controller.abort(new Error("run canceled"));
    const failure = await failureOf(waiting);
    expect(failure.message).toBe("run canceled");
    expect(failure).not.toBeInstanceOf(ModelError);
    // It never reached its cancel point, so nothing is billed, and the provider stays in service.
    expect(tools.uncancelableReasons).toEqual([]);
    expect(model.unavailableReason!()).toBeNull();
    a!.release();
    expect(await first).toHaveLength(1);
    // The slot is free: the next run goes at once; the canceled one never reached the server.
    expect(await run(model)).toHaveLength(1);
    expect(a!.generations()).toHaveLength(2);
  });

  it("gives the slot back when the run is canceled at its cancel point", async () => {
    const [a] = await imageServers(1);
    const model = poolModel([{ server: a!, max: 1 }]);
    const tools = testRunTools();
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    await expect(run(model, tools)).rejects.toThrow("cancel point");
    expect(a!.generations()).toHaveLength(0);
    expect(await run(model)).toHaveLength(1);
  });

  it("checks the connection of each server and names the ones that do not answer", async () => {
    const [a, b, c] = await imageServers(3);
    await c!.close();
    const config = parse({ pool: [a!, b!, c!].map((s) => ({ base_url: s.url })) });
    expect(await checkProviderConnection(config)).toMatchObject({
      ok: true,
      detail:
        "2 of 3 servers answer: server 1 (1 model); server 2 (1 model); server 3 does not answer (unreachable (ECONNREFUSED))",
    });
    expect(a!.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    await Promise.all([a!.close(), b!.close()]);
    const down = await checkProviderConnection(config);
    expect(!down.ok && down.error).toMatch(
      /^The provider local-gpus could not be reached \(\w+\)\. Try again later\.$/,
    );
  });
});

// The pool's health as every process sees it: a worker's run through the engine's real run tools
// on a real store; the API server's adapter (the catalog's) learns only from the store.
describe(`a pool's health is shared through the store (${testDialect()})`, () => {
  let t: TestStore;
  let a: ImageServer;
  let b: ImageServer;
  let config: ProviderConfig;

  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("one server down keeps the entry in service everywhere; every server down takes it out", async () => {
    [a, b] = (await imageServers(2)) as [ImageServer, ImageServer];
    config = parse({ pool: [{ base_url: a.url }, { base_url: b.url }] });
    const [apiSide] = remoteModels([config]);
    const [workerSide] = remoteModels([config]);
    registerRemoteModels([apiSide!]);
    const db = t.store.db;
    const id = "local-gpus/image-1";
    const workspace = await createWorkspace({ db }, { name: "pool health", creditMicros: 1_000_000 });
    const ctx = testCtx(t, workspace.id);
    await createGeneration(ctx, { model: id, input: { prompt: "a heron" } });
    const run = await claimNextRun(db, t.store.dialect, { owner: "worker-elsewhere", leaseMs: 60_000 });
    const tools = createRunTools({
      db,
      services: ctx.services,
      run: run!,
      owner: "worker-elsewhere",
      signal: new AbortController().signal,
    });
    const status = async () => (await listCatalog(db)).data.find((m) => m.id === id)!.availability;

    a.answer = 503;
    expect(await workerSide!.run({ prompt: "a heron" }, tools)).toHaveLength(1);
    expect((await status()).status).toBe("available");

    b.answer = 503;
    // Server A is out alone for a while: this call goes to B, which fails too.
    const failure = await workerSide!.run({ prompt: "a heron" }, tools).catch((err: unknown) => err);
    expect((failure as Error).message).toBe(
      "The provider local-gpus failed (HTTP 503: the GPU fell over). Try again later.",
    );
    expect(apiSide!.unavailableReason!()).toBeNull();
    const out = await status();
    expect(out.status).toBe("out_of_service");
    expect(out.message).toMatch(
      /^its provider local-gpus is failing \(every server is out of service; server 2: HTTP 503, at /,
    );
    registerRemoteModels([]);
    await Promise.all([a.close(), b.close()]);
  });
});
