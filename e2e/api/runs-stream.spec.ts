// GET /v1/generations/{id} with Accept: text/event-stream (docs/api.md, "Status stream"): `retry: 1000`,
// then one `generation` event with the whole Generation at once and again on every change, ids
// counting up by one from after Last-Event-ID, and the server closing the stream right after the
// final state. Also `progress` and `queue_position` on every Generation (create, read, list,
// batch, stream). Streams are read with Node's fetch and parsed incrementally (./sse.ts).
//
// On both stores: succeeded, failed and canceled runs, a preset's preview, resuming, and the
// errors before a stream starts, on the shared "busy" and "idle" servers. Queue positions counting
// down and runs executed by a worker process (`npm run worker`) are watched on servers this file
// starts itself with no worker slots (ports 3316/3326): queue positions count every queued run of
// the store, and a worker takes any run of it, so these need a store no other file uses. As with
// the shared servers, the PostgreSQL one keeps its blobs in the test bucket (its own prefix), so
// a worker process's outputs are written to the bucket and handed out as its links.
import { execFileSync } from "node:child_process";
import { expect, test, type APIRequestContext } from "./fixtures";
import { createKey } from "./admin";
import { expectError, expectOk, REQUEST_ID } from "./helpers";
import {
  blobsOf,
  expectBlobLink,
  expectLedgerIdentity,
  GENERATION_ID,
  isFinal,
  makePng,
  newTenant,
  pngSize,
  settle,
  startOwnServer,
  startWorker,
  stopWorker,
  STORES,
  storeTitle,
  type Api,
  type Batch,
  type FileObject,
  type Generation,
  type WorkerProcess,
} from "./runs-helpers";
import { bucketEnv, PG_SERVER_URL, serverSpec, type ServerSpec } from "./servers";
import { openEventStream, type EventStream } from "./sse";

/** A Generation as it is now: with progress and queue position. */
type Gen = Generation & { progress: number | null; queue_position: number | null };

const GENERATION_FIELDS = [
  "batch_id",
  "completed_at",
  "created_at",
  "error",
  "id",
  "input",
  "modality",
  "model",
  "object",
  "output",
  "outputs_purged_at",
  "preview",
  "progress",
  "provider",
  "queue_position",
  "revision",
  "source",
  "started_at",
  "status",
  "usage",
];

/** A video that takes a second or two here: long enough to be seen running and to report progress. */
const SHORT_VIDEO = {
  model: "atelier/title-motion",
  input: { prompt: "harbour lights at dusk", duration: 2, resolution: "480p" },
};
/** The same at the default resolution: a few seconds. */
const VIDEO = { model: "atelier/title-motion", input: { prompt: "a slow night sky", duration: 2 } };
/** A fraction of a second. */
const SOUND = { model: "atelier/music", input: { prompt: "calm piano", duration: 2 } };
const IMAGE = { model: "atelier/gradient", input: { prompt: "a streamed one" } };
/** The preset publishes its poster as the run's preview before it makes the video. */
const PRESET = {
  model: "atelier/promo-video@1",
  input: { title: "Streams", prompt: "pastel mountains", duration: 2, resolution: "480p" },
};

const RANK: Record<Gen["status"], number> = { queued: 0, running: 1, succeeded: 2, failed: 2, canceled: 2 };

