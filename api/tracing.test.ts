// Traces (docs/operating.md, "Traces"), end to end against a real OTLP/HTTP receiver (a plain
// node:http server reading the JSON the exporter posts to /v1/traces): a create through the API
// served by node:http in this process, run by `npm run worker` in another process against a local
// Replicate, makes one trace — the request's span, the create's, its store transaction, then the
// worker's execution and its provider call — and the worker's log line carries the trace's ID.
// Without an endpoint nothing of the SDK is loaded, no span is made and no run keeps a trace context.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "./app";
import { createRateLimits } from "./rate-limit";
import { loadConfig } from "../lib/boot/config";
import { startTracing, type Tracing } from "../lib/boot/tracing";
import { registerRemoteModels } from "../lib/core/catalog/catalog";
import { createApiKey } from "../lib/core/keys/api-keys";
import { createWorkspace } from "../lib/core/workspaces/workspaces";
import { createLogger } from "../lib/primitives/logger";
import { isTracing } from "../lib/primitives/tracing";
import { remoteModels } from "../lib/providers/index";
import { parseProvidersFile } from "../lib/providers/providers-file";
import {
  FAKE_REPLICATE_MODELS,
  startReplicateFake,
  type ReplicateFake,
} from "../lib/providers/replicate/testing/replicate-fake";
import { startTestServer, type TestServer } from "../lib/providers/testing/test-server";
import { testCtx, testDialect, useTestStore } from "../lib/store/testing/test-store";

const ROOT = path.resolve(__dirname, "..");
const SECRET_KEY = "tracing-test-secret-key-0123456789abcdef";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
interface Exported extends OtlpSpan {
  service: string;
}

/** Every span the receiver got, with its resource's service.name (OTLP/JSON, as the exporter posts it). */
function spansOf(receiver: TestServer): Exported[] {
  return receiver.requests.flatMap((request) => {
    const body = JSON.parse(request.body) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { spans: OtlpSpan[] }[];
      }[];
    };
    return body.resourceSpans.flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue ?? "";
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, service })));
    });
  });
}

/** An attribute's value as the OTLP JSON carries it (stringValue, intValue as a string or number, boolValue). */
function attr(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ("intValue" in value) return Number(value.intValue);
  return Object.values(value)[0];
}

