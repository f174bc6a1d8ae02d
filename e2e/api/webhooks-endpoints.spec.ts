// Webhook endpoints over HTTP on the webhooks server (insecure URLs allowed): create, list, read,
// change, delete; every field validated; at most 20 per workspace; another workspace's and
// unknown ids → 404; scopes (generations:write manages endpoints and the secret). Nothing is
// delivered here: no run is started, so the URLs need no listener.
import { expect, test } from "./fixtures";
import { createKey } from "./admin";
import { expectError, expectOk } from "./helpers";
import { Api, CURSOR, newTenant } from "./runs-helpers";
import { SERVERS } from "./servers";
import {
  createEndpoint,
  del,
  deliveriesOf,
  ENDPOINT_KEYS,
  expectEndpointShape,
  holdEvents,
  patch,
  readEndpoint,
  sleep,
  WEBHOOK_PORTS,
  type Endpoint,
  type ListOf,
} from "./webhooks-helpers";

const spec = SERVERS.webhooks;
const hook = (p: string) => `http://127.0.0.1:${WEBHOOK_PORTS.endpoints}${p}`;
let release: () => void = () => {};

test.beforeEach(async () => {
  release = await holdEvents();
});

test.afterEach(() => release());

async function listAll(api: Api): Promise<Endpoint[]> {
  const all: Endpoint[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const qs: string = cursor ? `limit=1&cursor=${encodeURIComponent(cursor)}` : "limit=1";
    const body: ListOf<Endpoint> = await expectOk<ListOf<Endpoint>>(await api.get(`/v1/webhooks?${qs}`));
    expect(Object.keys(body).sort()).toEqual(["data", "has_more", "next_cursor", "object", "url"]);
    expect(body).toMatchObject({ object: "list", url: "/v1/webhooks" });
    expect(body.data.length).toBeLessThanOrEqual(1);
    all.push(...body.data);
    if (!body.has_more) {
      expect(body.next_cursor).toBeNull();
      return all;
    }
    expect(body.next_cursor).toMatch(CURSOR);
    cursor = body.next_cursor;
  }
  throw new Error("too many pages");
}

