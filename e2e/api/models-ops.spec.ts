// Issue 4 over HTTP on the models server: a remote provider from PROVIDERS_FILE (a local server
// speaking the OpenAI-compatible images protocol) that succeeds, refuses, is slow, fails with a
// 5xx or hangs; moderation (MODERATION_BLOCKLIST); and taking an entry out of service with the
// admin CLI (503 + Retry-After, catalog availability, presets using it as a step, resume).
import { createServer, type Server } from "node:http";
import sharp from "sharp";
import { expect, test } from "./fixtures";
import { admin } from "./admin";
import { expectError, expectOk } from "./helpers";
import { newTenant } from "./runs-helpers";
import { FAKE_PROVIDER_PORT, SERVERS } from "./servers";

const spec = SERVERS.models;

type Behaviour = "ok" | "refuse" | "slow" | "hang" | "down";
let behaviour: Behaviour = "ok";
const seen: { auth: string | undefined; body: Record<string, unknown> }[] = [];
let provider: Server;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#2288cc" } })
    .png()
    .toBuffer();
  provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
      seen.push({ auth: req.headers.authorization, body });
      const answer = () =>
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            created: 1,
            data: Array.from({ length: Number(body.n ?? 1) }, () => ({ b64_json: png.toString("base64") })),
          }),
        );
      if (behaviour === "ok") answer();
      else if (behaviour === "slow") setTimeout(answer, 1_500);
      else if (behaviour === "refuse")
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "Your prompt mentions a trademark." } }));
      else if (behaviour === "down") res.writeHead(502).end("bad gateway");
      // "hang": never answers; the provider's timeout_ms (3 s) ends it.
    });
  });
  await new Promise<void>((resolve) => provider.listen(FAKE_PROVIDER_PORT, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  provider.closeAllConnections();
  await new Promise((resolve) => provider.close(resolve));
});

test("a remote entry is in the catalog with its provider's price and runs there: charged once, provider named", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "provider");
  const api = tenant.api;
  const list = await expectOk<{ data: { id: string; creator: string; availability: { status: string } }[] }>(
    await api.get("/v1/models"),
  );
  expect(list.data.find((m) => m.id === "fakeimg/sketch")).toMatchObject({
    creator: "Fake Images Inc.",
    availability: { status: "available" },
  });
  expect(await api.quote("fakeimg/sketch", { prompt: "a fox", n: 2 })).toBe(40_000);

  behaviour = "ok";
  const { gen } = await api.create({ model: "fakeimg/sketch", input: { prompt: "a fox", n: 2 } });
  const done = await api.waitFinal(gen.id);
  expect(done).toMatchObject({ status: "succeeded", provider: "fakeimg", usage: { cost_usd: "0.04" } });
  expect(done.output).toHaveLength(2);
  const bytes = await (await request.get(done.output[0]!.url)).body();
  expect(await sharp(bytes).metadata()).toMatchObject({ format: "png", width: 32, height: 32 });
  expect(seen.at(-1)).toMatchObject({
    auth: "Bearer sk-e2e-fake-provider",
    body: { model: "sketch-1", prompt: "a fox", n: 2 },
  });
  expect(await api.credits()).toEqual({ available: 1_000_000 - 40_000, held: 0 });
});

test("a slow provider still succeeds, and its run cannot be canceled once submitted (409)", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "provider-slow").api;
  behaviour = "slow";
  const { gen } = await api.create({ model: "fakeimg/sketch", input: { prompt: "a slow owl" } });
  await expect.poll(() => seen.some((s) => s.body.prompt === "a slow owl"), { timeout: 10_000 }).toBe(true);
  const cancel = await api.post(`/v1/generations/${gen.id}/cancel`);
  const err = await expectError(cancel, 409, "conflict");
  expect(err.message).toMatch(/provider that bills/);
  const done = await api.waitFinal(gen.id);
  expect(done).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.02" } });
});

