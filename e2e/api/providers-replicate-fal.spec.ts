// Issue 12 over HTTP: Replicate and fal entries (written by the import command's core from the
// fakes' own schemas: fixtures/replicate-fal/providers.json) run end to end through
// POST /v1/generations, against local fakes of both providers driven by their real client
// libraries. This file starts its own server (port 3391, fresh data dir) and the fakes (3392
// Replicate, 3393 fal, 3394 their media host). Checked: succeeded with `provider` set, outputs
// served through Atelier's signed links as real media (never the provider's URLs), exactly the
// price charged; a failed prediction and a refused fal request fail with the provider's words and
// charge nothing; cancel after submission is 409 at Replicate (it bills) and cancels a queued fal
// request there (free); a run fal still queues shows fal's place as its queue_position; keys
// appear in no answer and no log line. The server has a PUBLIC_BASE_URL, so both providers are
// given a webhook URL on it for each job: their webhooks are taken at once (204), a forged token
// is refused with 404.
import path from "node:path";
import { rmSync } from "node:fs";
import sharp from "sharp";
import { expect, test, type APIRequestContext } from "./fixtures";
import { startFalFake, type FalFake } from "../../lib/providers/fal/testing/fal-fake";
import { startReplicateFake, type ReplicateFake } from "../../lib/providers/replicate/testing/replicate-fake";
import { parseWav } from "../../lib/models/audio/wav";
import { expectError } from "./helpers";
import { newTenant, startOwnServer, stopWorker, type Generation, type WorkerProcess } from "./runs-helpers";
import { REPO_ROOT, serverSpec, type ServerSpec } from "./servers";

const REPLICATE_TOKEN = "r8_e2e_replicate_token_0123456789";
const FAL_KEY = "e2e-fal-key-id:e2e-fal-key-secret";

/** What providers push to: the server's own address (localhost, as the keys test looks for 127.0.0.1:339…). */
const PUBLIC_BASE_URL = "http://localhost:3391";

const spec: ServerSpec = serverSpec("replicate-fal", 3391, 100_000, 100_000, {
  workers: 2,
  env: {
    PROVIDERS_FILE: path.join(REPO_ROOT, "e2e", "api", "fixtures", "replicate-fal", "providers.json"),
    E2E_REPLICATE_TOKEN: REPLICATE_TOKEN,
    E2E_FAL_KEY: FAL_KEY,
  },
});

let server: WorkerProcess | null = null;
let replicate: ReplicateFake;
let fal: FalFake;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  replicate = await startReplicateFake({ port: 3392, mediaPort: 3394, token: REPLICATE_TOKEN });
  fal = await startFalFake({ port: 3393, key: FAL_KEY });
  rmSync(spec.dataDir, { recursive: true, force: true });
  server = await startOwnServer(spec, { PUBLIC_BASE_URL });
});

test.afterAll(async () => {
  await stopWorker(server);
  await replicate?.close();
  await fal?.close();
});

async function download(request: APIRequestContext, url: string): Promise<Buffer> {
  const at = new URL(url);
  expect(
    [at.port, at.pathname.startsWith("/v1/blobs/"), at.searchParams.has("signature")],
    `${url} is an Atelier signed link`,
  ).toEqual([String(spec.port), true, true]);
  const res = await request.get(url);
  expect(res.status(), url).toBe(200);
  return res.body();
}

function micros(usd: string): number {
  const [whole, fraction = ""] = usd.split(".");
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
}

test("a Replicate entry runs in one call: succeeded, provider named, images served by Atelier, exactly the price charged", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "replicate-ok");
  const quote = await tenant.api.quote("bfl/flux-schnell", { prompt: "a red fox", num_outputs: 2 });
  expect(quote).toBe(6_000);
  const { gen } = await tenant.api.create(
    { model: "bfl/flux-schnell", input: { prompt: "a red fox", num_outputs: 2 } },
    { prefer: "wait=30" },
  );
  expect(gen).toMatchObject({ status: "succeeded", provider: "replicate", usage: { cost_usd: "0.006" } });
  expect(gen.input).toMatchObject({ prompt: "a red fox", num_outputs: 2, aspect_ratio: "1:1", go_fast: true });
  expect(gen.output).toHaveLength(2);
  for (const item of gen.output) {
    expect(item).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
    const meta = await sharp(await download(request, item.url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 64, 48]);
  }
  expect(JSON.stringify(gen)).not.toContain("127.0.0.1:3394");
  const create = replicate.requests.find(
    (r) => r.method === "POST" && JSON.parse(r.body).input?.prompt === "a red fox",
  )!;
  expect(create.path).toBe("/v1/models/black-forest-labs/flux-schnell/predictions");
  expect(create.headers.prefer).toMatch(/^wait=\d+$/);
  expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - 6_000, held: 0 });
});

