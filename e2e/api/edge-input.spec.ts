// Input refused at the edge, the same on both stores (issue 11, points 4 and 5): JSON nested
// deeper than the limit (64 levels) is 400 invalid_parameter before anything walks it, with or
// without an Idempotency-Key; U+0000 in a body or query field is 400 invalid_parameter naming
// the field; an ID in the path that no ID can be is 404 resource_not_found. Never a 500 (the
// stack overflow, or PostgreSQL's "invalid byte sequence for encoding UTF8: 0x00").
import { expect, test, type APIResponse } from "./fixtures";
import { expectError } from "./helpers";
import { newTenant, STORES, type Api, type Generation } from "./runs-helpers";

const LIMIT = 64;
/** A public address as a literal: passes the webhook address checks without DNS, never delivered to here. */
const HOOK = "https://93.184.216.34/hook";

/** `levels` arrays nested inside one another, as JSON text (JSON.stringify would overflow here too). */
function nestedArrays(levels: number): string {
  return "[".repeat(levels) + "]".repeat(levels);
}

/** A JSON body given as text, sent byte for byte. */
function postRaw(api: Api, path: string, json: string, headers: Record<string, string> = {}): Promise<APIResponse> {
  return api.request.post(api.url(path), {
    headers: api.headers({ "content-type": "application/json", ...headers }),
    data: Buffer.from(json),
    timeout: 60_000,
  });
}

function send(api: Api, method: string, path: string, data?: unknown): Promise<APIResponse> {
  return api.request.fetch(api.url(path), {
    method,
    headers: api.headers(),
    ...(data === undefined ? {} : { data }),
    timeout: 60_000,
  });
}

async function expectTooDeep(res: APIResponse, param: string | null): Promise<void> {
  const error = await expectError(res, 400, "invalid_parameter", { param });
  expect(error.message).toContain(String(LIMIT));
}

