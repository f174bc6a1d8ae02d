// Concurrent holds can never overdraw (docs/api.md, "States and money"): 100 creates racing for a balance that
// covers exactly 10 → exactly 10 runs start (201) and 90 answer 402, on a server whose runs stay
// queued and on one that runs them; batches race the same way, all or none.
import { expect, test } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import {
  concurrently,
  errorOf,
  expectLedgerIdentity,
  micros,
  newTenant,
  PRICE,
  settle,
  STORES,
  storeTitle,
  type Api,
  type Batch,
  type Generation,
} from "./runs-helpers";

const BODY = { model: "atelier/gradient", input: { prompt: "ten of a hundred" } };

async function race(api: Api): Promise<{ created: Generation[]; refused: number; other: string[] }> {
  const answers = await concurrently(100, () => api.post("/v1/generations", BODY));
  const created: Generation[] = [];
  let refused = 0;
  const other: string[] = [];
  for (const res of answers) {
    if (res.status() === 201) created.push((await res.json()) as Generation);
    else {
      const e = await errorOf(res);
      if (e.status === 402 && e.code === "insufficient_credit") refused += 1;
      else other.push(`${e.status} ${e.code}`);
    }
  }
  return { created, refused, other };
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] concurrent holds`, () => {
    test("100 concurrent creates against a balance for 10 (runs stay queued) → 10 × 201, 90 × 402", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "0.02");
      const { api } = tenant;
      const { created, refused, other } = await race(api);
      expect(other, "answers other than 201 and 402 insufficient_credit").toEqual([]);
      expect(created).toHaveLength(10);
      expect(refused).toBe(90);
      expect(new Set(created.map((g) => g.id)).size).toBe(10);
      for (const g of created) expect(g.status).toBe("queued");
      expect(await api.credits()).toEqual({ available: 0, held: 10 * PRICE.gradientStandard });
      const listed = await api.listAll();
      expect(listed.map((g) => g.id).sort()).toEqual(created.map((g) => g.id).sort());
      await expectLedgerIdentity(tenant);
      // A last one still does not fit.
      await expectError(await api.post("/v1/generations", BODY), 402, "insufficient_credit");
    });

    test("100 concurrent creates against a balance for 10 (runs run) → 10 succeed, 0 available at the end", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "0.02");
      const { api } = tenant;
      const { created, refused, other } = await race(api);
      expect(other, "answers other than 201 and 402 insufficient_credit").toEqual([]);
      expect(created).toHaveLength(10);
      expect(refused).toBe(90);
      const runs = await settle(api);
      expect(runs).toHaveLength(10);
      for (const run of runs) {
        expect(run.status).toBe("succeeded");
        expect(micros(run.usage.cost_usd)).toBe(PRICE.gradientStandard);
      }
      expect(await api.credits()).toEqual({ available: 0, held: 0 });
      const ledger = await expectLedgerIdentity(tenant);
      expect(ledger.charged).toBe(20_000);
    });

    test("5 concurrent batches of 5 against a balance for 2 of them → exactly 2 start, all or none", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "0.02");
      const { api } = tenant;
      const batchBody = {
        requests: Array.from({ length: 5 }, (_, i) => ({ model: "atelier/gradient", input: { prompt: `item ${i}` } })),
      };
      const answers = await concurrently(5, () => api.post("/v1/batches", batchBody));
      const batches: Batch[] = [];
      for (const res of answers) {
        if (res.status() === 201) batches.push(await expectOk<Batch>(res, 201));
        else await expectError(res, 402, "insufficient_credit");
      }
      expect(batches).toHaveLength(2);
      const runs = await api.listAll();
      expect(runs).toHaveLength(10);
      expect(new Set(runs.map((r) => r.batch_id))).toEqual(new Set(batches.map((b) => b.id)));
      expect(await api.credits()).toEqual({ available: 0, held: 20_000 });
      await expectLedgerIdentity(tenant);
    });
  });
}