/** Every Generation field, with what each must be in the run's status. */
function expectGeneration(gen: Gen, label: string): void {
  expect(Object.keys(gen).sort(), `${label}: the Generation's fields`).toEqual(GENERATION_FIELDS);
  expect(gen.object).toBe("generation");
  expect(gen.id).toMatch(GENERATION_ID);
  expect(Object.keys(RANK), label).toContain(gen.status);
  if (gen.status === "queued") {
    expect(
      Number.isInteger(gen.queue_position) && gen.queue_position! >= 1,
      `${label}: queue_position of a queued run is a whole number ≥ 1, got ${gen.queue_position}`,
    ).toBe(true);
    expect(gen.started_at, label).toBeNull();
  } else {
    expect(gen.queue_position, `${label}: queue_position is null unless queued`).toBeNull();
  }
  if (gen.status === "running") {
    if (gen.progress !== null) {
      expect(typeof gen.progress, label).toBe("number");
      expect(gen.progress, `${label}: progress within [0, 1]`).toBeGreaterThanOrEqual(0);
      expect(gen.progress, `${label}: progress within [0, 1]`).toBeLessThanOrEqual(1);
    }
    expect(gen.started_at, label).not.toBeNull();
  } else {
    expect(gen.progress, `${label}: progress is null unless running`).toBeNull();
  }
  if (isFinal(gen.status)) {
    expect(gen.completed_at, `${label}: a final run has completed_at`).not.toBeNull();
  } else {
    expect(gen.completed_at, label).toBeNull();
    expect(gen.output, label).toEqual([]);
    expect(gen.usage.cost_usd, label).toBeNull();
  }
  if (gen.status === "succeeded") {
    expect(gen.output.length, `${label}: outputs`).toBeGreaterThan(0);
    expect(gen.usage.cost_usd, label).toMatch(/^\d+\.\d+$/);
    expect(gen.error, label).toBeNull();
  }
  if (gen.status === "failed") {
    expect(typeof gen.error?.message, `${label}: error.message`).toBe("string");
    expect(gen.error!.message.length).toBeGreaterThan(0);
    expect(gen.output, label).toEqual([]);
    expect(gen.usage.cost_usd, label).toBeNull();
  }
  if (gen.status === "canceled") {
    expect(gen.output, label).toEqual([]);
    expect(gen.usage.cost_usd, label).toBeNull();
  }
}

/** A Generation without its signed links (fresh on every read). */
function withoutLinks(gen: Gen): unknown {
  const strip = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => k !== "url" && k !== "expires_at" && k !== "poster"));
  return {
    ...gen,
    output: gen.output.map((o) => strip(o as unknown as Record<string, unknown>)),
    preview: gen.preview && strip(gen.preview),
  };
}

/** Opens the status stream of run `id` with `api`'s key (Last-Event-ID when given). */
async function follow(
  api: Api,
  id: string,
  options: { lastEventId?: string; seconds?: number } = {},
): Promise<EventStream> {
  const headers: Record<string, string> = { "x-api-key": api.key };
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const stream = await openEventStream(api.url(`/v1/generations/${id}`), headers, options.seconds ?? 60);
  const res = stream.response;
  const body = res.status === 200 ? "" : await res.text();
  expect(res.status, `stream of ${id}: ${body}`).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
  expect(res.headers.get("x-request-id"), "X-Request-Id").toMatch(REQUEST_ID);
  for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"])
    expect(res.headers.get(name), name).toMatch(/^\d+$/);
  return stream;
}

/**
 * Everything a finished stream of run `id` must be: `retry: 1000` first, then only `generation`
 * events (and keep-alive comments), ids after+1, after+2, … without a gap, each a whole
 * Generation of this run; statuses only moving forward; exactly one final state, the last
 * event; the server closed the stream with no event cut short. Returns the Generations.
 */
function expectFinishedStream(stream: EventStream, id: string, after = 0): Gen[] {
  const seen = stream.describe();
  expect(stream.ended, `the server closed the stream\n${seen}`).toBe(true);
  expect(stream.trailing.trim(), `nothing after the last event\n${seen}`).toBe("");
  expect(stream.items[0], `retry: 1000 comes first\n${seen}`).toEqual({ kind: "retry", ms: 1000 });
  for (const item of stream.items.slice(1)) {
    if (item.kind === "comment") expect(item.text.trim(), seen).toBe("keep-alive");
    else expect(item.kind, `only events after the retry line\n${seen}`).toBe("event");
  }
  expect(stream.events.length, `at least one event\n${seen}`).toBeGreaterThan(0);
  const gens = stream.events.map((event, i) => {
    expect(event.event, seen).toBe("generation");
    expect(event.id, `ids count up by one from ${after + 1}\n${seen}`).toBe(String(after + 1 + i));
    const gen = JSON.parse(event.data) as Gen;
    expect(gen.id, seen).toBe(id);
    expectGeneration(gen, `event ${event.id}`);
    return gen;
  });
  for (let i = 1; i < gens.length; i++) {
    expect(RANK[gens[i]!.status], `statuses only move forward\n${seen}`).toBeGreaterThanOrEqual(
      RANK[gens[i - 1]!.status],
    );
  }
  expect(gens.filter((g) => isFinal(g.status)).length, `exactly one final event\n${seen}`).toBe(1);
  expect(isFinal(gens.at(-1)!.status), `the final event is the last\n${seen}`).toBe(true);
  return gens;
}