/** Waits for `condition`, failing after a generous deadline (no timing is asserted). */
async function until<T>(what: string, condition: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const flux = FAKE_REPLICATE_MODELS[0]!;
function providersFile(replicate: ReplicateFake): string {
  return JSON.stringify({
    providers: [
      {
        id: "traced-replicate",
        kind: "replicate",
        base_url: replicate.url,
        api_key_env: "REPLICATE_API_TOKEN",
        timeout_ms: 5_000,
        entries: [
          {
            id: "traced/flux",
            upstream_model: `${flux.owner}/${flux.name}`,
            name: "FLUX, traced",
            description: "FLUX on the local Replicate.",
            modality: "image",
            tasks: ["text-to-image"],
            input_schema: {
              type: "object",
              additionalProperties: false,
              required: ["prompt"],
              properties: { prompt: { type: "string", minLength: 1 } },
            },
            pricing: { unit: "image", usd: "0.01" },
          },
        ],
      },
    ],
  });
}

/** The API door served by node:http, as server.ts serves it. */
async function serve(app: ReturnType<typeof createApiApp>): Promise<{ url: string; server: Server }> {
  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe(`traces from a request to a worker's provider call (${testDialect()})`, () => {
  const s = useTestStore();
  let receiver: TestServer;
  let replicate: ReplicateFake;
  let tracing: Tracing | null = null;
  let worker: ChildProcess | null = null;
  let workerOutput = "";
  let api: { url: string; server: Server } | null = null;
  const logLines: string[] = [];

  beforeAll(async () => {
    receiver = await startTestServer((request, res) => {
      res.writeHead(request.path === "/v1/traces" ? 200 : 404, { "content-type": "application/json" }).end("{}");
    });
    replicate = await startReplicateFake();
  });
  afterAll(async () => {
    registerRemoteModels([]);
    await tracing?.shutdown();
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker!.once("exit", resolve));
      worker.kill("SIGTERM");
      await exited;
    }
    await new Promise((resolve) => api?.server.close(resolve) ?? resolve(undefined));
    await replicate?.close();
    await receiver?.close();
  });

  it("makes one trace from the API request through the store to the execution in a worker process", async () => {
    const { store } = s.t;
    const file = path.join(s.t.dataDir, "providers.json");
    writeFileSync(file, providersFile(replicate));
    // The store the worker opens: this test's SQLite file, or its PostgreSQL schema.
    const databaseUrl = s.t.postgres
      ? `${s.t.postgres.databaseUrl}${s.t.postgres.databaseUrl.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${s.t.postgres.schema}`)}`
      : "";
    worker = spawn(process.execPath, ["--import", "tsx", "bin/worker.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: s.t.dataDir,
        DATABASE_URL: databaseUrl,
        SECRET_KEY,
        PROVIDERS_FILE: file,
        REPLICATE_API_TOKEN: replicate.token,
        WORKER_CONCURRENCY: "1",
        LOG_LEVEL: "debug",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_SERVICE_NAME: "atelier-test-worker",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout!.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
    worker.stderr!.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
    await until("the worker to start", () => workerOutput.includes('"worker started"') || worker!.exitCode !== null);
    expect(worker.exitCode, workerOutput).toBeNull();

    // This process: tracing on before the API is built (it decides once), a logger we read.
    const config = loadConfig({
      DATA_DIR: s.t.dataDir,
      SECRET_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
    });
    expect(config.traces).toEqual({ url: `${receiver.url}/v1/traces` });
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString().split("\n").filter(Boolean));
        done();
      },
    });
    const logger = createLogger("info", "atelier-test", lines);
    tracing = await startTracing(config, "atelier-test-api", logger);
    expect(isTracing()).toBe(true);
    registerRemoteModels(
      remoteModels(parseProvidersFile(providersFile(replicate), { REPLICATE_API_TOKEN: replicate.token })),
    );
    const workspace = await createWorkspace({ db: store.db }, { name: "traced", creditMicros: 1_000_000 });
    const { key } = await createApiKey({ db: store.db }, { workspaceId: workspace.id, name: "t", prefix: "atl" });
    const services = { ...testCtx(s.t, workspace.id).services, secretKey: SECRET_KEY };
    api = await serve(createApiApp({ store, config, services, rateLimits: createRateLimits(config), logger }));

    const created = await fetch(`${api.url}/v1/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "traced/flux", input: { prompt: "a lighthouse at dusk" } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const row = await store.db.selectFrom("generations").select("traceparent").where("id", "=", id).executeTakeFirstOrThrow(); // prettier-ignore
    expect(row.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    const status = await until("the run to end", async () => {
      const answer = await fetch(`${api!.url}/v1/generations/${id}`, { headers: { authorization: `Bearer ${key}` } });
      const run = (await answer.json()) as { status: string };
      return ["succeeded", "failed", "canceled"].includes(run.status) ? run.status : undefined;
    });
    expect(status, workerOutput).toBe("succeeded");
    await tracing!.flush();

    // The worker exports on its own (a 50 ms batch): wait for its execution span.
    const spans = await until("the worker's spans", () => {
      const all = spansOf(receiver);
      return all.some((span) => span.name === "run.execute") && all.some((span) => span.name === "provider.run")
        ? all
        : undefined;
    });
    const request = spans.find((span) => span.name === "POST /v1/generations")!;
    expect(request).toBeDefined();
    const trace = spans.filter((span) => span.traceId === request.traceId);
    const named = (name: string) => {
      const found = trace.filter((span) => span.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    // The request: the trace's root, a server span with its route pattern, status and workspace.
    expect(request.parentSpanId ?? "").toBe("");
    expect(request.kind).toBe(2); // SPAN_KIND_SERVER
    expect(request.service).toBe("atelier-test-api");
    expect(attr(request, "http.route")).toBe("/v1/generations");
    expect(attr(request, "http.request.method")).toBe("POST");
    expect(attr(request, "http.response.status_code")).toBe(201);
    expect(attr(request, "atelier.workspace.id")).toBe(workspace.id);
    // The create verb, its child; the create's write list (the store transaction), the verb's child.
    const create = named("run.create");
    expect(create.parentSpanId).toBe(request.spanId);
    expect(attr(create, "atelier.run.id")).toBe(id);
    const transaction = trace.find((span) => span.name === "store.transaction" && span.parentSpanId === create.spanId);
    expect(transaction, JSON.stringify(trace.map((x) => x.name))).toBeDefined();
    // The run kept the create's context: the worker's execution is the create's child, in the same trace.
    expect(row.traceparent).toBe(`00-${request.traceId}-${create.spanId}-01`);
    const execute = named("run.execute");
    expect(execute.service).toBe("atelier-test-worker");
    expect(execute.parentSpanId).toBe(create.spanId);
    expect(attr(execute, "atelier.run.id")).toBe(id);
    expect(attr(execute, "atelier.run.outcome")).toBe("succeeded");
    // The provider call, the execution's child, names the kind, the target and how it ended.
    const provider = named("provider.run");
    expect(provider.parentSpanId).toBe(execute.spanId);
    expect(provider.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(attr(provider, "atelier.provider.kind")).toBe("replicate");
    expect(attr(provider, "atelier.provider.id")).toBe("traced-replicate");
    expect(attr(provider, "atelier.provider.upstream_model")).toBe(`${flux.owner}/${flux.name}`);
    expect(attr(provider, "atelier.provider.outcome")).toBe("succeeded");
    // The finish (the worker's store transaction) is part of the execution.
    expect(trace.some((span) => span.name === "store.transaction" && span.parentSpanId === execute.spanId)).toBe(true);

    // The worker's log lines about the run carry the trace and its execution span.
    const claimed = workerOutput
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === "run claimed" && line.run === id);
    expect(claimed, workerOutput).toMatchObject({ trace_id: request.traceId, span_id: execute.spanId });
  });
});

// A child process starts tracing from a configuration read from `env` (nothing else set), makes a
// span and a log line inside it, and tells what it loaded: the same check, with an endpoint, sees
// the SDK, so its "nothing" without one means something.
const PROBE = `
const { loadConfig } = require(process.env.PROBE_CONFIG);
const { startTracing } = require(process.env.PROBE_BOOT);
const { traced, currentTraceparent, isTracing } = require(process.env.PROBE_TRACING);
const { createLogger } = require(process.env.PROBE_LOGGER);
const { Writable } = require("node:stream");
(async () => {
  const lines = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(chunk.toString()); done(); } });
  const logger = createLogger("info", "probe", sink);
  const tracing = await startTracing(loadConfig(JSON.parse(process.env.PROBE_ENV)), "probe", logger);
  const traceparent = await traced("probe", async () => { logger.info("inside"); return currentTraceparent(); });
  await tracing?.shutdown();
  const sdk = Object.keys(require.cache).filter((k) => /@opentelemetry[\\/\\\\](sdk-|exporter-|resources|otlp-|context-async-hooks)/.test(k));
  process.stdout.write(JSON.stringify({ started: tracing !== null, on: isTracing(), traceparent, sdk: sdk.length, log: lines.find((l) => l.includes("inside")) }));
})();
`;

interface Probe {
  started: boolean;
  traceparent: string | null;
  sdk: number;
  log: string;
}

/** The probe's answer; spawned, not spawnSync: this process's receiver must answer its export meanwhile. */
async function probe(env: Record<string, string>): Promise<Probe> {
  const file = (name: string) => path.join(ROOT, name);
  const child = spawn(process.execPath, ["--import", "tsx", "-e", PROBE], {
    cwd: ROOT,
    env: {
      NODE_ENV: "test",
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PROBE_CONFIG: file("lib/boot/config.ts"),
      PROBE_BOOT: file("lib/boot/tracing.ts"),
      PROBE_TRACING: file("lib/primitives/tracing.ts"),
      PROBE_LOGGER: file("lib/primitives/logger.ts"),
      PROBE_ENV: JSON.stringify(env),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Probe;
}

describe("traces off", () => {
  let receiver: TestServer;
  let dataDir: string;
  beforeAll(async () => {
    receiver = await startTestServer((_request, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-tracing-"));
  });
  afterAll(async () => {
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("without an OTLP endpoint, or with OTEL_SDK_DISABLED=true, loads nothing of the SDK, makes no span and exports nothing", async () => {
    const unset = await probe({ DATA_DIR: dataDir, SECRET_KEY });
    expect(unset).toMatchObject({ started: false, traceparent: null, sdk: 0 });
    expect(unset.log).not.toContain("trace_id");
    const disabled = await probe({
      DATA_DIR: dataDir,
      SECRET_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: "true",
    });
    expect(disabled).toMatchObject({ started: false, traceparent: null, sdk: 0 });
    expect(receiver.requests).toHaveLength(0);

    // The same probe with the endpoint set: the SDK, a span, its IDs in the log line, an export.
    const on = await probe({ DATA_DIR: dataDir, SECRET_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(on.started).toBe(true);
    expect(on.sdk).toBeGreaterThan(0);
    expect(on.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(on.log).toContain(`"trace_id":"${on.traceparent!.slice(3, 35)}"`);
    expect(receiver.requests.filter((r) => r.path === "/v1/traces").length).toBeGreaterThan(0);
  });

  it("reads the endpoint as the spec says; OTEL_TRACES_EXPORTER=none keeps it off; a bad one stops the start", () => {
    const base = { DATA_DIR: dataDir, SECRET_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(loadConfig(base).traces).toEqual({ url: "http://127.0.0.1:4318/v1/traces" });
    expect(loadConfig({ ...base, OTEL_TRACES_EXPORTER: "none" }).traces).toBeNull();
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/traces" }).traces).toEqual({
      url: "http://c:4318/traces",
    });
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must/,
    );
  });
});
