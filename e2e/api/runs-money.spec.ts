// Money around runs (docs/api.md, "States and money"): the price is
// held on create, charged exactly the quote on success, released on cancel or failure, and a
// run the balance does not cover answers 402 with nothing written. After each test the ledger
// identity is checked through the API: available + held + Σ usage.cost_usd == everything granted.
import { expect, test } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import {
  expectLedgerIdentity,
  makePng,
  micros,
  newTenant,
  PRICE,
  settle,
  STORES,
  storeTitle,
  type FileObject,
  type Generation,
} from "./runs-helpers";

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] money around runs`, () => {
    test("held on create, released on cancel; a top-up counts as granted", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      tenant.topUp("0.5");
      const { api } = tenant;
      expect(await api.credits()).toEqual({ available: 1_500_000, held: 0 });

      const hd = await api.create({
        model: "atelier/gradient",
        input: { prompt: "ocean dusk", num_images: 3, resolution: "hd" },
      });
      expect(hd.gen.status).toBe("queued");
      expect(hd.gen.usage.cost_usd).toBeNull();
      expect(await api.quote("atelier/gradient", hd.gen.input)).toBe(3 * PRICE.gradientHd);
      expect(await api.credits()).toEqual({ available: 1_500_000 - 12_000, held: 12_000 });
      await expectLedgerIdentity(tenant);

      const poster = await api.create({
        model: "atelier/gradient-poster@1",
        input: { prompt: "spring", title: "Fair" },
      });
      expect(await api.credits()).toEqual({
        available: 1_500_000 - 12_000 - PRICE.posterV1,
        held: 12_000 + PRICE.posterV1,
      });
      await expectLedgerIdentity(tenant);

      tenant.topUp("0.25");
      expect(await api.credits()).toEqual({
        available: 1_750_000 - 12_000 - PRICE.posterV1,
        held: 12_000 + PRICE.posterV1,
      });

      const canceled = await expectOk<Generation>(await api.post(`/v1/generations/${hd.gen.id}/cancel`));
      expect(canceled.status).toBe("canceled");
      expect(canceled.usage.cost_usd).toBeNull();
      expect(await api.credits()).toEqual({ available: 1_750_000 - PRICE.posterV1, held: PRICE.posterV1 });
      await expectLedgerIdentity(tenant);

      await expectOk(await api.post(`/v1/generations/${poster.gen.id}/cancel`));
      expect(await api.credits()).toEqual({ available: 1_750_000, held: 0 });
      const ledger = await expectLedgerIdentity(tenant);
      expect(ledger.charged).toBe(0);
    });

    test("a succeeded run is charged exactly its quote, once", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      tenant.topUp("0.125");
      const { api } = tenant;
      const bodies = [
        { model: "atelier/gradient", input: { prompt: "forest fire", num_images: 2, resolution: "hd" } },
        { model: "atelier/gradient", input: { prompt: "quiet harbour" } },
        { model: "atelier/gradient-poster", input: { prompt: "late summer", title: "Open Air" } },
        { model: "atelier/gradient-poster@1", input: { prompt: "late summer", title: "Open Air" } },
        { model: "atelier/gradient-classic", input: { prompt: "old school" } },
      ];
      const quotes = await Promise.all(bodies.map((b) => api.quote(b.model, b.input)));
      expect(quotes).toEqual([
        2 * PRICE.gradientHd,
        PRICE.gradientStandard,
        PRICE.posterV2,
        PRICE.posterV1,
        PRICE.classic,
      ]);

      const created: Generation[] = [];
      for (const body of bodies) created.push((await api.create(body)).gen);
      const finished: Generation[] = [];
      for (const run of created) finished.push(await api.waitFinal(run.id));

      let total = 0;
      for (const [i, run] of finished.entries()) {
        expect(run.status, `${run.model}: ${JSON.stringify(run.error)}`).toBe("succeeded");
        expect(micros(run.usage.cost_usd), `${run.model} charged its quote`).toBe(quotes[i]);
        expect(run.error).toBeNull();
        expect(run.provider).toEqual(expect.any(String));
        expect(run.output.length).toBeGreaterThan(0);
        total += quotes[i]!;
      }
      // Reading again changes nothing: a run is charged once.
      for (const run of finished) expect((await api.read(run.id)).usage.cost_usd).toBe(run.usage.cost_usd);
      expect(await api.credits()).toEqual({ available: 1_125_000 - total, held: 0 });
      const ledger = await expectLedgerIdentity(tenant);
      expect(ledger.charged).toBe(total);
    });

    test("a failed run is charged nothing: its hold is released and error.message says why", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      // atelier/upscale refuses results longer than 8192 pixels: 4100 × 2 = 8200.
      const wide = makePng(4100, 4);
      const file = await expectOk<FileObject>(
        await request.post(api.url("/v1/files"), { headers: api.headers({ "content-type": "image/png" }), data: wide }),
        201,
      );
      const quote = await api.quote("atelier/upscale", { image: file.id, scale: 2 });
      const { gen } = await api.create({ model: "atelier/upscale", input: { image: file.id, scale: 2 } });
      const failed = await api.waitFinal(gen.id);
      expect(failed.status).toBe("failed");
      expect(failed.error?.message).toEqual(expect.any(String));
      expect(failed.error!.message.length).toBeGreaterThan(0);
      expect(failed.usage.cost_usd).toBeNull();
      expect(failed.output).toEqual([]);
      expect(failed.completed_at).not.toBeNull();
      expect(quote).toBeGreaterThan(0);
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });

      // The same model on a good image succeeds and is charged its quote.
      const small = await expectOk<FileObject>(
        await request.post(api.url("/v1/files"), {
          headers: api.headers({ "content-type": "image/png" }),
          data: makePng(40, 30),
        }),
        201,
      );
      const ok = await api.waitFinal(
        (await api.create({ model: "atelier/upscale", input: { image: small.id, scale: 2 } })).gen.id,
      );
      expect(ok.status).toBe("succeeded");
      expect(ok.output[0]).toMatchObject({ width: 80, height: 60 });
      expect(micros(ok.usage.cost_usd)).toBe(await api.quote("atelier/upscale", ok.input));
      await settle(api);
      await expectLedgerIdentity(tenant);
    });

    test("402 insufficient_credit when the available balance is short of the price; nothing is written", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "0.003");
      const { api } = tenant;
      // 0.004 > 0.003
      await expectError(
        await api.post("/v1/generations", { model: "atelier/gradient", input: { prompt: "x", resolution: "hd" } }),
        402,
        "insufficient_credit",
      );
      expect((await api.list()).data).toEqual([]);
      expect(await api.credits()).toEqual({ available: 3_000, held: 0 });

      await api.create({ model: "atelier/gradient", input: { prompt: "x" } });
      expect(await api.credits()).toEqual({ available: 1_000, held: 2_000 });
      // The held 0.002 is not available any more: a second 0.002 does not fit in 0.001.
      await expectError(
        await api.post("/v1/generations", { model: "atelier/gradient", input: { prompt: "y" } }),
        402,
        "insufficient_credit",
      );
      expect((await api.list()).data).toHaveLength(1);
      await expectLedgerIdentity(tenant);

      // A workspace with no credit at all.
      const broke = newTenant(request, store.idle, "0");
      await expectError(
        await broke.api.post("/v1/generations", { model: "atelier/gradient", input: { prompt: "x" } }),
        402,
        "insufficient_credit",
      );
      expect(await broke.api.credits()).toEqual({ available: 0, held: 0 });
      expect((await broke.api.list()).data).toEqual([]);
    });

    test("an invalid request holds nothing", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      await expectError(
        await api.post("/v1/generations", { model: "atelier/gradient", input: { prompt: "x", num_images: 5 } }),
        400,
        "invalid_parameter",
        { param: "input.num_images" },
      );
      await expectError(
        await api.post("/v1/generations", { model: "atelier/gradient", input: {} }),
        400,
        "invalid_parameter",
        {
          param: "input.prompt",
        },
      );
      await expectError(
        await api.post("/v1/generations", { model: "atelier/no-such-model", input: {} }),
        400,
        "invalid_parameter",
        {
          param: "model",
        },
      );
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
      expect((await api.list()).data).toEqual([]);
      await expectLedgerIdentity(tenant);
    });
  });
}
