// Issue 17, "many replicas": two server processes with no worker slots (A and B) and two
// `npm run worker` processes (W1, W2), all on one PostgreSQL database and one bucket prefix, each
// with its own DATA_DIR (nothing is shared through the disk) and the same SECRET_KEY, no Redis (rate
// limits go through PostgreSQL). This file starts and stops them itself (not playwright.config.ts).
// Shown over HTTP: a run created on A is read on B with its outputs, and a Prefer: wait read on B
// is woken when a worker finishes it; files and direct uploads cross replicas; an idempotency key
// replays across replicas; a key's per-minute budget is one budget across both servers; a studio
// session signed in on A works on B; each webhook event is delivered once, not once per process;
// the events purge takes one turn per interval across all four processes; a worker killed with
// SIGKILL mid-run is recovered by the other one and the run is charged once. The store is read
// directly only for evidence the API does not show: the purge's turn record (scheduled_tasks),
// which worker holds a run (lease_owner), and the ledger's charge entries of the killed run.
import fs from "node:fs";
import pg from "pg";
import type { Upload } from "../../lib/core/files/file-shape";
import { expect, test, type APIResponse } from "./fixtures";
import { admin, createKey, createWorkspace, revokeKey, uniqueName } from "./admin";
import { expectError, expectOk } from "./helpers";
import {
  Api,
  expectLedgerIdentity,
  FILE_ID,
  makePng,
  makeWav,
  micros,
  newTenant,
  PRICE,
  pngSize,
  settle,
  spawnRepoProcess,
  stopWorker,
  UPLOAD_ID,
  type FileObject,
  type Generation,
  type WorkerProcess,
} from "./runs-helpers";
import {
  bucketEnv,
  pgUrl,
  REPLICAS,
  resetPgDatabase,
  serverEnv,
  serverSpec,
  storeEnv,
  TEST_S3,
  type ServerSpec,
} from "./servers";
import {
  createEndpoint,
  endedRun,
  eventOfRun,
  expectSignedDelivery,
  finalDeliveries,
  readSecret,
  Receiver,
  sleep,
  writeServerStore,
  type EventObject,
} from "./webhooks-helpers";

test.describe.configure({ mode: "serial" });

/**
 * The per-key budget of both servers: the default 600 a minute. 600 cheap GETs alternating
 * between A and B take a few seconds, well inside the one-minute window, so the test needs no
 * smaller number; a budget counted per process would let 1,200 through.
 */
const KEY_PER_MIN = 600;
/** One secret for every process: cursors, links and studio sessions signed by one are read by the others. */
const SECRET_KEY = "replicas-e2e-one-secret-key-for-every-process-0123456789";
/** The purge interval of every process (EVENTS_PURGE_INTERVAL_SECONDS): every second instead of hourly. */
const PURGE_EVERY_MS = 1000;

const SHARED_ENV: Record<string, string> = {
  ...bucketEnv(REPLICAS.bucketPrefix),
  SECRET_KEY,
  // Rate limits in PostgreSQL's rate_limits table, not in Redis (an inherited REDIS_URL is dropped).
  REDIS_URL: "",
  WEBHOOK_ALLOW_INSECURE: "1",
  WEBHOOK_RETRY_SCHEDULE: "0,0.3,0.3,0.3,0.3",
  EVENTS_PURGE_INTERVAL_SECONDS: String(PURGE_EVERY_MS / 1000),
};

/** A process of the deployment: its own data dir under .data-e2e/, the shared database and bucket. */
function replica(name: string, port: number): ServerSpec {
  return serverSpec(`replicas-${name}`, port, 100_000, KEY_PER_MIN, {
    pgDatabase: REPLICAS.database,
    workers: 0,
    env: SHARED_ENV,
  });
}

const A = replica("a", REPLICAS.ports.a);
const B = replica("b", REPLICAS.ports.b);
/** Specs of worker processes: only their data dir and store environment are used (no port). */
const workerSpec = (n: number) => replica(`w${n}`, 0);

const BUCKET_BASE = `${TEST_S3.endpoint}/${TEST_S3.bucket}/${REPLICAS.bucketPrefix}`;

// ---------------------------------------------------------------------------------------------
// The processes

interface Proc {
  name: string;
  proc: WorkerProcess;
}