test("a provider's refusal fails the run with its message; nothing is charged", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "provider-fail").api;
  behaviour = "refuse";
  const refused = await api.waitFinal(
    (await api.create({ model: "fakeimg/sketch", input: { prompt: "a mouse" } })).gen.id,
  );
  expect(refused.status).toBe("failed");
  expect(refused.error!.message).toContain("Your prompt mentions a trademark.");
  // A refusal is the prompt's fault, not the provider's: its entries stay in service.
  await expectOk(await api.post("/v1/quotes", { model: "fakeimg/sketch", input: { prompt: "again" } }));
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
});

test("moderation: a blocked word fails the run with a clear message, nothing charged; other words pass", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "moderation").api;
  const blocked = await api.waitFinal(
    (await api.create({ model: "atelier/gradient", input: { prompt: "a ForbiddenWord sunset" } })).gen.id,
  );
  expect(blocked).toMatchObject({ status: "failed", usage: { cost_usd: null }, output: [] });
  expect(blocked.error!.message).toMatch(/prompt was refused/);
  const phrase = await api.waitFinal(
    (await api.create({ model: "atelier/gradient", input: { prompt: "never  say THIS" } })).gen.id,
  );
  expect(phrase.status).toBe("failed");
  const fine = await api.waitFinal(
    (await api.create({ model: "atelier/gradient", input: { prompt: "forbiddenwords are fine as part of words" } })).gen
      .id,
  );
  expect(fine.status).toBe("succeeded");
  expect(await api.credits()).toEqual({ available: 1_000_000 - 2_000, held: 0 });
});

test("ops pause an entry with the admin CLI: 503 + Retry-After, the catalog says so; resume brings it back", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "pause").api;
  const model = "atelier/gradient-poster@1";
  const until = new Date(Date.now() + 10 * 60_000).toISOString();
  expect(
    admin(["model", "pause", model, "--until", until, "--reason", "new fonts are being installed"], spec),
  ).toMatchObject({ model, until });

  const quote = await api.post("/v1/quotes", { model, input: { prompt: "x", title: "T" } });
  const err = await expectError(quote, 503, "service_unavailable");
  expect(err.message).toContain("new fonts are being installed");
  expect(Number(quote.headers()["retry-after"])).toBeGreaterThan(500);
  await expectError(
    await api.post("/v1/generations", { model, input: { prompt: "x", title: "T" } }),
    503,
    "service_unavailable",
  );
  const entry = await expectOk<{ availability: unknown }>(
    await request.get(`${spec.baseURL}/v1/public/models/${model}`),
  );
  expect(entry.availability).toEqual({ status: "out_of_service", message: "new fonts are being installed", until });

  // (That queued runs wait meanwhile is tested in lib/engine/cancel-point.test.ts, where no
  // worker races the pause.)
  expect(admin(["model", "resume", model], spec)).toEqual({ object: "model_resume", model, resumed: true });
  const { gen } = await api.create({ model, input: { prompt: "after resume", title: "T" } });
  expect((await api.waitFinal(gen.id)).status).toBe("succeeded");
  await expectOk(await api.post("/v1/quotes", { model, input: { prompt: "x", title: "T" } }));
});

test("pausing a model takes the presets that use it as a step out of service too; resume brings them back", async ({
  request,
}) => {
  // On the idle server (no worker), where no other suite runs these entries meanwhile.
  const idle = SERVERS.runsSqliteIdle;
  const api = newTenant(request, idle, "1.00", "step-pause").api;
  const input = { title: "Harbour nights", prompt: "sea", duration: 2 };
  const until = new Date(Date.now() + 10 * 60_000).toISOString();
  admin(["model", "pause", "atelier/music", "--until", until, "--reason", "the synthesiser is being tuned"], idle);
  try {
    const why = "its step atelier/music is out of service (the synthesiser is being tuned)";
    const quote = await api.post("/v1/quotes", { model: "atelier/promo-video@2", input });
    const err = await expectError(quote, 503, "service_unavailable");
    expect(err.message).toContain(why);
    expect(Number(quote.headers()["retry-after"])).toBeGreaterThan(500);
    await expectError(
      await api.post("/v1/generations", { model: "atelier/promo-video@2", input }),
      503,
      "service_unavailable",
    );
    const list = await expectOk<{ data: { id: string; availability: unknown }[] }>(await api.get("/v1/models"));
    const availability = (id: string) => list.data.find((m) => m.id === id)!.availability;
    expect(availability("atelier/promo-video@2")).toEqual({ status: "out_of_service", message: why, until });
    // @1 has no music step: it stays in service.
    expect(availability("atelier/promo-video@1")).toMatchObject({ status: "available" });
    await expectOk(await api.post("/v1/quotes", { model: "atelier/promo-video@1", input }));
  } finally {
    admin(["model", "resume", "atelier/music"], idle);
  }
  await expectOk(await api.post("/v1/quotes", { model: "atelier/promo-video@2", input }));
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
});

