// POST /v1/generations/{id}/cancel (docs/api.md, "States and money", "Retry rules"): a queued
// run → canceled with its hold released, provider null and completed_at set; cancel again → 200
// as it is; a final run → 200 unchanged; another workspace's or an unknown ID → 404.
import { expect, test } from "./fixtures";
import { expectError, expectOk, ISO_MS } from "./helpers";
import {
  expectLedgerIdentity,
  expectNotFound,
  micros,
  newTenant,
  PRICE,
  settle,
  STORES,
  storeTitle,
  type Batch,
  type Generation,
} from "./runs-helpers";

const BODY = { model: "atelier/gradient", input: { prompt: "to be canceled", resolution: "hd" } };

/** A generation without its output links (fresh on every read). */
function withoutLinks(gen: Generation): Omit<Generation, "output"> & { output: unknown[] } {
  return { ...gen, output: gen.output.map(({ url: _url, expires_at: _expires, ...rest }) => rest) };
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] cancel`, () => {
    test("a queued run → 200 canceled, provider null, completed_at set, hold released; again → 200 the same", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create(BODY);
      expect(await api.credits()).toEqual({ available: 1_000_000 - PRICE.gradientHd, held: PRICE.gradientHd });

      const res = await api.post(`/v1/generations/${gen.id}/cancel`);
      const canceled = await expectOk<Generation>(res);
      expect(canceled).toMatchObject({
        id: gen.id,
        object: "generation",
        status: "canceled",
        provider: null,
        started_at: null,
        output: [],
        error: null,
        usage: { cost_usd: null },
        created_at: gen.created_at,
        input: gen.input,
      });
      expect(canceled.completed_at).toMatch(ISO_MS);
      expect(canceled.completed_at! >= gen.created_at).toBe(true);
      expect(res.headers()["retry-after"], "final: no Retry-After").toBeUndefined();
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });

      const again = await api.post(`/v1/generations/${gen.id}/cancel`);
      expect(await expectOk<Generation>(again)).toEqual(canceled);
      expect(await api.read(gen.id)).toEqual(canceled);
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
      expect((await api.list({ status: "canceled" })).data.map((r) => r.id)).toEqual([gen.id]);
      await expectLedgerIdentity(tenant);
    });

    test("cancels racing each other release the hold once", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create(BODY);
      const answers = await Promise.all(Array.from({ length: 10 }, () => api.post(`/v1/generations/${gen.id}/cancel`)));
      for (const res of answers) expect((await expectOk<Generation>(res)).status).toBe("canceled");
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("a succeeded run → 200 unchanged, still charged once", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(BODY, { prefer: "wait=30" });
      expect(gen.status).toBe("succeeded");
      const res = await api.post(`/v1/generations/${gen.id}/cancel`);
      const after = await expectOk<Generation>(res);
      expect(withoutLinks(after)).toEqual(withoutLinks(gen));
      expect(res.headers()["retry-after"]).toBeUndefined();
      expect(micros(after.usage.cost_usd)).toBe(PRICE.gradientHd);
      await settle(api);
      expect(await api.credits()).toEqual({ available: 1_000_000 - PRICE.gradientHd, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("canceling one run of a batch releases only its own hold", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const batch = await expectOk<Batch>(
        await api.post("/v1/batches", {
          requests: [
            BODY,
            { model: "atelier/gradient-poster@1", input: { prompt: "p", title: "t" } },
            { model: "atelier/gradient", input: { prompt: "q" } },
          ],
        }),
        201,
      );
      const total = PRICE.gradientHd + PRICE.posterV1 + PRICE.gradientStandard;
      expect(await api.credits()).toEqual({ available: 1_000_000 - total, held: total });
      await expectOk(await api.post(`/v1/generations/${batch.data[1]!.id}/cancel`));
      expect(await api.credits()).toEqual({
        available: 1_000_000 - total + PRICE.posterV1,
        held: total - PRICE.posterV1,
      });
      const now = await expectOk<Batch>(await api.get(`/v1/batches/${batch.id}`));
      expect(now.data.map((g) => g.status)).toEqual(["queued", "canceled", "queued"]);
      await expectLedgerIdentity(tenant);
    });

    test("another workspace's run → 404 resource_not_found, and it is left alone", async ({ request }) => {
      const owner = newTenant(request, store.idle, "1");
      const stranger = newTenant(request, store.idle, "1");
      const { gen } = await owner.api.create(BODY);
      await expectNotFound(await stranger.api.post(`/v1/generations/${gen.id}/cancel`));
      await expectNotFound(await stranger.api.get(`/v1/generations/${gen.id}`));
      await expectNotFound(await stranger.api.get(`/v1/generations/${gen.id}`, { prefer: "wait=1" }));
      expect((await owner.api.read(gen.id)).status).toBe("queued");
      expect(await owner.api.credits()).toEqual({ available: 1_000_000 - PRICE.gradientHd, held: PRICE.gradientHd });
      await expectLedgerIdentity(owner);
      await expectLedgerIdentity(stranger);
    });

    test("an unknown ID → 404 resource_not_found", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      for (const id of ["gen_000000000000000000000000", "gen_nope", "bat_000000000000000000000000", "abc"]) {
        await expectNotFound(await api.post(`/v1/generations/${id}/cancel`));
        await expectNotFound(await api.get(`/v1/generations/${id}`));
      }
    });

    test("404 resource_not_found answers have the error envelope: param null (it is for a 400 only)", async ({
      request,
    }) => {
      // docs/api.md, "Errors": error.param names the field at fault for a 400 and is null for
      // every other status. The catalog's 404 already answers param null; these must too.
      const { api } = newTenant(request, store.idle, "1");
      const unknown = "gen_000000000000000000000000";
      const answers = {
        "GET /v1/generations/{id}": await api.get(`/v1/generations/${unknown}`),
        "POST /v1/generations/{id}/cancel": await api.post(`/v1/generations/${unknown}/cancel`),
        "POST /v1/generations/{id}/outputs/0/file": await api.post(`/v1/generations/${unknown}/outputs/0/file`),
        "GET /v1/batches/{id}": await api.get("/v1/batches/bat_000000000000000000000000"),
        "GET /v1/files/{id}": await api.get("/v1/files/file_000000000000000000000000"),
        "GET /v1/uploads/{id}": await api.get("/v1/uploads/upl_000000000000000000000000"),
        "POST /v1/uploads/{id}/complete": await api.post("/v1/uploads/upl_000000000000000000000000/complete"),
      };
      const params: Record<string, unknown> = {};
      for (const [endpoint, res] of Object.entries(answers)) {
        expect(res.status(), endpoint).toBe(404);
        params[endpoint] = ((await res.json()) as { error: { param: unknown } }).error.param;
      }
      expect(params).toEqual(Object.fromEntries(Object.keys(answers).map((k) => [k, null])));
      // And the whole envelope, once.
      await expectError(await api.get(`/v1/generations/${unknown}`), 404, "resource_not_found");
    });
  });
}