const servers: Proc[] = [];
const workers: Proc[] = [];
let workerCount = 0;
const receiver = new Receiver(REPLICAS.ports.receiver);

const alive = (p: Proc) => p.proc.child.exitCode === null && p.proc.child.signalCode === null;
const pidOf = (p: Proc) => p.proc.child.pid!;

/** Starts server.ts with `spec`'s environment and waits until /healthz, /readyz and the catalog answer. */
async function startServer(spec: ServerSpec): Promise<void> {
  const proc = spawnRepoProcess("server.ts", serverEnv(spec));
  // Tracked before it answers, so afterAll stops it whatever happens.
  servers.push({ name: spec.name, proc });
  const deadline = Date.now() + 120_000;
  const ok = (path: string) =>
    fetch(`${spec.baseURL}${path}`).then(
      (res) => res.status === 200,
      () => false,
    );
  for (;;) {
    expect(proc.child.exitCode, `${spec.name} exited early: ${proc.stderr()}`).toBeNull();
    expect(Date.now(), `${spec.name} did not answer within 120 s: ${proc.stderr()}`).toBeLessThan(deadline);
    if ((await ok("/healthz")) && (await ok("/readyz")) && (await ok("/v1/public/models"))) return;
    await sleep(250);
  }
}

/** A new `npm run worker` process (WORKER_CONCURRENCY=1) with a data dir of its own. */
function startWorkerProcess(): Proc {
  workerCount += 1;
  const spec = workerSpec(workerCount);
  fs.rmSync(spec.dataDir, { recursive: true, force: true });
  const proc = spawnRepoProcess("bin/worker.ts", {
    ...storeEnv(spec),
    WORKER_CONCURRENCY: "1",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
  });
  const p = { name: `W${workerCount}`, proc };
  workers.push(p);
  return p;
}

/** Two live worker processes (starting what is missing). */
function ensureWorkers(): Proc[] {
  while (workers.filter(alive).length < 2) startWorkerProcess();
  return workers.filter(alive);
}

/** A query on the shared database (evidence the API does not show). */
async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: pgUrl(REPLICAS.database) });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  for (const name of ["a", "b"]) fs.rmSync(replica(name, 0).dataDir, { recursive: true, force: true });
  await resetPgDatabase(REPLICAS.database);
  await receiver.start();
  // Both at once on the empty database: each migrates it (one waits for the other's lock).
  await Promise.all([startServer(A), startServer(B)]);
  // The workers start in the first test, after its read is waiting; later tests start them if missing.
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  // SIGTERM, then SIGKILL after 15 s (stopWorker); all at once.
  await Promise.all([...workers, ...servers].map((p) => stopWorker(p.proc)));
  await receiver.stop();
});

/** The same key on both servers. */
function both(api: Api): { onA: Api; onB: Api } {
  return { onA: new Api(api.request, A, api.key), onB: new Api(api.request, B, api.key) };
}

/** A presigned link into the test bucket under this file's prefix. */
function expectBucketLink(url: string): void {
  expect(url.startsWith(BUCKET_BASE), `${url} is in ${BUCKET_BASE}`).toBe(true);
  expect(new URL(url).searchParams.get("X-Amz-Signature"), `${url} is presigned`).toMatch(/^[0-9a-f]{64}$/);
}