/**
 * The video output of a succeeded run as `spec` hands it out (`readAt`: about when the answer
 * came): links to its video and poster of the server's blob store, and the MP4 bytes behind them.
 */
async function expectVideoOutput(
  request: APIRequestContext,
  spec: ServerSpec,
  gen: Gen,
  readAt: number,
): Promise<void> {
  const item = gen.output[0]! as Gen["output"][number] & { poster: { url: string; expires_at: string } };
  expect(item).toMatchObject({ type: "video", content_type: "video/mp4" });
  expectBlobLink(spec, item, { contentType: "video/mp4", readAt });
  expectBlobLink(spec, item.poster, { readAt });
  const res = await request.get(item.url);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("video/mp4");
  expect((await res.body()).subarray(4, 8).toString("ascii"), "an MP4").toBe("ftyp");
  expect((await request.get(item.poster.url)).status()).toBe(200);
}

/** Progress values of the running events: each within [0, 1] and never going down. */
function progressOf(gens: Gen[], seen: string): number[] {
  const values = gens.filter((g) => g.status === "running" && g.progress !== null).map((g) => g.progress!);
  for (const v of values) {
    expect(v, seen).toBeGreaterThanOrEqual(0);
    expect(v, seen).toBeLessThanOrEqual(1);
  }
  for (let i = 1; i < values.length; i++)
    expect(values[i]!, `progress never goes down\n${seen}`).toBeGreaterThanOrEqual(values[i - 1]!);
  return values;
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] status stream`, () => {
    test("a run that succeeds: queued/running first, then on to one final succeeded event with outputs; ids 1..n; the server closes the stream", async ({
      request,
    }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(SHORT_VIDEO);
      const stream = await follow(api, gen.id);
      await stream.readToEnd();
      const gens = expectFinishedStream(stream, gen.id);
      const seen = stream.describe();
      expect(["queued", "running"], `the first event is the run before its end\n${seen}`).toContain(gens[0]!.status);
      const last = gens.at(-1)!;
      expect(last.status, seen).toBe("succeeded");
      expect(last.output[0]).toMatchObject({ type: "video", content_type: "video/mp4" });
      const progress = progressOf(gens, seen);
      expect(
        progress.length,
        `a ${gens.length}-event stream of a video run reported progress\n${seen}`,
      ).toBeGreaterThan(0);
      // The final event's links are the store's own, fresh, and lead to the video.
      await expectVideoOutput(request, store.busy, last, Date.now());
      // The final event is the run as a plain read answers it (but for fresh links).
      const read = await api.read(gen.id);
      expectGeneration(read as Gen, "read");
      expect(withoutLinks(last)).toEqual(withoutLinks(read as Gen));
      await expectLedgerIdentity(tenant);
    });

    test("a run that fails at run time: the last event is failed with error.message", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      // atelier/upscale refuses results longer than 8192 pixels: 4100 × 2 = 8200 (runs-money.spec.ts).
      const file = await expectOk<FileObject>(
        await request.post(api.url("/v1/files"), {
          headers: api.headers({ "content-type": "image/png" }),
          data: makePng(4100, 4),
        }),
        201,
      );
      const { gen } = await api.create({ model: "atelier/upscale", input: { image: file.id, scale: 2 } });
      const stream = await follow(api, gen.id);
      await stream.readToEnd();
      const gens = expectFinishedStream(stream, gen.id);
      const last = gens.at(-1)!;
      expect(last.status, stream.describe()).toBe("failed");
      expect(last.error!.message).toMatch(/8192/);
      expect(last.error).toEqual((await api.read(gen.id)).error);
      await expectLedgerIdentity(tenant);
    });

    test("cancel while the stream is open: queued with its position, then one final canceled event, and the stream closes", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create(IMAGE);
      const created = gen as Gen;
      expectGeneration(created, "create answer");
      const stream = await follow(api, gen.id);
      const first = await stream.next();
      expect(first, "an event at once").not.toBeNull();
      expect(first!.id).toBe("1");
      const queued = JSON.parse(first!.data) as Gen;
      expect(queued.status).toBe("queued");
      // Nothing runs on this store: the run can only have moved up since it was created.
      expect(queued.queue_position).toBeLessThanOrEqual(created.queue_position!);

      const canceled = await expectOk<Gen>(await api.post(`/v1/generations/${gen.id}/cancel`));
      expect(canceled.status).toBe("canceled");
      expectGeneration(canceled, "cancel answer");
      await stream.readToEnd();
      const gens = expectFinishedStream(stream, gen.id);
      expect(
        gens.map((g) => g.status),
        stream.describe(),
      ).toEqual(["queued", "canceled"]);
      expect(withoutLinks(gens[1]!)).toEqual(withoutLinks(canceled));
      await expectLedgerIdentity(tenant);
    });

    test("Last-Event-ID: 7 resumes at id 8; a finished run is answered with its final state once and the stream closes", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create(IMAGE);
      const stream = await follow(api, gen.id, { lastEventId: "7" });
      const first = await stream.next();
      expect(first?.id, stream.describe()).toBe("8");
      expect((JSON.parse(first!.data) as Gen).status).toBe("queued");
      await expectOk(await api.post(`/v1/generations/${gen.id}/cancel`));
      await stream.readToEnd();
      const gens = expectFinishedStream(stream, gen.id, 7);
      expect(gens.map((g) => g.status)).toEqual(["queued", "canceled"]);

      // Resuming after the end: the final state once, id 8 again, then the server closes.
      const again = await follow(api, gen.id, { lastEventId: "7" });
      await again.readToEnd();
      const final = expectFinishedStream(again, gen.id, 7);
      expect(
        final.map((g) => g.status),
        again.describe(),
      ).toEqual(["canceled"]);
      // Without Last-Event-ID a finished run's stream is that one event with id 1.
      const fresh = await follow(api, gen.id);
      await fresh.readToEnd();
      expect(expectFinishedStream(fresh, gen.id).map((g) => g.status)).toEqual(["canceled"]);
      await expectLedgerIdentity(tenant);
    });

    test("a preset's preview: a running event with preview precedes the final succeeded event", async ({ request }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(PRESET);
      const stream = await follow(api, gen.id);
      await stream.readToEnd();
      const gens = expectFinishedStream(stream, gen.id);
      const seen = stream.describe();
      const last = gens.at(-1)!;
      expect(last.status, seen).toBe("succeeded");
      const shown = gens.findIndex((g) => g.status === "running" && g.preview !== null);
      expect(shown, `a running event with a preview\n${seen}`).toBeGreaterThanOrEqual(0);
      expect(shown).toBeLessThan(gens.length - 1);
      const preview = gens[shown]!.preview!;
      expect(preview).toMatchObject({ content_type: "image/png", width: 854, height: 480 });
      // Once shown it stays, to the end.
      for (const g of gens.slice(shown)) expect(g.preview, seen).not.toBeNull();
      const previewLink = expectBlobLink(store.busy, preview, { contentType: "image/png", readAt: Date.now() });
      const image = await request.get(preview.url);
      expect(image.status()).toBe(200);
      expect(image.headers()["content-type"]).toMatch(/^image\/png/);
      expect(pngSize(await image.body())).toEqual({ width: 854, height: 480 });
      // The preview stays the same picture (a fresh link to the same blob) to the end.
      expect(expectBlobLink(store.busy, last.preview!, { contentType: "image/png", readAt: Date.now() }).key).toBe(
        previewLink.key,
      );
      expect(last.output[0]).toMatchObject({ type: "video" });
      progressOf(gens, seen);
      await expectLedgerIdentity(tenant);
    });

    test("before a stream: 404 for an unknown or another workspace's run, 401 without or with a bad key, 403 without generations:read, all JSON; Accept: application/json still answers JSON", async ({
      request,
    }) => {
      const owner = newTenant(request, store.idle, "1");
      const stranger = newTenant(request, store.idle, "1");
      const { gen } = await owner.api.create(IMAGE);
      await expectOk(await owner.api.post(`/v1/generations/${gen.id}/cancel`));
      const url = owner.api.url(`/v1/generations/${gen.id}`);
      const asStream = (headers: Record<string, string>) =>
        request.get(url, { headers: { accept: "text/event-stream", ...headers }, timeout: 30_000 });
      const fetchStream = (target: string, headers: Record<string, string>) =>
        fetch(target, { headers: { accept: "text/event-stream", ...headers }, signal: AbortSignal.timeout(30_000) });

      await expectError(await asStream({ "x-api-key": stranger.api.key }), 404, "resource_not_found");
      await expectError(
        await request.get(owner.api.url("/v1/generations/gen_0000000000000000000000ab"), {
          headers: { accept: "text/event-stream", "x-api-key": owner.api.key },
        }),
        404,
        "resource_not_found",
      );
      await expectError(await asStream({}), 401, "missing_api_key");
      await expectError(
        await asStream({ "x-api-key": "atl_notakeyatall0000000000000000000000" }),
        401,
        "invalid_api_key",
      );
      const writeOnly = createKey(owner.workspaceId, { scopes: ["generations:write"] }, store.idle).key;
      await expectError(await asStream({ "x-api-key": writeOnly }), 403, "permission_denied");
      // The same with Node's fetch, as a stream client sends it: JSON, not an event stream.
      for (const [target, headers, status] of [
        [url, { "x-api-key": stranger.api.key }, 404],
        [url, {}, 401],
      ] as const) {
        const res = await fetchStream(target, headers);
        expect(res.status).toBe(status);
        expect(res.headers.get("content-type")).toMatch(/^application\/json/);
        expect(((await res.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
      }

      // Accept: application/json (and a list where the stream is refused with q=0) answers the run as JSON.
      for (const accept of ["application/json", "application/json, text/event-stream;q=0"]) {
        const res = await request.get(url, { headers: { accept, "x-api-key": owner.api.key } });
        const body = await expectOk<Gen>(res);
        expect(body).toMatchObject({ id: gen.id, status: "canceled", progress: null, queue_position: null });
        expectGeneration(body, `Accept: ${accept}`);
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Servers of this file's own, with no worker slots: runs wait until a worker process takes them.

function ownSpec(name: string, port: number, pgDatabase: string | null, env: Record<string, string> = {}): ServerSpec {
  return serverSpec(name, port, 100_000, 100_000, { pgDatabase, workers: 0, env });
}

const OWN = [
  { name: "sqlite", spec: ownSpec("stream-sqlite", 3316, null) },
  { name: "postgres", spec: ownSpec("stream-postgres", 3326, "atelier_e2e_stream", bucketEnv("stream-postgres/")) },
];

function psql(...commands: string[]): void {
  execFileSync(
    "psql",
    [`${PG_SERVER_URL}/postgres`, "-q", "-v", "ON_ERROR_STOP=1", ...commands.flatMap((c) => ["-c", c])],
    {
      env: { ...process.env, PGOPTIONS: "--client-min-messages=warning" },
    },
  );
}

/** Reads `stream` to its end while polling the run list of `api`; returns every run the list showed meanwhile. */
async function readWhileListing(stream: EventStream, api: Api): Promise<Gen[]> {
  let finished = false;
  const reading = stream.readToEnd().finally(() => {
    finished = true;
  });
  reading.catch(() => undefined);
  const listed: Gen[] = [];
  while (!finished) {
    listed.push(...((await api.list({ status: "queued,running" })).data as Gen[]));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await reading;
  return listed;
}

for (const { name, spec: s } of OWN) {
  test.describe(`[${storeTitle({ name, blobs: blobsOf(s) })}] status stream across processes`, () => {
    let server: WorkerProcess | null = null;
    const workers: WorkerProcess[] = [];

    test.beforeAll(async () => {
      test.setTimeout(120_000);
      execFileSync("rm", ["-rf", s.dataDir]);
      if (s.pgDatabase) psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`, `CREATE DATABASE ${s.pgDatabase}`);
      server = await startOwnServer(s);
    });
    test.afterEach(async () => {
      for (const worker of workers.splice(0)) await stopWorker(worker);
    });
    test.afterAll(async () => {
      for (const worker of workers.splice(0)) await stopWorker(worker, "SIGKILL");
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill("SIGKILL");
        await server.exited;
      }
      server = null;
      if (s.pgDatabase) psql(`DROP DATABASE IF EXISTS ${s.pgDatabase} WITH (FORCE)`);
    });

    test("queue_position on create, batch, read and list; a queued run's stream counts down to 1, then running, then succeeded", async ({
      request,
    }) => {
      test.setTimeout(120_000);
      const tenant = newTenant(request, s, "5", "stream-queue");
      const { api } = tenant;
      // Nothing else is queued on this store: the places are exactly 1, 2, 3, 4. The run just
      // ahead of the followed one takes a second or two, so its place 1 is surely seen.
      const ahead: Gen[] = [];
      for (const body of [SOUND, SOUND, SHORT_VIDEO]) ahead.push((await api.create(body)).gen as Gen);
      // Itself a second or two, so it is surely seen running.
      const followed = (await api.create(SHORT_VIDEO)).gen as Gen;
      const created = [...ahead, followed];
      for (const [i, gen] of created.entries()) expectGeneration(gen, `create answer ${i}`);
      expect(created.map((g) => g.queue_position)).toEqual([1, 2, 3, 4]);

      // A batch's runs queue behind them, each with a place of its own.
      const batch = await expectOk<Batch>(await api.post("/v1/batches", { requests: [SOUND, SOUND, SOUND] }), 201);
      const batched = batch.data as Gen[];
      for (const [i, gen] of batched.entries()) expectGeneration(gen, `batch answer ${i}`);
      expect(batched.map((g) => g.queue_position!).sort((a, b) => a - b)).toEqual([5, 6, 7]);
      const all = [...created, ...batched];
      const placeAtCreate = new Map(all.map((g) => [g.id, g.queue_position!]));

      expect((await api.read(followed.id)) as Gen).toMatchObject({
        status: "queued",
        queue_position: 4,
        progress: null,
      });
      const queued = (await api.list({ status: "queued" })).data as Gen[];
      for (const gen of queued) expectGeneration(gen, "listed");
      expect(new Map(queued.map((g) => [g.id, g.queue_position]))).toEqual(placeAtCreate);

      const stream = await follow(api, followed.id, { seconds: 90 });
      const first = await stream.next();
      expect(JSON.parse(first!.data) as Gen).toMatchObject({ status: "queued", queue_position: 4 });
      workers.push(startWorker(s, 1));
      const listed = await readWhileListing(stream, api);

      const gens = expectFinishedStream(stream, followed.id);
      const seen = stream.describe();
      const places = gens.filter((g) => g.status === "queued").map((g) => g.queue_position!);
      expect(places[0], seen).toBe(4);
      for (let i = 1; i < places.length; i++)
        expect(places[i]!, `queue_position strictly goes down\n${seen}`).toBeLessThan(places[i - 1]!);
      expect(places.at(-1), `counted down to 1\n${seen}`).toBe(1);
      const after = gens.slice(places.length).map((g) => g.status);
      expect(after.length, `running after the queue, then the end\n${seen}`).toBeGreaterThanOrEqual(2);
      expect(new Set(after.slice(0, -1)), seen).toEqual(new Set(["running"]));
      expect(after.at(-1), seen).toBe("succeeded");

      // What the list showed meanwhile: a place for each queued run, none for a running one.
      for (const gen of listed) expectGeneration(gen, `listed while the worker ran (${gen.status})`);
      expect(
        listed.some((g) => g.status === "running"),
        "the list showed a run running",
      ).toBe(true);
      const done = await settle(api);
      for (const gen of done) expect(gen).toMatchObject({ status: "succeeded", queue_position: null, progress: null });
      // One worker slot: the runs started one after another, in the order of their places
      // (queue_position 1 is the next run to start).
      const byStart = [...done].sort((a, b) => Date.parse(a.started_at!) - Date.parse(b.started_at!));
      const startedAt = (g: Gen) =>
        `${g.started_at} place ${placeAtCreate.get(g.id)} ${g.batch_id ? `batch run ${batched.findIndex((b) => b.id === g.id)}` : g.model}`;
      expect(
        byStart.map((g) => placeAtCreate.get(g.id)),
        `runs start in the order of the queue_position they were given (1 = the next to start); started at, place, run:\n${byStart.map((g) => startedAt(g as Gen)).join("\n")}`,
      ).toEqual([1, 2, 3, 4, 5, 6, 7]);
      await expectLedgerIdentity(tenant);
    });

    test("a stream on a server with no worker slots sees a worker process start the run, its progress, and its end", async ({
      request,
    }) => {
      test.setTimeout(120_000);
      const tenant = newTenant(request, s, "5", "stream-worker");
      const { api } = tenant;
      const { gen } = await api.create(VIDEO);
      const stream = await follow(api, gen.id, { seconds: 90 });
      const first = await stream.next();
      expect(JSON.parse(first!.data) as Gen).toMatchObject({ status: "queued", queue_position: 1, progress: null });
      // A second client resuming from an id of its own follows the same run.
      const resumed = await follow(api, gen.id, { lastEventId: "100", seconds: 90 });

      workers.push(startWorker(s, 1));
      // Plain reads on the server meanwhile show the worker's progress too (or null), never out of range.
      const reads: Gen[] = [];
      let finished = false;
      const reading = Promise.all([stream.readToEnd(), resumed.readToEnd()]).finally(() => {
        finished = true;
      });
      reading.catch(() => undefined);
      while (!finished) {
        reads.push((await api.read(gen.id)) as Gen);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await reading;

      const gens = expectFinishedStream(stream, gen.id);
      const seen = stream.describe();
      expect(gens[0]!.status).toBe("queued");
      expect(
        gens.some((g) => g.status === "running"),
        `the stream saw the run start\n${seen}`,
      ).toBe(true);
      const last = gens.at(-1)!;
      expect(last.status, seen).toBe("succeeded");
      expect(last.output[0]).toMatchObject({ type: "video", content_type: "video/mp4" });
      // Written by the worker process into the store's blobs (the bucket on PostgreSQL), handed out by the server.
      await expectVideoOutput(request, s, last, Date.now());
      const progress = progressOf(gens, seen);
      expect(progress.length, `progress reported across processes for a multi-second video\n${seen}`).toBeGreaterThan(
        0,
      );

      const other = expectFinishedStream(resumed, gen.id, 100);
      expect(other.at(-1)!.status, resumed.describe()).toBe("succeeded");
      progressOf(other, resumed.describe());

      for (const read of reads) expectGeneration(read, `read while the worker ran (${read.status})`);
      const readProgress = reads.filter((r) => r.status === "running" && r.progress !== null).map((r) => r.progress!);
      for (let i = 1; i < readProgress.length; i++)
        expect(readProgress[i]!).toBeGreaterThanOrEqual(readProgress[i - 1]!);
      await expectLedgerIdentity(tenant);
    });
  });
}
