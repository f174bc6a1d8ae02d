// Shared by the runs suites (runs-*.spec.ts): the two stores they run on, a small client bound
// to one server and one key, money in micro-dollars, the ledger identity, worker processes, and
// tiny PNG/WAV writers and readers. Everything goes over HTTP except creating workspaces, keys
// and top-ups (the admin CLI) and starting worker processes (bin/worker.ts). The links answers
// carry are checked for the blob store behind them: the API's own /v1/blobs links on disk, the
// test bucket's presigned URLs (TEST_S3) on the bucket.
import { readFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { localBlobStore } from "../../lib/blobs/blob-store";
import { blobLink, signBlobLink } from "../../lib/blobs/links";
import { s3BlobStore } from "../../lib/blobs/s3-blob-store";
import type { File as FileObject } from "../../lib/core/files/file-shape";
import type {
  Batch,
  Generation,
  GenerationList,
  OutputItem,
  GenerationRequest as RunBody,
} from "../../lib/core/runs/generation-shape";
import { spawnRepoProcess as spawnRepo, untilAnswers, type RepoProcess } from "../server-processes";
import { addCredit, createWorkspaceWithKey, uniqueName } from "./admin";
import { expectError, expectOk, ISO_MS } from "./helpers";
import { SERVERS, serverEnv, storeEnv, TEST_S3, type ServerSpec } from "./servers";

// ---------------------------------------------------------------------------------------------
// Stores

/** Where a server keeps file and output bytes: DATA_DIR/blobs, or the test bucket (S3_BUCKET). */
export type BlobsKind = "disk" | "bucket";

export interface StoreServers {
  name: "sqlite" | "postgres";
  /** All three servers of the store keep their blobs there (servers.ts: the PostgreSQL ones in the bucket). */
  blobs: BlobsKind;
  /** Runs its queue in the server process (WORKER_CONCURRENCY=2). */
  busy: ServerSpec;
  /** No worker anywhere: runs stay queued. */
  idle: ServerSpec;
  /** No worker in the server; runs-workers.spec.ts alone starts worker processes on it. */
  workers: ServerSpec;
}

export const STORES: readonly StoreServers[] = [
  {
    name: "sqlite",
    blobs: "disk",
    busy: SERVERS.runsSqlite,
    idle: SERVERS.runsSqliteIdle,
    workers: SERVERS.runsSqliteWorkers,
  },
  {
    name: "postgres",
    blobs: "bucket",
    busy: SERVERS.runsPostgres,
    idle: SERVERS.runsPostgresIdle,
    workers: SERVERS.runsPostgresWorkers,
  },
];

/** Where `spec` keeps its blobs, from its environment (S3_BUCKET). */
export function blobsOf(spec: ServerSpec): BlobsKind {
  return spec.env.S3_BUCKET ? "bucket" : "disk";
}

// A STORES entry that says "bucket" for a server on disk (or the other way) would test the wrong thing quietly.
for (const store of STORES) {
  for (const spec of [store.busy, store.idle, store.workers]) {
    if (blobsOf(spec) !== store.blobs)
      throw new Error(`runs-helpers: ${spec.name} keeps its blobs on the ${blobsOf(spec)}, STORES says ${store.blobs}`);
  }
}

/** "postgres · bucket": what describe titles show of a store. */
export function storeTitle(store: { name: string; blobs: BlobsKind }): string {
  return `${store.name} · ${store.blobs}`;
}

// ---------------------------------------------------------------------------------------------
// Resources as the API shows them

// The resources' types come from their shapes (lib/core/<feature>/*-shape.ts), the source the
// OpenAPI document is made from too; every answer is also checked against it (fixtures.ts).
export type { Batch, FileObject, Generation, GenerationList, OutputItem, RunBody };

export const FINAL = ["succeeded", "failed", "canceled"] as const;
export const isFinal = (status: string): boolean => (FINAL as readonly string[]).includes(status);

export const GENERATION_ID = /^gen_[0-9A-Za-z]+$/;
export const BATCH_ID = /^bat_[0-9A-Za-z]+$/;
export const FILE_ID = /^file_[0-9A-Za-z]+$/;
export const UPLOAD_ID = /^upl_[0-9A-Za-z]+$/;
/** A cursor: two URL-safe base64 parts joined by a dot, the second 43 characters. */
export const CURSOR = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/** Prices of the built-in models (catalog), in micro-dollars, for readable expectations. */
export const PRICE = {
  gradientStandard: 2_000,
  gradientHd: 4_000,
  posterV1: 5_000,
  posterV2: 6_000,
  classic: 2_000,
} as const;

// ---------------------------------------------------------------------------------------------
// Money

/** "0.0125" → 12500 micro-dollars; fails the test on anything but a decimal string. */
export function micros(usd: string | null | undefined): number {
  expect(usd, "a decimal USD string").toMatch(/^\d+\.\d{2,6}$/);
  const [whole, fraction] = usd!.split(".") as [string, string];
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
}

// ---------------------------------------------------------------------------------------------
// A client bound to one server and one key

export interface Credits {
  available: number;
  held: number;
}

export class Api {
  constructor(
    readonly request: APIRequestContext,
    readonly spec: ServerSpec,
    readonly key: string,
  ) {}

  url(pathAndQuery: string): string {
    return `${this.spec.baseURL}${pathAndQuery}`;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { "x-api-key": this.key, ...extra };
  }

  get(pathAndQuery: string, headers: Record<string, string> = {}): Promise<APIResponse> {
    return this.request.get(this.url(pathAndQuery), { headers: this.headers(headers), timeout: 90_000 });
  }

  post(pathAndQuery: string, data?: unknown, headers: Record<string, string> = {}): Promise<APIResponse> {
    return this.request.post(this.url(pathAndQuery), {
      headers: this.headers(headers),
      ...(data === undefined ? {} : { data }),
      timeout: 90_000,
    });
  }

  /** POST /v1/generations expecting 201; returns the answer and the generation. */
  async create(body: RunBody, headers: Record<string, string> = {}): Promise<{ res: APIResponse; gen: Generation }> {
    const res = await this.post("/v1/generations", body, headers);
    const gen = await expectOk<Generation>(res, 201);
    return { res, gen };
  }

  async read(id: string): Promise<Generation> {
    return expectOk<Generation>(await this.get(`/v1/generations/${id}`));
  }

  /** Reads the run with Prefer: wait until it is final (or fails the test after `seconds`). */
  async waitFinal(id: string, seconds = 60): Promise<Generation> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const left = Math.ceil((deadline - Date.now()) / 1000);
      const wait = Math.max(1, Math.min(60, left));
      const gen = await expectOk<Generation>(await this.get(`/v1/generations/${id}`, { prefer: `wait=${wait}` }));
      if (isFinal(gen.status)) return gen;
      expect(Date.now(), `run ${id} still ${gen.status} after ${seconds} s`).toBeLessThan(deadline);
    }
  }

  async credits(): Promise<Credits> {
    const body = await expectOk<{ object: string; available_usd: string; held_usd: string }>(
      await this.get("/v1/credits"),
    );
    expect(body.object).toBe("credits");
    return { available: micros(body.available_usd), held: micros(body.held_usd) };
  }

  async list(query: Record<string, string> = {}): Promise<GenerationList> {
    const qs = new URLSearchParams(query).toString();
    return expectOk<GenerationList>(await this.get(`/v1/generations${qs ? `?${qs}` : ""}`));
  }

  /** Every run of the workspace matching the filters, following next_cursor with limit 100. */
  async listAll(filters: Record<string, string> = {}): Promise<Generation[]> {
    const all: Generation[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const body: GenerationList = await this.list({ ...filters, limit: "100", ...(cursor ? { cursor } : {}) });
      all.push(...body.data);
      if (!body.has_more) return all;
      expect(body.next_cursor).toMatch(CURSOR);
      cursor = body.next_cursor;
    }
    throw new Error("listAll: too many pages");
  }

  private quoteCache = new Map<string, number>();

  /** The quote's cost_usd of a model and input, in micro-dollars. */
  async quote(model: string, input: Record<string, unknown>): Promise<number> {
    const key = JSON.stringify([model, input]);
    const cached = this.quoteCache.get(key);
    if (cached !== undefined) return cached;
    const quote = await expectOk<{ cost_usd: string; hold_usd: string }>(
      await this.post("/v1/quotes", { model, input }),
    );
    const cost = micros(quote.cost_usd);
    this.quoteCache.set(key, cost);
    return cost;
  }
}