async function bytesOf(url: string): Promise<{ status: number; contentType: string | null; body: Buffer }> {
  const res = await fetch(url);
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

// ---------------------------------------------------------------------------------------------

test("a run created on A is read on B with Prefer: wait, woken when a worker process finishes it; its outputs are bucket links", async ({
  request,
}) => {
  test.setTimeout(150_000);
  const tenant = newTenant(request, A, "1", "replicas-read");
  const { onA, onB } = both(tenant.api);
  expect(workers.filter(alive), "no worker runs yet").toHaveLength(0);
  const { gen } = await onA.create({
    model: "atelier/gradient",
    input: { prompt: "harbour lights seen from another replica", num_images: 2, format: "png" },
  });
  expect(gen.status).toBe("queued");

  const asked = Date.now();
  const waiting = onB.get(`/v1/generations/${gen.id}`, { prefer: "wait=60" });
  // Nothing can run it yet: no process has a worker slot.
  expect((await onA.read(gen.id)).status).toBe("queued");
  ensureWorkers();
  const res = await waiting;
  const answered = Date.now();
  const done = await expectOk<Generation>(res);
  expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
  expect(res.headers()["preference-applied"]).toBe("wait=60");
  expect(res.headers()["retry-after"]).toBeUndefined();
  // Held across the finish (the run ended after the read was asked), and woken by it: a read that
  // only ran out its 60 s would answer 60 s after it was asked; a worker starts and runs this in a
  // few seconds. The bound is far from both outcomes.
  expect(Date.parse(done.completed_at!)).toBeGreaterThan(asked);
  expect(answered - asked, "B's read was woken by the finish, well before its 60 s ran out").toBeLessThan(45_000);
  expect(micros(done.usage.cost_usd)).toBe(2 * PRICE.gradientStandard);

  expect(done.output).toHaveLength(2);
  const fromA = await onA.read(gen.id);
  for (const [i, item] of done.output.entries()) {
    expect(item.content_type).toBe("image/png");
    expectBucketLink(item.url);
    const got = await bytesOf(item.url);
    expect(got.status, `GET ${item.url}`).toBe(200);
    expect(pngSize(got.body)).toEqual({ width: item.width, height: item.height });
    // A reads the same object (its link is signed afresh, for the same key).
    const other = fromA.output[i]!;
    expectBucketLink(other.url);
    expect(new URL(other.url).pathname).toBe(new URL(item.url).pathname);
    expect((await bytesOf(other.url)).body.equals(got.body)).toBe(true);
  }
  await expectLedgerIdentity(tenant);
});

test("a file posted on A is read on B; a sound uploaded through A's bucket link is completed on B; a worker runs B's run on A's file", async ({
  request,
}) => {
  test.setTimeout(120_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "1", "replicas-files");
  const { onA, onB } = both(tenant.api);

  const png = makePng(48, 32);
  const posted = await expectOk<FileObject>(
    await request.post(onA.url("/v1/files"), {
      headers: onA.headers({ "content-type": "image/png", "content-disposition": 'inline; filename="replica.png"' }),
      data: png,
    }),
    201,
  );
  expect(posted.id).toMatch(FILE_ID);
  expect(posted).toMatchObject({
    content_type: "image/png",
    bytes: png.length,
    width: 48,
    height: 32,
    filename: "replica.png",
  });
  const read = await expectOk<FileObject>(await onB.get(`/v1/files/${posted.id}`));
  expect({ ...read, url: "", expires_at: "" }).toEqual({ ...posted, url: "", expires_at: "" });
  expectBucketLink(read.url);
  const served = await bytesOf(read.url);
  expect(served.status).toBe(200);
  expect(served.body.equals(png)).toBe(true);
  expect((await expectOk<{ data: FileObject[] }>(await onB.get("/v1/files"))).data.map((f) => f.id)).toEqual([
    posted.id,
  ]);

  // A direct upload: opened on A, bytes PUT straight into the bucket, completed on B.
  const wav = makeWav(1.5);
  const upload = await expectOk<Upload>(
    await onA.post("/v1/uploads", { filename: "replica.wav", content_type: "audio/wav", bytes: wav.length }),
    201,
  );
  expect(upload.id).toMatch(UPLOAD_ID);
  expectBucketLink(upload.upload_url!);
  const put = await request.put(upload.upload_url!, { data: wav, headers: { "content-type": "audio/wav" } });
  expect(put.status(), await put.text()).toBeLessThan(300);
  const completed = await onB.post(`/v1/uploads/${upload.id}/complete`);
  expect([200, 201]).toContain(completed.status());
  const sound = await expectOk<FileObject>(completed, completed.status());
  expect(sound).toMatchObject({
    object: "file",
    content_type: "audio/wav",
    bytes: wav.length,
    width: null,
    height: null,
    filename: "replica.wav",
  });
  expect(sound.duration).toBeCloseTo(1.5, 2);
  const soundOnA = await expectOk<FileObject>(await onA.get(`/v1/files/${sound.id}`));
  expect(soundOnA.duration).toBeCloseTo(1.5, 2);
  expectBucketLink(soundOnA.url);
  expect((await bytesOf(soundOnA.url)).body.equals(wav)).toBe(true);
  const shown = await expectOk<Upload>(await onA.get(`/v1/uploads/${upload.id}`));
  expect(shown).toMatchObject({ status: "completed", upload_url: null });
  expect(shown.file?.id).toBe(sound.id);

  // A run started on B on the file posted on A: a worker process reads the input from the bucket.
  const { gen } = await onB.create({ model: "atelier/upscale", input: { image: posted.id, scale: 2 } });
  const done = await onA.waitFinal(gen.id, 90);
  expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
  expect(done.output[0]).toMatchObject({ width: 96, height: 64 });
  expectBucketLink(done.output[0]!.url);
  expect(pngSize((await bytesOf(done.output[0]!.url)).body)).toEqual({ width: 96, height: 64 });
  await expectLedgerIdentity(tenant);
});

test("an Idempotency-Key used on A replays on B; one key raced on both starts one run; each charged once", async ({
  request,
}) => {
  test.setTimeout(120_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "1", "replicas-idem");
  const { onA, onB } = both(tenant.api);
  const body = { model: "atelier/gradient", input: { prompt: "one run, two doors" } };
  const key = `replicas-${Date.now()}`;

  const first = await onA.create(body, { "idempotency-key": key });
  expect(first.res.headers()["idempotent-replayed"]).toBe("false");
  const again = await onB.create(body, { "idempotency-key": key });
  expect(again.res.headers()["idempotent-replayed"]).toBe("true");
  expect(again.res.headers()["location"]).toBe(`/v1/generations/${first.gen.id}`);
  expect(again.gen.id).toBe(first.gen.id);
  // The same key with another body, on the other replica: 409.
  await expectError(
    await onB.post("/v1/generations", { ...body, input: { prompt: "another body" } }, { "idempotency-key": key }),
    409,
    "conflict",
  );

  // Ten requests with one new key at once, half on each replica: one run.
  const raceKey = `replicas-race-${Date.now()}`;
  const raceBody = { model: "atelier/gradient", input: { prompt: "raced on two replicas" } };
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      (i % 2 === 0 ? onA : onB).post("/v1/generations", raceBody, { "idempotency-key": raceKey }),
    ),
  );
  const raced: Generation[] = [];
  for (const res of answers) raced.push(await expectOk<Generation>(res, 201));
  const raceIds = new Set(raced.map((r) => r.id));
  expect(raceIds.size, `ids answered: ${[...raceIds].join(", ")}`).toBe(1);
  const replayed = answers.map((res) => res.headers()["idempotent-replayed"]);
  expect(replayed.filter((v) => v === "false")).toHaveLength(1);
  expect(replayed.filter((v) => v === "true")).toHaveLength(9);

  const runs = await settle(onB, 60);
  expect(runs.map((r) => r.id).sort()).toEqual([first.gen.id, ...raceIds].sort());
  for (const run of runs) {
    expect(run.status).toBe("succeeded");
    expect(micros(run.usage.cost_usd)).toBe(PRICE.gradientStandard);
  }
  // A replay after the end, on B, answers the run as it is now and charges nothing more.
  const late = await onB.create(body, { "idempotency-key": key });
  expect(late.res.headers()["idempotent-replayed"]).toBe("true");
  expect(late.gen).toMatchObject({ id: first.gen.id, status: "succeeded" });
  expect(await onA.credits()).toEqual({ available: 1_000_000 - 2 * PRICE.gradientStandard, held: 0 });
  await expectLedgerIdentity(tenant);
});