test("a Replicate audio entry: the sound is stored and served as a WAV", async ({ request }) => {
  const tenant = newTenant(request, spec, "1.00", "replicate-audio");
  const { gen } = await tenant.api.create(
    { model: "acme/speaker", input: { text: "Hello from Replicate" } },
    { prefer: "wait=30" },
  );
  expect(gen).toMatchObject({ status: "succeeded", provider: "replicate", usage: { cost_usd: "0.01" } });
  expect(gen.output[0]).toMatchObject({ type: "audio", content_type: "audio/wav" });
  const wav = parseWav(await download(request, gen.output[0]!.url));
  expect(wav.sampleRate).toBe(16_000);
  expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - 10_000, held: 0 });
});

test("a fal entry runs through fal's queue: succeeded, provider named, the image served by Atelier, exactly the price charged", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "fal-ok");
  const { gen } = await tenant.api.create(
    { model: "bfl/flux-dev", input: { prompt: "a quiet harbour", image_size: "square" } },
    { prefer: "wait=30" },
  );
  expect(gen).toMatchObject({ status: "succeeded", provider: "fal", usage: { cost_usd: "0.025" } });
  expect(gen.output).toHaveLength(1);
  expect(gen.output[0]).toMatchObject({ type: "image", content_type: "image/png", width: 64, height: 48 });
  expect((await sharp(await download(request, gen.output[0]!.url)).stats()).channels.some((c) => c.stdev > 0)).toBe(
    true,
  );
  const submitted = fal.requests.find((r) => r.method === "POST" && JSON.parse(r.body).prompt === "a quiet harbour")!;
  expect(new URL(submitted.path, fal.url).pathname).toBe("/fal-ai/flux/dev");
  expect(submitted.headers.authorization).toBe(`Key ${FAL_KEY}`);
  expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - 25_000, held: 0 });
});

test("push: each job is given a webhook URL on this server; the providers' webhooks are taken at once (204); a forged token is 404", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "push");
  const a = (await tenant.api.create({ model: "bfl/flux-schnell", input: { prompt: "pushed by replicate" } }, { prefer: "wait=30" })).gen; // prettier-ignore
  const b = (await tenant.api.create({ model: "bfl/flux-dev", input: { prompt: "pushed by fal" } }, { prefer: "wait=30" })).gen; // prettier-ignore
  expect([a.status, b.status]).toEqual(["succeeded", "succeeded"]);

  const create = JSON.parse(replicate.requests.find((r) => r.body.includes("pushed by replicate"))!.body);
  const replicateHook = new URL(create.webhook);
  expect(`${replicateHook.origin}${replicateHook.pathname}`).toBe(`${PUBLIC_BASE_URL}/v1/provider-webhooks/${a.id}`);
  expect(create.webhook_events_filter).toEqual(["start", "output", "completed"]);
  const submit = fal.requests.find((r) => r.method === "POST" && r.body.includes("pushed by fal"))!;
  const falHook = new URL(new URL(submit.path, fal.url).searchParams.get("fal_webhook")!);
  expect(`${falHook.origin}${falHook.pathname}`).toBe(`${PUBLIC_BASE_URL}/v1/provider-webhooks/${b.id}`);
  const answered = (url: URL) => () =>
    [...replicate.webhooks, ...fal.webhooks].filter((w) => w.url === url.href).map((w) => w.status);
  await expect.poll(answered(replicateHook), { timeout: 10_000 }).toEqual([204, 204, 204]);
  await expect.poll(answered(falHook), { timeout: 10_000 }).toEqual([204]);

  // The URL of another run, or a token changed by one character: nothing there.
  const forged = new URL(falHook);
  const token = forged.searchParams.get("token")!;
  forged.searchParams.set("token", `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`);
  const otherRun = new URL(replicateHook);
  otherRun.pathname = `/v1/provider-webhooks/${b.id}`;
  for (const url of [forged, otherRun]) {
    await expectError(await request.post(url.href, { data: { request_id: "x", status: "OK", payload: {} } }), 404, "resource_not_found"); // prettier-ignore
  }
});