export interface Tenant {
  api: Api;
  workspaceId: string;
  /** Everything ever granted to the workspace (opening credit + top-ups), in micro-dollars. */
  granted: number;
  /** Adds credit with the admin CLI and counts it as granted. */
  topUp(usd: string): void;
}

/** A new workspace with a key on `spec`'s store, opened with `credit` USD (the admin CLI). */
export function newTenant(request: APIRequestContext, spec: ServerSpec, credit: string, label = "runs"): Tenant {
  const workspace = createWorkspaceWithKey(
    { name: uniqueName(label), ...(Number(credit) > 0 ? { credit } : {}) },
    spec,
  );
  const key = workspace.api_key.key;
  const tenant: Tenant = {
    api: new Api(request, spec, key),
    workspaceId: workspace.id,
    granted: Number(credit) > 0 ? micros(Number(credit).toFixed(6)) : 0,
    topUp(usd: string) {
      addCredit(workspace.id, usd, spec);
      tenant.granted += micros(Number(usd).toFixed(6));
    },
  };
  return tenant;
}

// ---------------------------------------------------------------------------------------------
// The ledger identity

/** Waits until no run of the workspace is queued or running (only where a worker runs them). */
export async function settle(api: Api, seconds = 60): Promise<Generation[]> {
  const pending = await api.listAll({ status: "queued,running" });
  for (const run of pending) await api.waitFinal(run.id, seconds);
  return api.listAll();
}