test(`a key's ${KEY_PER_MIN} a minute is one budget across both servers, not one each`, async ({ request }) => {
  test.setTimeout(120_000);
  const workspace = createWorkspace({ name: uniqueName("replicas-rate"), credit: "1" }, A);
  const key = createKey(workspace.id, {}, A).key;
  const onA = new Api(request, A, key);
  const onB = new Api(request, B, key);
  const ok = { A: 0, B: 0 };
  const refused: { A: APIResponse | null; B: APIResponse | null } = { A: null, B: null };
  // Ten at a time, half to A and half to B, until both refuse: a budget kept per process would let
  // 2 × KEY_PER_MIN through. Each server leases slices of the shared budget and spends them in
  // memory (api/leased-rate-limiter.ts), so one may refuse while the other still spends its last
  // slice; once both refuse, every leased point was spent. In flight together so the whole count
  // takes a few seconds, far inside the one-minute window that the key's first request opened.
  for (let sent = 0; sent < 2 * KEY_PER_MIN + 10 && !(refused.A && refused.B); sent += 10) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const on: "A" | "B" = i % 2 === 0 ? "A" : "B";
        return { on, res: await (on === "A" ? onA : onB).get("/v1/credits") };
      }),
    );
    for (const { on, res } of answers) {
      if (res.status() === 429) refused[on] ??= res;
      else {
        expect(res.status(), await res.text()).toBe(200);
        ok[on] += 1;
      }
    }
  }
  expect(refused.A && refused.B, `not refused on both after ${ok.A + ok.B} answers`).toBeTruthy();
  expect(ok.A + ok.B, `answered: ${JSON.stringify(ok)}`).toBe(KEY_PER_MIN);
  expect(ok.A).toBeGreaterThan(0);
  expect(ok.B).toBeGreaterThan(0);
  for (const res of [refused.A!, refused.B!]) {
    await expectError(res, 429, "rate_limit_exceeded");
    const retryAfter = res.headers()["retry-after"];
    expect(retryAfter, "Retry-After").toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  }
  // Both keep refusing the key.
  for (const api of [onA, onB]) await expectError(await api.get("/v1/models"), 429, "rate_limit_exceeded");
  // Another key of the same workspace has its own budget, on both.
  const sibling = createKey(workspace.id, {}, A).key;
  for (const spec of [A, B])
    expect(await expectOk(await new Api(request, spec, sibling).get("/v1/credits"))).toMatchObject({
      object: "credits",
    });
});