test("a failed prediction and a refused fal request fail the run with the provider's words; nothing is charged", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "refused");
  const failed = (
    await tenant.api.create(
      { model: "bfl/flux-schnell", input: { prompt: "please refuse this" } },
      { prefer: "wait=30" },
    )
  ).gen;
  expect(failed).toMatchObject({ status: "failed", provider: "replicate", output: [], usage: { cost_usd: null } });
  expect(failed.error!.message).toBe(
    "The provider replicate failed the prediction: NSFW content detected. Try running it again, or try a different prompt.",
  );
  const refused = (
    await tenant.api.create({ model: "bfl/flux-dev", input: { prompt: "refuse me" } }, { prefer: "wait=30" })
  ).gen;
  expect(refused).toMatchObject({ status: "failed", provider: "fal", usage: { cost_usd: null } });
  expect(refused.error!.message).toBe(
    "The provider fal refused the request: prompt: The content could not be processed because it contained material flagged by a content checker.",
  );
  expect(await tenant.api.credits()).toEqual({ available: 1_000_000, held: 0 });
  // Refusals are the input's fault: both providers' entries stay in service.
  const catalog = await tenant.api.get("/v1/models/bfl/flux-dev");
  expect((await catalog.json()).availability.status).toBe("available");
});

test("cancel: a queued fal request is canceled there and the hold released; a Replicate prediction bills, so 409 and it goes on", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "cancel");
  fal.mode = "manual";
  replicate.mode = "manual";
  try {
    const queued = fal.nextRequest();
    const { gen } = await tenant.api.create({ model: "bfl/flux-dev", input: { prompt: "cancel me", num_images: 2 } });
    const falRequest = await queued;
    expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - 50_000, held: 50_000 });
    const canceled = await tenant.api.post(`/v1/generations/${gen.id}/cancel`);
    expect(canceled.status()).toBe(200);
    expect(((await canceled.json()) as Generation).status).toBe("canceled");
    await expect.poll(() => falRequest.canceled, { timeout: 10_000 }).toBe("queued");
    expect(await tenant.api.credits()).toEqual({ available: 1_000_000, held: 0 });

    const created = replicate.nextPrediction();
    const run = (await tenant.api.create({ model: "bfl/flux-schnell", input: { prompt: "too late to cancel" } })).gen;
    const prediction = await created;
    const refused = await expectError(await tenant.api.post(`/v1/generations/${run.id}/cancel`), 409, "conflict");
    expect(refused.message).toMatch(/provider that bills/);
    await replicate.succeed(prediction.id);
    const done = await tenant.api.waitFinal(run.id);
    expect(done).toMatchObject({ status: "succeeded", provider: "replicate", usage: { cost_usd: "0.003" } });
    expect(await tenant.api.credits()).toEqual({ available: 1_000_000 - micros("0.003"), held: 0 });
  } finally {
    fal.mode = "auto";
    replicate.mode = "auto";
  }
});

test("while fal still queues a request the run is running, with fal's place as its queue_position (1 = next there), until fal starts it", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "fal-queue");
  fal.mode = "manual";
  // Two requests of other fal users are ahead of it.
  fal.queueAhead = 2;
  try {
    const queued = fal.nextRequest();
    const { gen } = await tenant.api.create({ model: "bfl/flux-dev", input: { prompt: "a long queue at fal" } });
    const falRequest = await queued;
    const place = async () => {
      const read = await tenant.api.read(gen.id);
      return [read.status, read.queue_position];
    };
    await expect.poll(place, { timeout: 10_000 }).toEqual(["running", 3]);
    const listed = (await tenant.api.listAll()).find((g) => g.id === gen.id);
    expect(listed).toMatchObject({ status: "running", queue_position: 3 });
    fal.setAhead(falRequest.id, 1);
    await expect.poll(place, { timeout: 10_000 }).toEqual(["running", 2]);
    fal.setAhead(falRequest.id, 0);
    await expect.poll(place, { timeout: 10_000 }).toEqual(["running", 1]);
    fal.start(falRequest.id);
    await expect.poll(place, { timeout: 10_000 }).toEqual(["running", null]);
    await fal.complete(falRequest.id);
    const done = await tenant.api.waitFinal(gen.id);
    expect(done).toMatchObject({
      status: "succeeded",
      provider: "fal",
      queue_position: null,
      usage: { cost_usd: "0.025" },
    });
  } finally {
    fal.mode = "auto";
    fal.queueAhead = 0;
  }
});

test("the providers' keys appear in no catalog entry and no log line", async ({ request }) => {
  const tenant = newTenant(request, spec, "1.00", "keys");
  const catalog = await (await tenant.api.get("/v1/models")).text();
  expect(catalog).toContain("bfl/flux-schnell");
  for (const secret of [REPLICATE_TOKEN, FAL_KEY, "127.0.0.1:339"]) expect(catalog).not.toContain(secret);
  for (const secret of [REPLICATE_TOKEN, FAL_KEY]) expect(server!.stderr()).not.toContain(secret);
});