/**
 * Checks the money of a workspace through the API alone: every succeeded run was charged exactly
 * its quote and nothing else was charged; held equals the quotes of the runs still queued or
 * running; and available + held + Σ charged == everything granted. Call it when nothing moves
 * (after settle() on a busy server, or on an idle server). Returns the numbers.
 */
export async function expectLedgerIdentity(
  tenant: Tenant,
): Promise<{ available: number; held: number; charged: number; runs: Generation[] }> {
  const { api } = tenant;
  const runs = await api.listAll();
  const credits = await api.credits();
  let charged = 0;
  let pending = 0;
  for (const run of runs) {
    if (run.status === "succeeded") {
      const cost = micros(run.usage.cost_usd);
      expect(cost, `${run.id} (${run.model}) charged its quote`).toBe(await api.quote(run.model, run.input));
      charged += cost;
    } else {
      expect(run.usage.cost_usd, `${run.id} is ${run.status}: nothing charged`).toBeNull();
      if (!isFinal(run.status)) pending += await api.quote(run.model, run.input);
    }
  }
  expect(credits.held, "held = the quotes of the runs still queued or running").toBe(pending);
  expect(credits.available + credits.held + charged, "available + held + charged = granted").toBe(tenant.granted);
  return { ...credits, charged, runs };
}

// ---------------------------------------------------------------------------------------------
// Small request helpers

/** Runs `fn` `n` times at once. */
export function concurrently<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}

/** An error answer's code and param without the full envelope check (for many answers at once). */
export async function errorOf(res: APIResponse): Promise<{ status: number; code: string; param: string | null }> {
  const body = (await res.json()) as { error: { code: string; param: string | null } };
  return { status: res.status(), code: body.error.code, param: body.error.param };
}

/**
 * 404 resource_not_found by status, code and type only. The full envelope check (expectError,
 * which also wants `param: null` on a 404) is made once, in runs-cancel.spec.ts, so a wrong
 * param does not hide what the other tests check.
 */