test("a key both replicas answered from memory stops at once on both when the admin CLI revokes it", async ({
  request,
}) => {
  test.setTimeout(60_000);
  const workspace = createWorkspace({ name: uniqueName("replicas-revoke"), credit: "1" }, A);
  const doomed = createKey(workspace.id, {}, A);
  const kept = createKey(workspace.id, {}, A);
  const apis = [new Api(request, A, doomed.key), new Api(request, B, doomed.key)];
  // Each replica has looked the key up, and keeps it live in memory (lib/core/keys/api-key-cache.ts).
  for (const api of apis)
    for (let i = 0; i < 3; i++)
      expect(await expectOk(await api.get("/v1/credits"))).toMatchObject({ object: "credits" });
  revokeKey(doomed.id, A);
  // The CLI announced it (NOTIFY) before it exited: the very next request is refused on both.
  for (const api of apis) {
    const res = await api.get("/v1/credits");
    await expectError(res, 401, "invalid_api_key");
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /^This API key was revoked on /,
    );
  }
  // Another key of the workspace is untouched on both.
  for (const spec of [A, B])
    expect(await expectOk(await new Api(request, spec, kept.key).get("/v1/credits"))).toMatchObject({
      object: "credits",
    });
});

test("a studio session signed in on A works on B (one SECRET_KEY); without it B sends the visitor to sign-in", async ({
  request,
}) => {
  test.setTimeout(90_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "1", "replicas-studio");
  const email = `replicas-${Date.now().toString(36)}@example.com`;
  const password = "replica-pass-1";
  admin(["user", "create", "--email", email, "--password", password, "--workspace", tenant.workspaceId], A);
  const { gen } = await tenant.api.create({ model: "atelier/gradient", input: { prompt: "seen in the studio" } });

  // next-auth's credentials flow on A, over plain HTTP: the CSRF token and its cookie, then the form.
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrfRes = await fetch(`${A.baseURL}/api/auth/csrf`);
  expect(csrfRes.status).toBe(200);
  keep(csrfRes);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const signIn = await fetch(`${A.baseURL}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie() },
    body: new URLSearchParams({
      csrfToken,
      email,
      password,
      callbackUrl: `${A.baseURL}/runs`,
      json: "true",
    }).toString(),
  });
  expect(signIn.status, await signIn.text()).toBeLessThan(400);
  keep(signIn);
  const sessionCookie = [...jar.keys()].find((k) => /(^|\.)next-auth\.session-token$/.test(k));
  expect(sessionCookie, `a session cookie among ${[...jar.keys()].join(", ")}`).toBeDefined();
  // Only the session cookie goes to B: it alone must carry the sign-in.
  const session = `${sessionCookie}=${jar.get(sessionCookie!)}`;

  const sessionOn = async (spec: ServerSpec, withCookie: boolean) =>
    (await (
      await fetch(`${spec.baseURL}/api/auth/session`, { headers: withCookie ? { cookie: session } : {} })
    ).json()) as { user?: Record<string, unknown> };
  expect((await sessionOn(A, true)).user).toMatchObject({ email, workspaceId: tenant.workspaceId, role: "creator" });
  expect((await sessionOn(B, true)).user, "B reads A's session").toMatchObject({
    email,
    workspaceId: tenant.workspaceId,
    role: "creator",
  });
  expect((await sessionOn(B, false)).user).toBeUndefined();

  const page = (spec: ServerSpec, path: string, withCookie: boolean) =>
    fetch(`${spec.baseURL}${path}`, {
      redirect: "manual",
      headers: { accept: "text/html", ...(withCookie ? { cookie: session } : {}) },
    });
  // The run's page on B, signed in on A: the workspace's run, shown.
  const runPage = await page(B, `/runs/${gen.id}`, true);
  const html = await runPage.text();
  expect(runPage.status, html.slice(0, 300)).toBe(200);
  expect(html).toContain(gen.id);
  const list = await page(B, "/runs", true);
  expect(list.status).toBe(200);
  // Without the cookie, B sends the visitor to sign-in.
  for (const res of [await page(B, `/runs/${gen.id}`, false), await page(B, "/runs", false)]) {
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    expect(res.headers.get("location")).toMatch(/\/sign-in(\?|$)/);
  }

  // A password change from the admin CLI ends the session on both replicas within a second:
  // both had it cached (just read), and only the announcement can make them forget in time.
  admin(["user", "password", "--email", email, "--password", "replica-pass-2"], A);
  const changedAt = Date.now();
  for (const spec of [A, B]) {
    while ((await sessionOn(spec, true)).user !== undefined) {
      expect(Date.now() - changedAt, `${spec.name} still signs the old session in`).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const ended = await page(B, "/runs", true);
  expect(ended.headers.get("location")).toMatch(/\/sign-in(\?|$)/);
});

test("each webhook event is delivered once, not once per process; deliveries are signed with the secret B publishes", async ({
  request,
}) => {
  test.setTimeout(120_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "1", "replicas-webhooks");
  const { onA, onB } = both(tenant.api);
  const endpointPath = receiver.path("replicas-endpoint");
  const runPath = receiver.path("replicas-run");
  await createEndpoint(onA, { url: receiver.url(endpointPath) });
  const secret = (await readSecret(onB)).secret;

  // Six runs, started alternately on A and B; the first two also name their own webhook URL.
  const created: Generation[] = [];
  for (let i = 0; i < 6; i++) {
    const api = i % 2 === 0 ? onA : onB;
    created.push(
      (
        await api.create({
          model: "atelier/gradient",
          input: { prompt: `delivered once ${i}` },
          ...(i < 2 ? { webhook: receiver.url(runPath) } : {}),
        })
      ).gen,
    );
  }
  const events: EventObject[] = [];
  for (const [i, run] of created.entries()) {
    const done = await (i % 2 === 0 ? onB : onA).waitFinal(run.id, 60);
    expect(done.status).toBe("succeeded");
    events.push(await eventOfRun(onB, done));
  }
  await receiver.waitFor(endpointPath, created.length);
  await receiver.waitFor(runPath, 2);
  // Every process runs a webhook sender (2 servers, 2 workers): give any second copy time to come.
  // The retry schedule is 0.3 s, so 3 s is ten retry steps.
  for (const event of events)
    await finalDeliveries(
      onA,
      `/v1/events/${event.id}/deliveries`,
      (event.data as { id: string }).id === created[0]!.id || (event.data as { id: string }).id === created[1]!.id
        ? 2
        : 1,
    );
  await sleep(3_000);

  const atEndpoint = receiver.at(endpointPath);
  const atRun = receiver.at(runPath);
  const idsAt = (arrivals: typeof atEndpoint) => arrivals.map((a) => String(a.headers["webhook-id"])).sort();
  expect(idsAt(atEndpoint), "one delivery per event at the endpoint").toEqual(events.map((e) => e.id).sort());
  expect(idsAt(atRun), "one delivery per event at the runs' own URL").toEqual(
    events
      .slice(0, 2)
      .map((e) => e.id)
      .sort(),
  );
  for (const arrival of [...atEndpoint, ...atRun]) {
    const event = events.find((e) => e.id === arrival.headers["webhook-id"])!;
    expect((expectSignedDelivery(arrival, secret, { eventId: event.id }).data as { id: string }).id).toBe(
      (event.data as { id: string }).id,
    );
  }
  // Each delivery was attempted once, and succeeded.
  for (const event of events) {
    for (const delivery of await finalDeliveries(
      onB,
      `/v1/events/${event.id}/deliveries`,
      event.id === events[0]!.id || event.id === events[1]!.id ? 2 : 1,
    )) {
      expect(delivery.status).toBe("succeeded");
      expect(delivery.attempts).toHaveLength(1);
    }
  }
});

test("the events purge removes what is past 30 days and takes one turn per interval across all four processes", async ({
  request,
}) => {
  test.setTimeout(120_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "1", "replicas-purge");
  const { onA, onB } = both(tenant.api);
  const old = await eventOfRun(onA, await endedRun(onA));
  const recent = await eventOfRun(onB, await endedRun(onB));
  const daysAgo = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000).toISOString();
  await writeServerStore(A, [
    ["update events set created_at = ? where id = ?", [daysAgo(31), old.id]],
    ["update events set created_at = ? where id = ?", [daysAgo(29), recent.id]],
  ]);
  await expect
    .poll(async () => (await onB.get(`/v1/events/${old.id}`)).status(), {
      timeout: 20_000,
      message: "the 31-day event is purged",
    })
    .toBe(404);
  await expectError(await onA.get(`/v1/events/${old.id}`), 404, "resource_not_found");
  expect(await expectOk<EventObject>(await onA.get(`/v1/events/${recent.id}`))).toEqual(recent);

  // Once per interval: every process asks for the purge's turn each second, and the turn record
  // (scheduled_tasks, the only trace: the purge itself changes nothing when there is nothing to
  // delete) shows turns at least one interval apart. Four processes each purging every second
  // would take about four turns a second.
  interface Turn {
    runs: number;
    due_at: string;
    last_run_at: string;
    last_run_by: string;
  }
  const turn = async (): Promise<Turn> => {
    const rows = await query<Turn>(
      "select runs, due_at, last_run_at, last_run_by from scheduled_tasks where name = $1",
      ["events_purge"],
    );
    expect(rows, "the events purge's turn record").toHaveLength(1);
    return { ...rows[0]!, runs: Number(rows[0]!.runs) };
  };
  const samples: Turn[] = [await turn()];
  while (samples.at(-1)!.runs - samples[0]!.runs < 5) {
    await sleep(100);
    samples.push(await turn());
    expect(samples.length, "the purge keeps taking turns").toBeLessThan(600);
  }
  const pids = new Set([...servers, ...workers].map(pidOf));
  for (const s of samples) {
    expect(Date.parse(s.due_at) - Date.parse(s.last_run_at), "the next turn is one interval after the last").toBe(
      PURGE_EVERY_MS,
    );
    const pid = Number(/^(?:server|worker)-(\d+)-/.exec(s.last_run_by)?.[1]);
    expect(pids.has(pid), `${s.last_run_by} is one of this file's processes`).toBe(true);
  }
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const turns = last.runs - first.runs;
  const span = Date.parse(last.last_run_at) - Date.parse(first.last_run_at);
  expect(
    turns,
    `${turns} turns in ${span} ms, by ${[...new Set(samples.map((s) => s.last_run_by))].join(", ")}`,
  ).toBeLessThanOrEqual(Math.floor(span / PURGE_EVERY_MS));
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    expect(
      Date.parse(b.last_run_at) - Date.parse(a.last_run_at),
      "turns are at least an interval apart",
    ).toBeGreaterThanOrEqual((b.runs - a.runs) * PURGE_EVERY_MS);
  }
});