test("create with defaults and with every field; list (paged), read, change each field, delete", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-crud").api;
  expect(await expectOk<ListOf<Endpoint>>(await api.get("/v1/webhooks"))).toEqual({
    object: "list",
    url: "/v1/webhooks",
    data: [],
    has_more: false,
    next_cursor: null,
  });

  const plain = await createEndpoint(api, { url: hook("/plain") });
  expect(plain).toMatchObject({
    object: "webhook_endpoint",
    url: hook("/plain"),
    description: "",
    event_types: [],
    enabled: true,
    disabled_reason: null,
  });
  expect(plain.updated_at).toBe(plain.created_at);
  expect(Math.abs(Date.parse(plain.created_at) - Date.now())).toBeLessThan(60_000);

  const full = await createEndpoint(api, {
    url: hook("/full?token=abc"),
    description: "d".repeat(500),
    event_types: ["generation.failed", "generation.canceled"],
    enabled: false,
  });
  expect(full).toMatchObject({
    url: hook("/full?token=abc"),
    description: "d".repeat(500),
    enabled: false,
    disabled_reason: null,
  });
  expect([...full.event_types].sort()).toEqual(["generation.canceled", "generation.failed"]);
  const longUrl = hook("/long/") + "x".repeat(2048 - hook("/long/").length);
  expect(longUrl).toHaveLength(2048);
  const long = await createEndpoint(api, {
    url: longUrl,
    event_types: ["generation.succeeded", "generation.failed", "generation.canceled"],
  });
  expect(long.url).toBe(longUrl);
  expect(new Set([plain.id, full.id, long.id]).size).toBe(3);

  // Read and list.
  expect(await readEndpoint(api, plain.id)).toEqual(plain);
  expect(await readEndpoint(api, full.id)).toEqual(full);
  const listed = await listAll(api);
  expect(listed.map((e) => e.id).sort()).toEqual([plain.id, full.id, long.id].sort());
  for (const e of listed) expect(e).toEqual(await readEndpoint(api, e.id));
  const page = await expectOk<ListOf<Endpoint>>(await api.get("/v1/webhooks?limit=100"));
  expect(page.data.map((e) => e.id)).toEqual(listed.map((e) => e.id));

  // Change each of the four fields, one at a time; the others stay.
  await sleep(5);
  const renamed = await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${plain.id}`, { description: "renamed" }));
  expectEndpointShape(renamed);
  expect(renamed).toMatchObject({
    id: plain.id,
    url: hook("/plain"),
    description: "renamed",
    event_types: [],
    enabled: true,
    created_at: plain.created_at,
  });
  expect(renamed.updated_at > plain.updated_at).toBe(true);
  const moved = await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${plain.id}`, { url: hook("/moved") }));
  expect(moved).toMatchObject({ url: hook("/moved"), description: "renamed" });
  const filtered = await expectOk<Endpoint>(
    await patch(api, `/v1/webhooks/${plain.id}`, { event_types: ["generation.succeeded"] }),
  );
  expect(filtered).toMatchObject({ url: hook("/moved"), event_types: ["generation.succeeded"] });
  const off = await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${plain.id}`, { enabled: false }));
  expect(off).toMatchObject({ enabled: false, event_types: ["generation.succeeded"], disabled_reason: null });
  const all = await expectOk<Endpoint>(
    await patch(api, `/v1/webhooks/${plain.id}`, {
      enabled: true,
      event_types: [],
      description: "",
      url: hook("/back"),
    }),
  );
  expect(all).toMatchObject({
    id: plain.id,
    url: hook("/back"),
    description: "",
    event_types: [],
    enabled: true,
    disabled_reason: null,
  });
  expect(await readEndpoint(api, plain.id)).toEqual(all);
  expect(Object.keys(all).sort()).toEqual(ENDPOINT_KEYS);

  // Delete: gone from reads, lists, its deliveries, a second delete.
  const deleted = await expectOk(await del(api, `/v1/webhooks/${full.id}`));
  expect(deleted).toEqual({ id: full.id, object: "webhook_endpoint", deleted: true });
  await expectError(await api.get(`/v1/webhooks/${full.id}`), 404, "resource_not_found");
  await expectError(await patch(api, `/v1/webhooks/${full.id}`, { description: "x" }), 404, "resource_not_found");
  await expectError(await del(api, `/v1/webhooks/${full.id}`), 404, "resource_not_found");
  await expectError(await api.get(`/v1/webhooks/${full.id}/deliveries`), 404, "resource_not_found");
  expect((await listAll(api)).map((e) => e.id).sort()).toEqual([plain.id, long.id].sort());
  expect(await deliveriesOf(api, `/v1/webhooks/${plain.id}/deliveries`)).toEqual([]);
});

test("fields are validated on create and on change: 400 invalid_parameter naming the field", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "wh-validate").api;
  const cases: [Record<string, unknown>, string][] = [
    [{}, "url"],
    [{ description: "no url" }, "url"],
    [{ url: 42 }, "url"],
    [{ url: "" }, "url"],
    [{ url: "not a url" }, "url"],
    [{ url: "ftp://127.0.0.1/hook" }, "url"],
    [{ url: hook("/") + "x".repeat(2049 - hook("/").length) }, "url"],
    [{ url: hook("/x"), event_types: ["generation.started"] }, "event_types"],
    [{ url: hook("/x"), event_types: ["generation.succeeded", "nope"] }, "event_types"],
    [{ url: hook("/x"), event_types: "generation.failed" }, "event_types"],
    [{ url: hook("/x"), event_types: [42] }, "event_types"],
    [{ url: hook("/x"), description: "d".repeat(501) }, "description"],
    [{ url: hook("/x"), description: 7 }, "description"],
    [{ url: hook("/x"), enabled: "yes" }, "enabled"],
    [{ url: hook("/x"), colour: "red" }, "colour"],
  ];
  for (const [body, param] of cases) {
    await expectError(await api.post("/v1/webhooks", body), 400, "invalid_parameter", { param });
  }
  expect(await listAll(api), "nothing was created").toEqual([]);

  const endpoint = await createEndpoint(api, { url: hook("/valid") });
  for (const [body, param] of cases.filter(([b]) => "url" in b && Object.keys(b).length > 1)) {
    const { url: _url, ...change } = body;
    await expectError(await patch(api, `/v1/webhooks/${endpoint.id}`, change), 400, "invalid_parameter", { param });
  }
  for (const [body, param] of cases.filter(([b]) => Object.keys(b).length === 1 && "url" in b)) {
    await expectError(await patch(api, `/v1/webhooks/${endpoint.id}`, body), 400, "invalid_parameter", { param });
  }
  expect(await readEndpoint(api, endpoint.id), "nothing was changed").toEqual(endpoint);
});

test("at most 20 endpoints per workspace: the 21st → 400 param url; after a delete there is room again", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-limit").api;
  const created: Endpoint[] = [];
  for (let i = 0; i < 20; i++) created.push(await createEndpoint(api, { url: hook(`/limit/${i}`) }));
  await expectError(await api.post("/v1/webhooks", { url: hook("/limit/20") }), 400, "invalid_parameter", {
    param: "url",
  });
  expect(await listAll(api)).toHaveLength(20);
  // Another workspace's count is its own.
  await createEndpoint(newTenant(request, spec, "1.00", "wh-limit-other").api, { url: hook("/limit/other") });
  await expectOk(await del(api, `/v1/webhooks/${created[0]!.id}`));
  await createEndpoint(api, { url: hook("/limit/again") });
  await expectError(await api.post("/v1/webhooks", { url: hook("/limit/21") }), 400, "invalid_parameter", {
    param: "url",
  });
});

test("another workspace's endpoint and unknown ids → 404 on read, change, delete and deliveries", async ({
  request,
}) => {
  const owner = newTenant(request, spec, "1.00", "wh-owner").api;
  const stranger = newTenant(request, spec, "1.00", "wh-stranger").api;
  const endpoint = await createEndpoint(owner, { url: hook("/owned") });
  for (const id of [endpoint.id, "wh_doesnotexist0000000000", "nope"]) {
    await expectError(await stranger.get(`/v1/webhooks/${id}`), 404, "resource_not_found");
    await expectError(
      await patch(stranger, `/v1/webhooks/${id}`, { description: "mine now" }),
      404,
      "resource_not_found",
    );
    await expectError(await del(stranger, `/v1/webhooks/${id}`), 404, "resource_not_found");
    await expectError(await stranger.get(`/v1/webhooks/${id}/deliveries`), 404, "resource_not_found");
  }
  expect(await listAll(stranger)).toEqual([]);
  expect(await readEndpoint(owner, endpoint.id), "untouched").toEqual(endpoint);
});

test("scopes: generations:write manages endpoints and the secret; a generations:read key gets 403 there but reads events", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "wh-scopes");
  const endpoint = await createEndpoint(tenant.api, { url: hook("/scoped") });
  const readOnly = new Api(request, spec, createKey(tenant.workspaceId, { scopes: ["generations:read"] }, spec).key);
  const denied = { message: /generations:write/ };
  await expectError(await readOnly.post("/v1/webhooks", { url: hook("/scoped-2") }), 403, "permission_denied", denied);
  await expectError(await readOnly.get("/v1/webhooks"), 403, "permission_denied", denied);
  await expectError(await readOnly.get(`/v1/webhooks/${endpoint.id}`), 403, "permission_denied", denied);
  await expectError(
    await patch(readOnly, `/v1/webhooks/${endpoint.id}`, { enabled: false }),
    403,
    "permission_denied",
    denied,
  );
  await expectError(await del(readOnly, `/v1/webhooks/${endpoint.id}`), 403, "permission_denied", denied);
  await expectError(await readOnly.get("/v1/webhooks/default/secret"), 403, "permission_denied", denied);
  await expectError(await readOnly.post("/v1/webhooks/default/secret/rotate"), 403, "permission_denied", denied);
  // Events and deliveries are reading.
  await expectOk(await readOnly.get("/v1/events"));
  await expectOk(await readOnly.get(`/v1/webhooks/${endpoint.id}/deliveries`));
  expect(await readEndpoint(tenant.api, endpoint.id), "untouched").toEqual(endpoint);

  const writeOnly = new Api(request, spec, createKey(tenant.workspaceId, { scopes: ["generations:write"] }, spec).key);
  const made = await createEndpoint(writeOnly, { url: hook("/scoped-3") });
  expect((await listAll(writeOnly)).map((e) => e.id).sort()).toEqual([endpoint.id, made.id].sort());
  await expectOk(await writeOnly.get("/v1/webhooks/default/secret"));
  await expectOk(await del(writeOnly, `/v1/webhooks/${made.id}`));
});