export async function expectNotFound(res: APIResponse): Promise<void> {
  const text = await res.text();
  expect(res.status(), text).toBe(404);
  const body = JSON.parse(text) as { error: { code: string; type: string } };
  expect(body.error.code).toBe("resource_not_found");
  expect(body.error.type).toBe("invalid_request_error");
}

// ---------------------------------------------------------------------------------------------
// Worker processes (bin/worker.ts on the same store)

/** A worker or server process a test started (server-processes.ts). */
export type WorkerProcess = RepoProcess;

/** Starts a TypeScript entry of the repo (`bin/worker.ts`, `server.ts`) as one node process, keeping its stderr. */
export function spawnRepoProcess(entry: string, env: Record<string, string>): WorkerProcess {
  return spawnRepo([entry], env);
}

/**
 * Starts server.ts for `spec` as a test's own process (not one of the global setup's), with
 * `env` on top of the usual server environment, and resolves once it answers.
 */
export async function startOwnServer(spec: ServerSpec, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const server = spawnRepoProcess("server.ts", { ...serverEnv(spec), ...env });
  await untilAnswers(server, spec.name, `${spec.baseURL}/v1/public/models`, 90_000);
  return server;
}

/** Starts a `npm run worker` process on the store of `spec`. */
export function startWorker(spec: ServerSpec, concurrency = 1): WorkerProcess {
  return spawnRepoProcess("bin/worker.ts", {
    ...storeEnv(spec),
    WORKER_CONCURRENCY: String(concurrency),
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
  });
}

/** Stops a worker this test started (SIGTERM, then SIGKILL after a grace) and waits for it. */
export async function stopWorker(
  worker: WorkerProcess | null | undefined,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill(signal);
  const timer = setTimeout(() => worker.child.kill("SIGKILL"), 15_000);
  await worker.exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Blob links: what answers hand out for file and output bytes, on the disk and on the bucket

export const DAY_MS = 24 * 3600 * 1000;
/** How far a link's signing second may be from the moment the test got the answer. */
const LINK_SLACK_MS = 120_000;
const BLOB_KEY = /^[0-9A-Za-z]{32}$/;
const BUCKET_ORIGIN = new URL(TEST_S3.endpoint).origin;

/** A link in an answer: an output item, a poster, a preview, a File. */
export interface Link {
  url: string;
  expires_at: string;
}

/** What a link names: the blob key; on the bucket also the object key (the server's prefix + key). */
export interface LinkTarget {
  key: string;
  objectKey: string | null;
  /** The type the link answers with (`type` on disk, `response-content-type` on the bucket). */
  contentType: string;
}

/** S3_PREFIX of a bucket server ("runs-postgres/"). */
export function bucketPrefixOf(spec: ServerSpec): string {
  const prefix = spec.env.S3_PREFIX;
  expect(prefix, `${spec.name} has an S3_PREFIX`).toEqual(expect.any(String));
  return prefix!;
}

/** "20261124T162431Z" (X-Amz-Date) → ms since the epoch. */
export function amzDateMs(value: string | null): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  expect(m, `X-Amz-Date in ISO 8601 basic format: ${value}`).not.toBeNull();
  const [, y, mo, d, h, mi, se] = m!.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, se);
}

/** ms since the epoch → "20261124T162431Z". */
export function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}