test("a worker killed with SIGKILL mid-run: the other worker recovers the run after its lease lapses, charged once", async ({
  request,
}) => {
  test.setTimeout(240_000);
  ensureWorkers();
  const tenant = newTenant(request, A, "5", "replicas-kill");
  const { onA, onB } = both(tenant.api);
  // A video of a few seconds: long enough to catch its worker inside it.
  const slow = (i: number) => ({
    model: "atelier/title-motion",
    input: { prompt: `rescued on another worker ${i}`, duration: 4, resolution: "480p" },
  });

  let orphan: { id: string; killed: Proc; survivor: Proc } | null = null;
  let seed = 0;
  for (let attempt = 0; attempt < 5 && !orphan; attempt++) {
    const live = ensureWorkers();
    // Work for both workers and some queued behind.
    for (let i = 0; i < 4; i++) await (i % 2 === 0 ? onA : onB).create(slow(seed++));
    // Which worker holds a run of ours (the API does not say; the lease owner names the process).
    let held = null as { id: string; owner: Proc } | null;
    const deadline = Date.now() + 60_000;
    while (!held) {
      expect(Date.now(), `no run started within 60 s: ${live.map((w) => w.proc.stderr()).join("\n")}`).toBeLessThan(
        deadline,
      );
      const rows = await query<{ id: string; lease_owner: string }>(
        "select id, lease_owner from generations where workspace_id = $1 and status = 'running' and lease_owner is not null",
        [tenant.workspaceId],
      );
      for (const row of rows) {
        const owner = live.find((w) => row.lease_owner.startsWith(`worker-${pidOf(w)}-`));
        if (owner) held = { id: row.id, owner };
      }
      if (!held) await sleep(50);
    }
    held.owner.proc.child.kill("SIGKILL");
    expect((await held.owner.proc.exited).signal).toBe("SIGKILL");
    // Still running with nobody running it: an orphan. (Had it just ended, try again.)
    const now = await onB.read(held.id);
    if (now.status === "running")
      orphan = { id: held.id, killed: held.owner, survivor: live.find((w) => w !== held!.owner)! };
  }
  expect(orphan, "a run was caught running when its worker was killed").not.toBeNull();
  const { id, killed, survivor } = orphan!;
  const caught = await onA.read(id);
  expect(caught).toMatchObject({ status: "running", completed_at: null, usage: { cost_usd: null } });
  expect(caught.started_at).not.toBeNull();
  expect(alive(killed)).toBe(false);
  expect(alive(survivor)).toBe(true);
  // Held, not charged, while nobody runs it.
  await expectLedgerIdentity(tenant);

  // Only the surviving worker has slots now (the servers have none): it re-runs the orphan once
  // the lease (15 s) lapses.
  const done = await onB.waitFinal(id, 120);
  expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
  expect(done.output).toHaveLength(1);
  expect(micros(done.usage.cost_usd)).toBe(await onA.quote(done.model, done.input));
  expect(alive(survivor), "the surviving worker is still up").toBe(true);
  expect(
    workers.filter(alive).map((w) => w.name),
    "no other worker was started meanwhile",
  ).toEqual([survivor.name]);

  // Charged once: one charge entry in the ledger for the run's hold, though it was run twice.
  const [row] = await query<{ attempts: number; charged_micros: string; hold_id: string }>(
    "select attempts, charged_micros, hold_id from generations where id = $1",
    [id],
  );
  expect(Number(row!.attempts), "claimed twice: by the killed worker and by the survivor").toBe(2);
  const charges = await query<{ amount_micros: string }>(
    "select amount_micros from ledger_entries where kind = 'charge' and hold_id = $1",
    [row!.hold_id],
  );
  expect(charges.map((c) => Number(c.amount_micros))).toEqual([micros(done.usage.cost_usd)]);

  const runs = await settle(onA, 120);
  let spent = 0;
  for (const run of runs) {
    expect(run.status, `${run.id}: ${JSON.stringify(run.error)}`).toBe("succeeded");
    spent += micros(run.usage.cost_usd);
  }
  expect(await onB.credits()).toEqual({ available: 5_000_000 - spent, held: 0 });
  await expectLedgerIdentity(tenant);
  // Back to two workers for anything after.
  ensureWorkers();
});