for (const store of STORES) {
  test.describe(`[${store.name}] JSON nested deeper than ${LIMIT} levels`, () => {
    test("inside input: quotes and generations, with and without Idempotency-Key → 400 naming the limit", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1", "deep");
      const body = `{"model":"atelier/gradient","input":{"prompt":${nestedArrays(2000)}}}`;
      await expectTooDeep(await postRaw(api, "/v1/quotes", body), "input");
      await expectTooDeep(await postRaw(api, "/v1/generations", body), "input");
      await expectTooDeep(
        await postRaw(api, "/v1/generations", body, { "idempotency-key": `deep-${Date.now()}` }),
        "input",
      );
      const deeper = `{"model":"atelier/gradient","input":{"prompt":${nestedArrays(5000)}}}`;
      await expectTooDeep(
        await postRaw(api, "/v1/generations", deeper, { "idempotency-key": `deeper-${Date.now()}` }),
        "input",
      );
      // Nothing was started or held.
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
    });

    test("batches, with an Idempotency-Key → 400 naming the limit", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1", "deep");
      const items = `{"requests":[{"model":"atelier/gradient","input":{"prompt":${nestedArrays(5000)}}}]}`;
      await expectTooDeep(
        await postRaw(api, "/v1/batches", items, { "idempotency-key": `batch-${Date.now()}` }),
        "requests",
      );
      await expectTooDeep(await postRaw(api, "/v1/batches", `{"requests":${nestedArrays(5000)}}`), "requests");
    });

    test("every other JSON endpoint → 400 naming the limit", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1", "deep");
      const endpoint = await expectOkJson<{ id: string }>(await send(api, "POST", "/v1/webhooks", { url: HOOK }), 201);
      const deep = nestedArrays(3000);
      await expectTooDeep(await postRaw(api, "/v1/webhooks", `{"url":"${HOOK}","description":${deep}}`), "description");
      await expectTooDeep(
        await api.request.fetch(api.url(`/v1/webhooks/${endpoint.id}`), {
          method: "PATCH",
          headers: api.headers({ "content-type": "application/json" }),
          data: Buffer.from(`{"description":${deep}}`),
        }),
        "description",
      );
      await expectTooDeep(await postRaw(api, "/v1/uploads", `{"filename":${deep}}`), "filename");
      await expectTooDeep(
        await postRaw(api, "/v1/events/evt_000000000000000000000000/resend", `{"webhook_id":${deep}}`),
        "webhook_id",
      );
      await expectTooDeep(await postRaw(api, "/v1/webhooks/default/secret/rotate", `{"x":${deep}}`), "x");
      // A whole megabyte of nesting, the largest body there is: refused the same way.
      const huge = `{"model":"atelier/gradient","input":${nestedArrays(499_000)}}`;
      expect(huge.length).toBeLessThanOrEqual(1_000_000);
      await expectTooDeep(await postRaw(api, "/v1/quotes", huge), "input");
      // A top-level array has no field to name.
      await expectTooDeep(await postRaw(api, "/v1/quotes", nestedArrays(100)), null);
      await send(api, "DELETE", `/v1/webhooks/${endpoint.id}`);
    });

    test(`${LIMIT} levels are read; ${LIMIT + 1} are refused`, async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1", "deep");
      // The body is level 1, input level 2: an array at level 3 holding LIMIT - 3 more levels.
      const atLimit = `{"model":"atelier/gradient","input":{"prompt":"x","extra":${nestedArrays(LIMIT - 2)}}}`;
      const ok = await postRaw(api, "/v1/quotes", atLimit);
      // Read and validated: the model has no field "extra".
      const error = await expectError(ok, 400, "invalid_parameter", { param: "input.extra" });
      expect(error.message).not.toContain(String(LIMIT));
      const over = `{"model":"atelier/gradient","input":{"prompt":"x","extra":${nestedArrays(LIMIT - 1)}}}`;
      await expectTooDeep(await postRaw(api, "/v1/quotes", over), "input");
    });
  });

  test.describe(`[${store.name}] U+0000 (NUL)`, () => {
    const NUL = "\u0000";

    test("in a body field → 400 invalid_parameter with its param, on every endpoint that reads a body", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.busy, "1", "nul");
      const endpoint = await expectOkJson<{ id: string }>(await send(api, "POST", "/v1/webhooks", { url: HOOK }), 201);
      const cases: [string, string, unknown, string][] = [
        ["POST", "/v1/quotes", { model: "atelier/gradient", input: { prompt: `a${NUL}b` } }, "input.prompt"],
        ["POST", "/v1/generations", { model: "atelier/gradient", input: { prompt: `a${NUL}` } }, "input.prompt"],
        [
          "POST",
          "/v1/generations",
          { model: "atelier/gradient", input: { prompt: "x" }, webhook: `${HOOK}${NUL}` },
          "webhook",
        ],
        ["POST", "/v1/generations", { model: `atelier/gradient${NUL}` }, "model"],
        ["POST", "/v1/quotes", { model: "atelier/gradient", input: { [`prompt${NUL}`]: "x" } }, `input.prompt${NUL}`],
        [
          "POST",
          "/v1/batches",
          {
            requests: [
              { model: "atelier/gradient", input: { prompt: "x" } },
              { model: "atelier/gradient", input: { prompt: "y" }, webhook: `${HOOK}/${NUL}` },
            ],
          },
          "requests[1].webhook",
        ],
        ["POST", "/v1/webhooks", { url: `${HOOK}/${NUL}` }, "url"],
        ["POST", "/v1/webhooks", { url: HOOK, description: `a${NUL}` }, "description"],
        ["PATCH", `/v1/webhooks/${endpoint.id}`, { url: `${HOOK}/${NUL}` }, "url"],
        ["PATCH", `/v1/webhooks/${endpoint.id}`, { description: `${NUL}` }, "description"],
        ["POST", "/v1/uploads", { filename: `a${NUL}.mp4`, content_type: "video/mp4", bytes: 1000 }, "filename"],
      ];
      for (const [method, path, body, param] of cases) {
        const res = await send(api, method, path, body);
        const error = await expectError(res, 400, "invalid_parameter", { param });
        expect(error.message, `${method} ${path}`).toContain("U+0000");
      }
      await send(api, "DELETE", `/v1/webhooks/${endpoint.id}`);
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
    });

    test("in a resend's webhook_id → 400 invalid_parameter webhook_id", async ({ request }) => {
      const { api } = newTenant(request, store.busy, "1", "nul");
      // A real event, so that the resend gets as far as looking up the webhook.
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "nul" } });
      const done: Generation = await api.waitFinal(gen.id);
      expect(done.status).toBe("succeeded");
      const events = await expectOkJson<{ data: { id: string }[] }>(await api.get("/v1/events"));
      const eventId = events.data[0]!.id;
      const res = await send(api, "POST", `/v1/events/${eventId}/resend`, { webhook_id: `wh_${NUL}` });
      await expectError(res, 400, "invalid_parameter", { param: "webhook_id" });
    });

    test("in a query parameter → 400 invalid_parameter naming it", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1", "nul");
      for (const [path, param] of [
        ["/v1/generations?model=atelier%2Fgradient%00", "model"],
        ["/v1/generations?status=queued%00", "status"],
        ["/v1/generations?batch=bat_%00", "batch"],
        ["/v1/generations?cursor=%00", "cursor"],
        ["/v1/files?cursor=a%00", "cursor"],
        ["/v1/events?type=generation.succeeded%00", "type"],
        ["/v1/webhooks?limit=1%00", "limit"],
      ] as const) {
        await expectError(await api.get(path), 400, "invalid_parameter", { param });
      }
    });

    test("in the ID of every ID route → 404 resource_not_found", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1", "nul");
      const routes: [string, (id: string) => string, string, unknown?][] = [
        ["GET", (id) => `/v1/generations/${id}`, "gen_"],
        ["POST", (id) => `/v1/generations/${id}/cancel`, "gen_"],
        ["POST", (id) => `/v1/generations/${id}/outputs/0/file`, "gen_"],
        ["GET", (id) => `/v1/batches/${id}`, "bat_"],
        ["GET", (id) => `/v1/files/${id}`, "file_"],
        ["GET", (id) => `/v1/uploads/${id}`, "upl_"],
        ["POST", (id) => `/v1/uploads/${id}/complete`, "upl_"],
        ["GET", (id) => `/v1/webhooks/${id}`, "wh_"],
        ["PATCH", (id) => `/v1/webhooks/${id}`, "wh_", { description: "x" }],
        ["DELETE", (id) => `/v1/webhooks/${id}`, "wh_"],
        ["GET", (id) => `/v1/webhooks/${id}/deliveries`, "wh_"],
        ["GET", (id) => `/v1/events/${id}`, "evt_"],
        ["GET", (id) => `/v1/events/${id}/deliveries`, "evt_"],
        ["POST", (id) => `/v1/events/${id}/resend`, "evt_", {}],
      ];
      for (const [method, path, prefix, body] of routes) {
        for (const id of ["%00", `${prefix}%00`, `${prefix}000000000000000000000000%00`, `${prefix}0000%000000`]) {
          const res = await send(api, method, path(id), body);
          await expectError(res, 404, "resource_not_found");
        }
      }
      // The upload's content URL needs no key: the same answer.
      const put = await api.request.put(api.url("/v1/uploads/upl_%00/content?expires=1&signature=x"), {
        data: Buffer.from("x"),
      });
      await expectError(put, 404, "resource_not_found");
    });
  });
}

async function expectOkJson<T>(res: APIResponse, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status(), text).toBe(status);
  return JSON.parse(text) as T;
}
