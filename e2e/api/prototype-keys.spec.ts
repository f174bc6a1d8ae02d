// Names every object has through its prototype ("constructor", "__proto__", "toString",
// "hasOwnProperty") sent where a request names a choice: each is refused (400) or simply matches
// nothing (an empty list, 404), never a 500. On both stores' servers. Also the money bound through
// the admin CLI: a grant past $1,000,000,000 is refused and the balance still reads.
import { expect, test } from "./fixtures";
import { addCredit, adminFailure, createWorkspace, createKey } from "./admin";
import { expectError, expectOk } from "./helpers";
import { Api, newTenant, STORES, storeTitle, type Generation } from "./runs-helpers";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] prototype names`, () => {
    test("as list filters: status, source, batch, model and event type", async ({ request }) => {
      const { api } = newTenant(request, store.busy, "1", "proto");
      for (const name of NAMES) {
        await expectError(await api.get(`/v1/generations?status=${name}`), 400, "invalid_parameter", {
          param: "status",
        });
        await expectError(await api.get(`/v1/generations?source=${name}`), 400, "invalid_parameter", {
          param: "source",
        });
        await expectError(await api.get(`/v1/generations?batch=${name}`), 400, "invalid_parameter", { param: "batch" });
        await expectError(await api.get(`/v1/events?type=${name}`), 400, "invalid_parameter", { param: "type" });
        const byModel = await api.get(`/v1/generations?model=${name}`);
        expect(byModel.status(), await byModel.text()).toBeLessThan(500);
        if (byModel.status() === 200) expect((await byModel.json()).data).toEqual([]);
        else await expectError(byModel, 400, "invalid_parameter", { param: "model" });
        await expectError(await api.get(`/v1/generations?${name}=1`), 400, "invalid_parameter", { param: name });
      }
    });

    test("as model ids, input fields and input values of a run and a quote", async ({ request }) => {
      const { api } = newTenant(request, store.busy, "1", "proto");
      for (const name of NAMES) {
        for (const path of ["/v1/generations", "/v1/quotes"]) {
          await expectError(await api.post(path, { model: name, input: { prompt: "x" } }), 400, "invalid_parameter", {
            param: "model",
          });
          await expectError(
            await api.post(path, { model: `atelier/${name}`, input: { prompt: "x" } }),
            400,
            "invalid_parameter",
            { param: "model" },
          );
          await expectError(
            await api.post(path, { model: "atelier/gradient", input: { prompt: "x", [name]: 1 } }),
            400,
            "invalid_parameter",
            { param: `input.${name}` },
          );
          // An enum-like input field (the image format) given a prototype name.
          await expectError(
            await api.post(path, { model: "atelier/gradient", input: { prompt: "x", format: name } }),
            400,
            "invalid_parameter",
            { param: "input.format" },
          );
          await expectError(
            await api.post(path, { model: "atelier/gradient", input: { prompt: "x" }, [name]: 1 }),
            400,
            "invalid_parameter",
            { param: name },
          );
        }
        await expectError(await api.get(`/v1/models/atelier/${name}`), 404, "resource_not_found");
        await expectError(await api.get(`/v1/models/${name}/${name}`), 404, "resource_not_found");
      }
    });

    test("as webhook event kinds and fields, and in a resend", async ({ request }) => {
      const { api } = newTenant(request, store.busy, "1", "proto");
      for (const name of NAMES) {
        await expectError(
          await api.post("/v1/webhooks", { url: "https://example.com/hook", event_types: [name] }),
          400,
          "invalid_parameter",
          { param: "event_types" },
        );
        await expectError(
          await api.post("/v1/webhooks", { url: "https://example.com/hook", [name]: true }),
          400,
          "invalid_parameter",
          { param: name },
        );
        await expectError(
          await api.post(`/v1/events/evt_000000000000000000000000/resend`, { [name]: 1 }),
          400,
          "invalid_parameter",
          { param: name },
        );
      }
    });

    test("as words of a prompt: the models that read prompt words still run", async ({ request }) => {
      const { api } = newTenant(request, store.busy, "5", "proto");
      for (const model of ["atelier/artwork", "atelier/shapes-3d"]) {
        const { gen } = await api.create({ model, input: { prompt: "constructor __proto__ tostring hasownproperty" } });
        const done = await api.waitFinal(gen.id, 60);
        expect((done as Generation).status, JSON.stringify((done as Generation).error)).toBe("succeeded");
      }
    });

    test("as a key's expiry and scopes through the admin CLI: refused with a message, no stack", async () => {
      const ws = createWorkspace({}, store.busy);
      for (const name of NAMES) {
        const expiry = adminFailure(["key", "create", "--workspace", ws.id, "--expires", name], store.busy);
        expect(expiry.status).not.toBe(0);
        expect(expiry.stderr).toMatch(/expires/);
        expect(expiry.stderr).not.toMatch(/\bat .*\.ts:\d+/);
        const scopes = adminFailure(["key", "create", "--workspace", ws.id, "--scopes", name], store.busy);
        expect(scopes.stderr).toMatch(/Unknown scope/);
      }
      expect(createKey(ws.id, { expires: "30d" }, store.busy).key).toBeTruthy();
    });

    test("a grant past the $1,000,000,000 balance bound is refused; the balance still reads", async ({ request }) => {
      const ws = createWorkspace({}, store.busy);
      const api = new Api(request, store.busy, createKey(ws.id, {}, store.busy).key);
      addCredit(ws.id, "999999999", store.busy);
      for (let i = 0; i < 2; i++) {
        const refused = adminFailure(["credit", "add", "--workspace", ws.id, "--usd", "999999999"], store.busy);
        expect(refused.status).not.toBe(0);
        expect(refused.stderr).toContain("A workspace holds at most $1000000000.00 of credit");
      }
      addCredit(ws.id, "1", store.busy);
      expect(adminFailure(["credit", "add", "--workspace", ws.id, "--usd", "0.000001"], store.busy).stderr).toContain(
        "at most $0.00 more",
      );
      expect(await expectOk(await api.get("/v1/credits"))).toEqual({
        object: "credits",
        available_usd: "1000000000.00",
        held_usd: "0.00",
      });
    });
  });
}