/** The blob (and on the bucket the object) a link names; on the bucket the object key must start with the server's prefix. */
export function linkTarget(spec: ServerSpec, url: string): LinkTarget {
  const u = new URL(url);
  if (blobsOf(spec) === "disk") {
    const m = /^\/v1\/blobs\/([^/]+)$/.exec(u.pathname);
    expect(m, `a /v1/blobs link of ${spec.name}: ${url}`).not.toBeNull();
    return { key: m![1]!, objectKey: null, contentType: u.searchParams.get("type") ?? "" };
  }
  const bucketPath = `/${TEST_S3.bucket}/`;
  expect(u.origin, `a link into the test bucket: ${url}`).toBe(BUCKET_ORIGIN);
  expect(u.pathname.startsWith(bucketPath), `a path-style URL in bucket ${TEST_S3.bucket}: ${url}`).toBe(true);
  const objectKey = decodeURIComponent(u.pathname.slice(bucketPath.length));
  const prefix = bucketPrefixOf(spec);
  expect(objectKey.startsWith(prefix), `the object key ${objectKey} starts with ${spec.name}'s prefix ${prefix}`).toBe(
    true,
  );
  return {
    key: objectKey.slice(prefix.length),
    objectKey,
    contentType: u.searchParams.get("response-content-type") ?? "",
  };
}

/**
 * A link as `spec`'s blob store makes it, valid 24 hours from the read that returned it
 * (`readAt`: when the answer came back). On disk: the API's own /v1/blobs/<key> on the server,
 * with type, expires (== expires_at) and signature (and filename when named). On the bucket: a
 * presigned GET of <bucket>/<prefix><key> on the test S3 server, X-Amz-Expires=86400, X-Amz-Date
 * the second of the read, expires_at == X-Amz-Date + 86400 s to the second, the type (and the
 * download name) as response-* overrides. `contentType` left out: any (a poster carries none).
 */
