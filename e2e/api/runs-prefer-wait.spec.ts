// Prefer: wait=N on POST /v1/generations and GET /v1/generations/{id} (docs/api.md,
// "Create, wait and idempotency", "Limits"): answered when final or after N seconds, N clipped to 60, a malformed preference
// ignored; Preference-Applied echoes the wait used; Retry-After only while not final.
// (Waking by a run another process finishes is in runs-workers.spec.ts.)
import { expect, test, type APIResponse } from "./fixtures";
import { expectDeprecationHeaders, expectNoDeprecationHeaders, expectOk } from "./helpers";
import {
  expectLedgerIdentity,
  GENERATION_ID,
  newTenant,
  settle,
  STORES,
  storeTitle,
  type Generation,
} from "./runs-helpers";

const BODY = { model: "atelier/gradient", input: { prompt: "a fast one" } };

function expectRunHeaders(res: APIResponse, gen: Generation, opts: { applied: string | null; created: boolean }): void {
  const h = res.headers();
  if (opts.applied === null) expect(h["preference-applied"], "no Preference-Applied").toBeUndefined();
  else expect(h["preference-applied"]).toBe(opts.applied);
  if (["succeeded", "failed", "canceled"].includes(gen.status))
    expect(h["retry-after"], "a final answer has no Retry-After").toBeUndefined();
  else expect(h["retry-after"], "Retry-After while not final (image: 2)").toBe("2");
  if (opts.created) expect(h["location"]).toBe(`/v1/generations/${gen.id}`);
  expect(h["vary"] ?? "", "Vary names Prefer").toMatch(/\bPrefer\b/i);
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] Prefer: wait`, () => {
    test("Retry-After while not final follows the modality: 2 for image and audio, 5 for video", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const cases = [
        { body: { model: "atelier/gradient", input: { prompt: "an image" } }, retryAfter: "2" },
        { body: { model: "atelier/music", input: { prompt: "a sound", duration: 1 } }, retryAfter: "2" },
        { body: { model: "atelier/title-motion", input: { prompt: "a video", duration: 2 } }, retryAfter: "5" },
      ];
      for (const { body, retryAfter } of cases) {
        const { res, gen } = await tenant.api.create(body);
        expect(gen.status).toBe("queued");
        expect(res.headers()["retry-after"], `${body.model} on create`).toBe(retryAfter);
        const read = await tenant.api.get(`/v1/generations/${gen.id}`);
        expect(read.headers()["retry-after"], `${body.model} on read`).toBe(retryAfter);
        await expectOk(await tenant.api.post(`/v1/generations/${gen.id}/cancel`));
      }
      await expectLedgerIdentity(tenant);
    });

    test("POST without Prefer → 201 queued at once, Retry-After 2, no Preference-Applied", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { res, gen } = await tenant.api.create(BODY);
      expect(gen.id).toMatch(GENERATION_ID);
      expect(gen).toMatchObject({
        object: "generation",
        status: "queued",
        provider: null,
        started_at: null,
        completed_at: null,
        output: [],
        error: null,
      });
      expect(gen.usage).toEqual({ cost_usd: null });
      expectRunHeaders(res, gen, { applied: null, created: true });
      expect(res.headers()["idempotent-replayed"], "no Idempotent-Replayed without a key").toBeUndefined();
      await settle(tenant.api);
      await expectLedgerIdentity(tenant);
    });

    test("POST with Prefer: wait=30 on a fast model → 201 succeeded, Preference-Applied wait=30, no Retry-After", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "1");
      const asked = Date.now();
      const { res, gen } = await tenant.api.create(BODY, { prefer: "wait=30" });
      const answered = Date.now();
      expect(gen.status).toBe("succeeded");
      expect(gen.output).toHaveLength(1);
      expect(gen.usage.cost_usd).toBe("0.002");
      expect(gen.started_at).not.toBeNull();
      expect(gen.completed_at).not.toBeNull();
      expectRunHeaders(res, gen, { applied: "wait=30", created: true });
      // Answered when the run ended, not at the end of the 30 s (bound far from both).
      expect(answered - asked).toBeLessThan(20_000);
      await expectLedgerIdentity(tenant);
    });

    test("Prefer: wait=100 is clipped to 60", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { res, gen } = await tenant.api.create(BODY, { prefer: "wait=100" });
      expect(gen.status).toBe("succeeded");
      expectRunHeaders(res, gen, { applied: "wait=60", created: true });
      const read = await tenant.api.get(`/v1/generations/${gen.id}`, { prefer: "wait=3600" });
      expectRunHeaders(read, await expectOk<Generation>(read), { applied: "wait=60", created: false });
    });

    test("a malformed Prefer is ignored: 201 at once, no Preference-Applied", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      for (const prefer of ["wait=abc", "wait=", "wait=-5", "wait=1.5", "patience"]) {
        const { res, gen } = await tenant.api.create(BODY, { prefer });
        expect(gen.status, `Prefer: ${prefer}`).toBe("queued");
        expectRunHeaders(res, gen, { applied: null, created: true });
      }
      await expectLedgerIdentity(tenant);
    });

    test("a run still going after N seconds is answered as it is: queued, Preference-Applied, Retry-After", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const created = await api.create(BODY, { prefer: "wait=1" });
      expect(created.gen.status).toBe("queued");
      expectRunHeaders(created.res, created.gen, { applied: "wait=1", created: true });
      const read = await api.get(`/v1/generations/${created.gen.id}`, { prefer: "wait=1" });
      const gen = await expectOk<Generation>(read);
      expect(gen.status).toBe("queued");
      expectRunHeaders(read, gen, { applied: "wait=1", created: false });
      const plain = await api.get(`/v1/generations/${created.gen.id}`);
      expectRunHeaders(plain, await expectOk<Generation>(plain), { applied: null, created: false });
      await expectLedgerIdentity(tenant);
    });

    test("GET with Prefer: wait on a final run answers at once with Preference-Applied and no Retry-After", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(BODY, { prefer: "wait=30" });
      expect(gen.status).toBe("succeeded");
      const read = await tenant.api.get(`/v1/generations/${gen.id}`, { prefer: "wait=5" });
      const again = await expectOk<Generation>(read);
      expect(again.status).toBe("succeeded");
      expect(again.id).toBe(gen.id);
      expectRunHeaders(read, again, { applied: "wait=5", created: false });
    });

    test("a waiting read is woken by a cancel", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create(BODY);
      const asked = Date.now();
      const waiting = api.get(`/v1/generations/${gen.id}`, { prefer: "wait=60" });
      expect((await api.read(gen.id)).status).toBe("queued");
      const canceled = await expectOk<Generation>(await api.post(`/v1/generations/${gen.id}/cancel`));
      expect(canceled.status).toBe("canceled");
      const res = await waiting;
      const answered = Date.now();
      const body = await expectOk<Generation>(res);
      expect(body.status).toBe("canceled");
      expectRunHeaders(res, body, { applied: "wait=60", created: false });
      // Woken by the cancel, not by the end of its 60 s.
      expect(answered - asked).toBeLessThan(45_000);
      await expectLedgerIdentity(tenant);
    });

    test("a run of a deprecated model carries Deprecation, Sunset and Link on create and read", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { res, gen } = await tenant.api.create(
        { model: "atelier/gradient-classic", input: { prompt: "old" } },
        { prefer: "wait=30" },
      );
      expect(gen.status).toBe("succeeded");
      expectDeprecationHeaders(res);
      expectDeprecationHeaders(await tenant.api.get(`/v1/generations/${gen.id}`));
      expectNoDeprecationHeaders((await tenant.api.create(BODY)).res);
      await settle(tenant.api);
      await expectLedgerIdentity(tenant);
    });

    test("a replay with Prefer: wait answers the run as it is now", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const key = `wait-replay-${Date.now()}`;
      const first = await tenant.api.create(BODY, { "idempotency-key": key });
      const replay = await tenant.api.create(BODY, { "idempotency-key": key, prefer: "wait=30" });
      expect(replay.gen.id).toBe(first.gen.id);
      expect(replay.gen.status).toBe("succeeded");
      expect(replay.res.headers()["idempotent-replayed"]).toBe("true");
      expectRunHeaders(replay.res, replay.gen, { applied: "wait=30", created: true });
      await expectLedgerIdentity(tenant);
    });
  });
}
