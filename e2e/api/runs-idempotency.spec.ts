// Idempotency-Key on POST /v1/generations (docs/api.md: "Create, wait and idempotency", "Retry rules", "Limits"): one key
// starts one run however many requests race with it; a replay answers the same run as it is now;
// another body with the key is a 409; a refused request does not use the key up.
import { expect, test } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import {
  concurrently,
  expectLedgerIdentity,
  newTenant,
  PRICE,
  settle,
  STORES,
  storeTitle,
  type Generation,
} from "./runs-helpers";

const BODY = { model: "atelier/gradient", input: { prompt: "ocean dusk", num_images: 1 } };

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] Idempotency-Key`, () => {
    test("20 concurrent creates with one key start exactly one run", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const key = `race-${Date.now()}`;
      const answers = await concurrently(20, () => api.post("/v1/generations", BODY, { "idempotency-key": key }));
      const runs: Generation[] = [];
      const replayed: string[] = [];
      for (const res of answers) {
        runs.push(await expectOk<Generation>(res, 201));
        replayed.push(res.headers()["idempotent-replayed"] ?? "(none)");
      }
      const ids = new Set(runs.map((r) => r.id));
      expect(ids.size, `ids answered: ${[...ids].join(", ")}`).toBe(1);
      const [id] = [...ids];
      for (const res of answers) expect(res.headers()["location"]).toBe(`/v1/generations/${id}`);
      // One request started it; the other 19 replayed it.
      expect(replayed.filter((v) => v === "false")).toHaveLength(1);
      expect(replayed.filter((v) => v === "true")).toHaveLength(19);

      const listed = await api.listAll();
      expect(listed.map((r) => r.id)).toEqual([id]);
      // The balance moved once.
      expect(await api.credits()).toEqual({
        available: 1_000_000 - PRICE.gradientStandard,
        held: PRICE.gradientStandard,
      });
      await expectLedgerIdentity(tenant);
    });

    test("a replay answers the same run as it is now, and charges nothing more", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const key = `replay-${Date.now()}`;
      const first = await api.create(BODY, { "idempotency-key": key });
      expect(first.res.headers()["idempotent-replayed"]).toBe("false");
      const done = await api.waitFinal(first.gen.id);
      expect(done.status).toBe("succeeded");

      // Same body with its fields in another order is the same request.
      const again = await api.create(
        { input: { num_images: 1, prompt: "ocean dusk" }, model: "atelier/gradient" },
        { "idempotency-key": key },
      );
      expect(again.res.headers()["idempotent-replayed"]).toBe("true");
      expect(again.res.headers()["location"]).toBe(`/v1/generations/${first.gen.id}`);
      expect(again.gen.id).toBe(first.gen.id);
      expect(again.gen.status).toBe("succeeded");
      expect(again.gen.usage.cost_usd).toBe(done.usage.cost_usd);
      expect(again.gen.output).toHaveLength(1);
      // A final answer carries no Retry-After.
      expect(again.res.headers()["retry-after"]).toBeUndefined();

      await settle(api);
      expect(await api.credits()).toEqual({ available: 1_000_000 - PRICE.gradientStandard, held: 0 });
      expect(await api.listAll()).toHaveLength(1);
      await expectLedgerIdentity(tenant);
    });

    test("the same key with another body → 409 conflict; nothing starts", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const key = `conflict-${Date.now()}`;
      const first = await api.create(BODY, { "idempotency-key": key });
      await expectError(
        await api.post(
          "/v1/generations",
          { ...BODY, input: { prompt: "ocean dusk", num_images: 2 } },
          { "idempotency-key": key },
        ),
        409,
        "conflict",
      );
      await expectError(
        await api.post(
          "/v1/generations",
          { model: "atelier/gradient-poster", input: { prompt: "p", title: "t" } },
          { "idempotency-key": key },
        ),
        409,
        "conflict",
      );
      expect((await api.listAll()).map((r) => r.id)).toEqual([first.gen.id]);
      expect(await api.credits()).toEqual({
        available: 1_000_000 - PRICE.gradientStandard,
        held: PRICE.gradientStandard,
      });
      await expectLedgerIdentity(tenant);
    });

    test("a replay still answers when the balance is spent; a new key then gets 402", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "0.002");
      const { api } = tenant;
      const key = `spent-${Date.now()}`;
      const first = await api.create(BODY, { "idempotency-key": key });
      expect(await api.credits()).toEqual({ available: 0, held: 2_000 });
      const again = await api.create(BODY, { "idempotency-key": key });
      expect(again.gen.id).toBe(first.gen.id);
      expect(again.res.headers()["idempotent-replayed"]).toBe("true");
      await expectError(
        await api.post("/v1/generations", BODY, { "idempotency-key": `${key}-other` }),
        402,
        "insufficient_credit",
      );
      expect(await api.listAll()).toHaveLength(1);
      await expectLedgerIdentity(tenant);
    });

    test("a request refused with 402 does not use its key up", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "0.001");
      const { api } = tenant;
      const key = `after-402-${Date.now()}`;
      await expectError(
        await api.post("/v1/generations", BODY, { "idempotency-key": key }),
        402,
        "insufficient_credit",
      );
      tenant.topUp("0.01");
      const created = await api.create(BODY, { "idempotency-key": key });
      expect(created.res.headers()["idempotent-replayed"]).toBe("false");
      expect(created.gen.status).toBe("queued");
      await expectLedgerIdentity(tenant);
    });

    test("a request refused with 400 does not use its key up either", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const key = `after-400-${Date.now()}`;
      await expectError(
        await api.post(
          "/v1/generations",
          { model: "atelier/gradient", input: { prompt: "x", num_images: 0 } },
          { "idempotency-key": key },
        ),
        400,
        "invalid_parameter",
        { param: "input.num_images" },
      );
      const created = await api.create(BODY, { "idempotency-key": key });
      expect(created.res.headers()["idempotent-replayed"]).toBe("false");
      await expectLedgerIdentity(tenant);
    });

    test("keys belong to the workspace: another workspace's same key starts its own run", async ({ request }) => {
      const a = newTenant(request, store.idle, "1");
      const b = newTenant(request, store.idle, "1");
      const key = `shared-${Date.now()}`;
      const runA = await a.api.create(BODY, { "idempotency-key": key });
      const runB = await b.api.create({ ...BODY, input: { prompt: "other" } }, { "idempotency-key": key });
      expect(runB.res.headers()["idempotent-replayed"]).toBe("false");
      expect(runB.gen.id).not.toBe(runA.gen.id);
      expect((await b.api.listAll()).map((r) => r.id)).toEqual([runB.gen.id]);
      await expectLedgerIdentity(a);
      await expectLedgerIdentity(b);
    });

    test("Idempotency-Key is 1 to 255 printable ASCII characters, else 400 param Idempotency-Key", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      for (const bad of ["k".repeat(256), "has space", "tab\there", ""]) {
        await expectError(
          await api.post("/v1/generations", BODY, { "idempotency-key": bad }),
          400,
          "invalid_parameter",
          {
            param: "Idempotency-Key",
          },
        );
      }
      expect(await api.listAll()).toHaveLength(0);
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
      // The bounds themselves are accepted: 1 and 255 characters, from ! to ~.
      const one = await api.create(BODY, { "idempotency-key": "!" });
      const long = await api.create(BODY, { "idempotency-key": `~${"x".repeat(253)}!` });
      expect(one.gen.id).not.toBe(long.gen.id);
      await expectLedgerIdentity(tenant);
    });
  });
}