export function expectBlobLink(
  spec: ServerSpec,
  link: Link,
  expected: { contentType?: string; readAt: number; filename?: string },
): LinkTarget {
  const { readAt, filename } = expected;
  const u = new URL(link.url);
  expect(link.expires_at).toMatch(ISO_MS);
  const expiresAt = Date.parse(link.expires_at);
  expect(expiresAt, "expires_at is 24 hours after the read").toBeGreaterThan(readAt + DAY_MS - LINK_SLACK_MS);
  expect(expiresAt, "expires_at is 24 hours after the read").toBeLessThan(readAt + DAY_MS + LINK_SLACK_MS);
  const target = linkTarget(spec, link.url);
  expect(target.key, "a blob key").toMatch(BLOB_KEY);
  if (expected.contentType !== undefined)
    expect(target.contentType, "the link answers with the item's content_type").toBe(expected.contentType);
  else expect(target.contentType).toMatch(/^[a-z]+\/[\w.+-]+$/);
  if (blobsOf(spec) === "disk") {
    expect(u.port, `a link to ${spec.name} itself`).toBe(String(spec.port));
    expect(["127.0.0.1", "localhost"]).toContain(u.hostname);
    expect([...u.searchParams.keys()].sort()).toEqual(
      ["expires", "signature", "type", ...(filename === undefined ? [] : ["filename"])].sort(),
    );
    // Whole seconds in the link.
    expect(Number(u.searchParams.get("expires")) * 1000, "expires is expires_at").toBe(expiresAt);
    if (filename !== undefined) expect(u.searchParams.get("filename")).toBe(filename);
    return target;
  }
  const q = (name: string) => u.searchParams.get(name);
  expect(q("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
  const signedAt = amzDateMs(q("X-Amz-Date"));
  expect(q("X-Amz-Credential"), "credential scope: the signing day, region, s3").toBe(
    `${spec.env.AWS_ACCESS_KEY_ID}/${q("X-Amz-Date")!.slice(0, 8)}/${spec.env.S3_REGION}/s3/aws4_request`,
  );
  expect(q("X-Amz-SignedHeaders")).toBe("host");
  expect(q("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  expect(q("X-Amz-Expires"), "valid for 24 hours").toBe("86400");
  expect(Math.abs(signedAt - readAt), `signed at the read (X-Amz-Date ${q("X-Amz-Date")})`).toBeLessThan(LINK_SLACK_MS);
  expect(expiresAt, "expires_at == X-Amz-Date + X-Amz-Expires, to the second").toBe(signedAt + 86_400_000);
  expect(q("response-content-disposition"), "a download name only when asked for").toBe(
    filename === undefined ? null : `attachment; filename="${filename}"`,
  );
  // None of the API's own link parameters.
  for (const name of ["type", "expires", "signature", "filename"])
    expect(u.searchParams.has(name), `no "${name}" in a bucket link`).toBe(false);
  return target;
}

/** A direct upload's upload_url: the API's signed PUT on disk; on the bucket a presigned PUT of the object, content-length signed, until expires_at. */
export function expectUploadUrl(
  spec: ServerSpec,
  upload: { id: string; upload_url: string | null; expires_at: string },
  openedAt: number,
): LinkTarget | null {
  expect(upload.upload_url).toEqual(expect.any(String));
  const u = new URL(upload.upload_url!);
  const expiresAt = Date.parse(upload.expires_at);
  if (blobsOf(spec) === "disk") {
    expect(u.port).toBe(String(spec.port));
    expect(u.pathname).toBe(`/v1/uploads/${upload.id}/content`);
    expect([...u.searchParams.keys()].sort()).toEqual(["expires", "signature"]);
    expect(Number(u.searchParams.get("expires"))).toBe(Math.floor(expiresAt / 1000));
    return null;
  }
  const target = linkTarget(spec, upload.upload_url!);
  expect(target.key).toMatch(BLOB_KEY);
  const q = (name: string) => u.searchParams.get(name);
  expect(q("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
  // S3 takes exactly the declared size: content-length is signed (s3rver does not check it; see runs-files.spec.ts).
  expect(q("X-Amz-SignedHeaders")).toBe("content-length;host");
  expect(q("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  const signedAt = amzDateMs(q("X-Amz-Date"));
  expect(Math.abs(signedAt - openedAt)).toBeLessThan(LINK_SLACK_MS);
  // Until the upload's expires_at (the URL's whole seconds round it up).
  const until = signedAt + Number(q("X-Amz-Expires")) * 1000;
  expect(until).toBeGreaterThanOrEqual(expiresAt);
  expect(until).toBeLessThan(expiresAt + 1000);
  for (const name of ["expires", "signature"]) expect(u.searchParams.has(name)).toBe(false);
  return target;
}

/** The server's signing key (DATA_DIR/secret-key), as the studio signs links with it. */
export function secretKeyOf(spec: ServerSpec): string {
  return readFileSync(path.join(spec.dataDir, "secret-key"), "utf8").trim();
}

/**
 * The link as a read `ageMs` ago would have handed it out. On disk: signed afresh with the
 * server's key as of then. On the bucket: X-Amz-Date moved back by `ageMs`. s3rver refuses a
 * presigned URL once X-Amz-Date + X-Amz-Expires has passed but verifies no SigV4 signature, so
 * this stands for a link read back then (a real S3 would refuse this very URL in any case: its
 * signature no longer fits).
 */
export function linkReadAgo(spec: ServerSpec, url: string, ageMs: number): string {
  const u = new URL(url);
  if (blobsOf(spec) === "disk") {
    const { key, contentType } = linkTarget(spec, url);
    const filename = u.searchParams.get("filename") ?? undefined;
    return signBlobLink(
      { secret: secretKeyOf(spec), baseUrl: u.origin, now: Date.now() - ageMs, ...(filename ? { filename } : {}) },
      key,
      contentType,
    ).url;
  }
  u.searchParams.set("X-Amz-Date", amzDate(amzDateMs(u.searchParams.get("X-Amz-Date")) - ageMs));
  return u.toString();
}

/** An answer of the test bucket refusing a request: status, and the S3 error XML's Code (and Message). */
export async function expectBucketError(
  res: APIResponse,
  status: number,
  code: string,
  message?: RegExp,
): Promise<void> {
  const text = await res.text();
  expect(res.status(), `the bucket answered ${res.status()}: ${text}`).toBe(status);
  expect(res.headers()["content-type"]).toMatch(/^application\/xml/);
  expect(text).toContain(`<Code>${code}</Code>`);
  if (message) expect(text).toMatch(message);
}

/** An expired link refused: 403 permission_denied from the API on disk, 403 AccessDenied "Request has expired" from the bucket. */
export async function expectExpiredRefused(spec: ServerSpec, res: APIResponse): Promise<void> {
  if (blobsOf(spec) === "disk") await expectError(res, 403, "permission_denied", { message: /expired/ });
  else await expectBucketError(res, 403, "AccessDenied", /Request has expired/);
}

/**
 * The AWS SDK in this process takes its credentials from the environment (as the server does):
 * the test bucket's, for the time of `use`.
 */
async function withBucketCredentials<T>(spec: ServerSpec, use: () => Promise<T>): Promise<T> {
  const names = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_EC2_METADATA_DISABLED"] as const;
  const saved = names.map((name) => process.env[name]);
  for (const name of names) process.env[name] = spec.env[name];
  try {
    return await use();
  } finally {
    names.forEach((name, i) => {
      if (saved[i] === undefined) delete process.env[name];
      else process.env[name] = saved[i];
    });
  }
}

/**
 * A download link named `filename` for the blob behind `link`, made in this process by the
 * product's own blobLink the way the studio makes its Download links (API answers carry none):
 * signed with the server's key on disk, presigned for the server's bucket and prefix on the bucket.
 */
export async function namedDownloadLink(
  spec: ServerSpec,
  link: Link,
  contentType: string,
  filename: string,
): Promise<Link> {
  const { key } = linkTarget(spec, link.url);
  if (blobsOf(spec) === "disk") {
    return blobLink(
      localBlobStore(spec.dataDir),
      { secret: secretKeyOf(spec), baseUrl: new URL(link.url).origin, filename },
      key,
      contentType,
    );
  }
  return withBucketCredentials(spec, async () => {
    const store = s3BlobStore({
      bucket: spec.env.S3_BUCKET!,
      prefix: bucketPrefixOf(spec),
      endpoint: spec.env.S3_ENDPOINT!,
      region: spec.env.S3_REGION!,
      forcePathStyle: true,
      publicEndpoint: null,
    });
    try {
      return await blobLink(store, { secret: "", baseUrl: "", filename }, key, contentType);
    } finally {
      store.close();
    }
  });
}

/** Whether the test bucket holds `objectKey`, asked of the bucket itself (HeadObject), not through Atelier. */
export async function bucketHolds(spec: ServerSpec, objectKey: string): Promise<boolean> {
  const client = new S3Client({
    region: spec.env.S3_REGION!,
    endpoint: spec.env.S3_ENDPOINT!,
    forcePathStyle: true,
    credentials: { accessKeyId: spec.env.AWS_ACCESS_KEY_ID!, secretAccessKey: spec.env.AWS_SECRET_ACCESS_KEY! },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  try {
    await client.send(new HeadObjectCommand({ Bucket: spec.env.S3_BUCKET!, Key: objectKey }));
    return true;
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw err;
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Media bytes

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid RGB PNG of width × height; `noise` fills it with incompressible bytes (to make it big). */
export function makePng(width: number, height: number, options: { noise?: boolean } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  const row = width * 3 + 1;
  const raw = Buffer.alloc(row * height);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < width * 3; x++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      raw[y * row + 1 + x] = options.noise ? seed >>> 24 : (x * 7 + y * 3) & 0xff;
    }
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(raw, { level: options.noise ? 0 : 6 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A PNG whose header claims width × height, with only its first row of pixels: a few hundred bytes. */
export function makePngHeaderOnly(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(Buffer.alloc(width * 3 + 1))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Width and height from a PNG's IHDR chunk; fails the test when the bytes are not a PNG. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE), "PNG signature").toBe(true);
  expect(bytes.subarray(12, 16).toString("ascii"), "first chunk is IHDR").toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** A PCM WAV of `seconds` of a 440 Hz tone (mono, 16-bit, 8 kHz). */
export function makeWav(seconds: number, sampleRate = 8000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