test("a provider that fails with a 5xx: the run fails with a message for a person, nothing charged, and its entries are out of service", async ({
  request,
}) => {
  // flakyimg is the same fake server under a second provider, so fakeimg stays in service.
  const api = newTenant(request, spec, "1.00", "provider-5xx").api;
  const model = "flakyimg/sketch";
  await expectOk(await api.post("/v1/quotes", { model, input: { prompt: "a kingfisher" } }));
  behaviour = "down";
  const failed = await api.waitFinal((await api.create({ model, input: { prompt: "a kingfisher" } })).gen.id);
  behaviour = "ok";
  expect(seen.at(-1)?.body).toMatchObject({ prompt: "a kingfisher" });
  expect(failed).toMatchObject({ status: "failed", provider: "flakyimg", output: [], usage: { cost_usd: null } });
  expect(failed.error!.message).toBe("The provider flakyimg failed (HTTP 502). Try again later.");
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });

  const quote = await api.post("/v1/quotes", { model, input: { prompt: "again" } });
  const err = await expectError(quote, 503, "service_unavailable");
  expect(err.message).toContain("its provider flakyimg is failing (HTTP 502");
  const retryAfter = Number(quote.headers()["retry-after"]);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(30);
  await expectError(
    await api.post("/v1/generations", { model, input: { prompt: "again" } }),
    503,
    "service_unavailable",
  );
  const list = await expectOk<{
    data: { id: string; availability: { status: string; message: string | null; until: string | null } }[];
  }>(await api.get("/v1/models"));
  const entry = list.data.find((m) => m.id === model)!;
  expect(entry.availability.status).toBe("out_of_service");
  expect(entry.availability.message).toMatch(/^its provider flakyimg is failing \(HTTP 502, at /);
  expect(Date.parse(entry.availability.until!)).toBeGreaterThan(Date.now());
  expect(list.data.find((m) => m.id === "fakeimg/sketch")!.availability.status).toBe("available");
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
});

// Last of the provider tests: the provider stays out of service for 30 s after this.
test("a provider that does not answer: the run fails on its timeout, nothing charged, and its entries are out of service (503)", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "provider-down").api;
  behaviour = "hang";
  const hung = await api.waitFinal(
    (await api.create({ model: "fakeimg/sketch", input: { prompt: "a heron" } })).gen.id,
  );
  expect(hung.status).toBe("failed");
  expect(hung.error!.message).toMatch(/no answer|did not answer|time/i);
  expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
  const quote = await api.post("/v1/quotes", { model: "fakeimg/sketch", input: { prompt: "again" } });
  await expectError(quote, 503, "service_unavailable");
  expect(Number(quote.headers()["retry-after"])).toBeGreaterThan(0);
  await expectError(
    await api.post("/v1/generations", { model: "fakeimg/sketch", input: { prompt: "again" } }),
    503,
    "service_unavailable",
  );
  const entry = await expectOk<{ availability: { status: string; until: string } }>(
    await api.get("/v1/models/fakeimg/sketch"),
  );
  expect(entry.availability.status).toBe("out_of_service");
  expect(Date.parse(entry.availability.until)).toBeGreaterThan(Date.now());
  behaviour = "ok";
});
