// POST /v1/batches and GET /v1/batches/{id} (docs/api.md, "Batches", "Limits"): 1 to 50 runs priced
// and held together, all or none; each run queued with the batch_id, read on its own; a bad item
// → 400 naming requests[i].<field>; credit short of the total → 402; Idempotency-Key as for runs.
import { expect, test } from "./fixtures";
import { expectError, expectOk, ISO_MS } from "./helpers";
import {
  BATCH_ID,
  expectLedgerIdentity,
  expectNotFound,
  GENERATION_ID,
  micros,
  newTenant,
  PRICE,
  settle,
  STORES,
  storeTitle,
  type Batch,
} from "./runs-helpers";

const REQUESTS = [
  { model: "atelier/gradient", input: { prompt: "one", num_images: 2, resolution: "hd" } },
  { model: "atelier/gradient-poster", input: { prompt: "two", title: "Two" } },
  { model: "atelier/gradient-poster@1", input: { prompt: "three", title: "Three" } },
  { model: "atelier/gradient", input: { prompt: "four" } },
];
const TOTAL = 2 * PRICE.gradientHd + PRICE.posterV2 + PRICE.posterV1 + PRICE.gradientStandard;

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] batches`, () => {
    test("201 batch: each run queued with the batch_id, in request order; all held together", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const res = await api.post("/v1/batches", { requests: REQUESTS });
      const batch = await expectOk<Batch>(res, 201);
      expect(batch.id).toMatch(BATCH_ID);
      expect(batch.object).toBe("batch");
      expect(batch.created_at).toMatch(ISO_MS);
      expect(res.headers()["location"]).toBe(`/v1/batches/${batch.id}`);
      expect(batch.data).toHaveLength(4);
      expect(batch.data.map((g) => g.model)).toEqual([
        "atelier/gradient",
        "atelier/gradient-poster@2",
        "atelier/gradient-poster@1",
        "atelier/gradient",
      ]);
      for (const g of batch.data) {
        expect(g.id).toMatch(GENERATION_ID);
        expect(g).toMatchObject({
          object: "generation",
          status: "queued",
          batch_id: batch.id,
          provider: null,
          completed_at: null,
          source: "api",
        });
        expect(g.usage.cost_usd).toBeNull();
        expect(await api.read(g.id)).toEqual(g);
      }
      expect(await api.credits()).toEqual({ available: 1_000_000 - TOTAL, held: TOTAL });

      const read = await expectOk<Batch>(await api.get(`/v1/batches/${batch.id}`));
      expect(read).toEqual(batch);
      await expectLedgerIdentity(tenant);
    });

    test("the runs of a batch run and are each charged their own quote", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const batch = await expectOk<Batch>(await api.post("/v1/batches", { requests: REQUESTS }), 201);
      for (const g of batch.data) {
        const done = await api.waitFinal(g.id);
        expect(done.status).toBe("succeeded");
        expect(done.batch_id).toBe(batch.id);
        expect(micros(done.usage.cost_usd)).toBe(await api.quote(done.model, done.input));
      }
      const read = await expectOk<Batch>(await api.get(`/v1/batches/${batch.id}`));
      expect(read.data.map((g) => g.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
      expect(read.data.map((g) => g.id)).toEqual(batch.data.map((g) => g.id));
      await settle(api);
      expect(await api.credits()).toEqual({ available: 1_000_000 - TOTAL, held: 0 });
      const ledger = await expectLedgerIdentity(tenant);
      expect(ledger.charged).toBe(TOTAL);
    });

    test("an invalid item → 400 param requests[i].…, and nothing starts", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const bad = (i: number, item: unknown) => ({ requests: REQUESTS.map((r, j) => (j === i ? item : r)) });
      const cases: Array<[unknown, string]> = [
        [bad(1, { model: "atelier/gradient", input: { prompt: "x", num_images: 9 } }), "requests[1].input.num_images"],
        [bad(0, { model: "atelier/gradient", input: {} }), "requests[0].input.prompt"],
        [bad(3, { model: "atelier/gradient-poster@2", input: { prompt: "x" } }), "requests[3].input.title"],
        [bad(2, { model: "atelier/gradient", input: { prompt: "x", colour: "red" } }), "requests[2].input.colour"],
        [bad(2, { model: "atelier/no-such-model", input: {} }), "requests[2].model"],
        [bad(1, { model: "atelier/gradient", input: { prompt: "x" }, extra: 1 }), "requests[1].extra"],
        [
          bad(0, { model: "atelier/gradient", input: { prompt: "x" }, webhook: "http://example.com/hook" }),
          "requests[0].webhook",
        ],
        [{ requests: [] }, "requests"],
        [{ requests: Array.from({ length: 51 }, () => REQUESTS[3]) }, "requests"],
        [{ requests: "all of them" }, "requests"],
        [{}, "requests"],
        [{ requests: REQUESTS, note: "hi" }, "note"],
      ];
      for (const [body, param] of cases)
        await expectError(await api.post("/v1/batches", body), 400, "invalid_parameter", { param });
      expect(await api.listAll()).toEqual([]);
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("50 requests are accepted", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const batch = await expectOk<Batch>(
        await tenant.api.post("/v1/batches", { requests: Array.from({ length: 50 }, () => REQUESTS[3]) }),
        201,
      );
      expect(batch.data).toHaveLength(50);
      expect(new Set(batch.data.map((g) => g.id)).size).toBe(50);
      expect(await tenant.api.credits()).toEqual({
        available: 1_000_000 - 50 * PRICE.gradientStandard,
        held: 50 * PRICE.gradientStandard,
      });
      await expectLedgerIdentity(tenant);
    });

    test("credit short of the total → 402 insufficient_credit, nothing starts (though each run alone would fit)", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "0.02");
      const { api } = tenant;
      expect(TOTAL).toBeGreaterThan(20_000);
      await expectError(await api.post("/v1/batches", { requests: REQUESTS }), 402, "insufficient_credit");
      expect(await api.listAll()).toEqual([]);
      expect(await api.credits()).toEqual({ available: 20_000, held: 0 });
      tenant.topUp("0.005");
      const batch = await expectOk<Batch>(await api.post("/v1/batches", { requests: REQUESTS }), 201);
      expect(batch.data).toHaveLength(4);
      expect(await api.credits()).toEqual({ available: 25_000 - TOTAL, held: TOTAL });
      await expectLedgerIdentity(tenant);
    });

    test("Idempotency-Key: a replay answers the same batch; another body → 409; held once", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const key = `batch-${Date.now()}`;
      const firstRes = await api.post("/v1/batches", { requests: REQUESTS }, { "idempotency-key": key });
      const first = await expectOk<Batch>(firstRes, 201);
      expect(firstRes.headers()["idempotent-replayed"]).toBe("false");
      const againRes = await api.post("/v1/batches", { requests: REQUESTS }, { "idempotency-key": key });
      const again = await expectOk<Batch>(againRes, 201);
      expect(againRes.headers()["idempotent-replayed"]).toBe("true");
      expect(again.id).toBe(first.id);
      expect(again.data.map((g) => g.id)).toEqual(first.data.map((g) => g.id));
      await expectError(
        await api.post("/v1/batches", { requests: REQUESTS.slice(1) }, { "idempotency-key": key }),
        409,
        "conflict",
      );
      await expectError(
        await api.post("/v1/batches", { requests: REQUESTS }, { "idempotency-key": "bad key" }),
        400,
        "invalid_parameter",
        {
          param: "Idempotency-Key",
        },
      );
      // Concurrent replays start nothing more.
      const racing = await Promise.all(
        Array.from({ length: 10 }, () => api.post("/v1/batches", { requests: REQUESTS }, { "idempotency-key": key })),
      );
      for (const res of racing) expect((await expectOk<Batch>(res, 201)).id).toBe(first.id);
      expect(await api.listAll()).toHaveLength(4);
      expect(await api.credits()).toEqual({ available: 1_000_000 - TOTAL, held: TOTAL });
      await expectLedgerIdentity(tenant);
    });

    test("GET /v1/batches/{id}: unknown or another workspace's batch → 404", async ({ request }) => {
      const owner = newTenant(request, store.idle, "1");
      const batch = await expectOk<Batch>(await owner.api.post("/v1/batches", { requests: [REQUESTS[3]] }), 201);
      const stranger = newTenant(request, store.idle, "1");
      await expectNotFound(await stranger.api.get(`/v1/batches/${batch.id}`));
      await expectNotFound(await owner.api.get("/v1/batches/bat_000000000000000000000000"));
      await expectNotFound(await owner.api.get(`/v1/batches/${batch.data[0]!.id}`));
    });
  });
}
