// Events and resend over HTTP on the webhooks server: every ending run writes one event
// (generation.succeeded, .failed, .canceled) listed newest first, paged like generations and
// filtered by type; one event read by id; another workspace's → 404. Deliveries are listed by
// event and by endpoint (newest first, paged); resend makes new deliveries that arrive with the
// same webhook-id, to every destination or to one endpoint (a disabled one too).
import { expect, test } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import { Api, CURSOR, newTenant, type Generation } from "./runs-helpers";
import { createKey } from "./admin";
import { SERVERS } from "./servers";
import {
  allEvents,
  canceledRun,
  createEndpoint,
  deliveriesOf,
  endedRun,
  EVENT_ID,
  EVENT_KEYS,
  eventOfRun,
  expectDeliveryShape,
  expectPayloadOf,
  expectSignedDelivery,
  failedRun,
  finalDeliveries,
  holdEvents,
  patch,
  readSecret,
  Receiver,
  sleep,
  WEBHOOK_PORTS,
  type Delivery,
  type EventObject,
  type ListOf,
} from "./webhooks-helpers";

const spec = SERVERS.webhooks;
const receiver = new Receiver(WEBHOOK_PORTS.events);
let release: () => void = () => {};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  await receiver.start();
});

test.afterAll(async () => {
  await receiver.stop();
});

test.beforeEach(async () => {
  release = await holdEvents();
});

test.afterEach(() => release());

test("events: one per ended run, newest first, paged with limit 1 + cursor, filtered by type, read by id; others' → 404", async ({
  request,
}) => {
  const tenant = newTenant(request, spec, "1.00", "wh-events");
  const api = tenant.api;
  expect(await allEvents(api), "a new workspace has no events").toEqual([]);

  // Ended one after another, so the events' order is this order.
  const ended: Generation[] = [];
  ended.push(await endedRun(api));
  ended.push(await failedRun(api));
  ended.push(...(await canceledRun(api)));
  ended.push(await endedRun(api));
  expect(ended.map((r) => r.status)).toEqual(expect.arrayContaining(["succeeded", "failed", "canceled"]));
  const newestFirst = [...ended].reverse();

  const events = await allEvents(api);
  expect(events.map((e) => [e.type, (e.data as { id: string }).id])).toEqual(
    newestFirst.map((r) => [`generation.${r.status}`, r.id]),
  );
  for (const [i, event] of events.entries()) {
    const run = newestFirst[i]!;
    expect(Object.keys(event).sort()).toEqual(EVENT_KEYS);
    expect(event.id).toMatch(EVENT_ID);
    expect(event.object).toBe("event");
    expect(event.data).toMatchObject({
      id: run.id,
      object: "generation",
      status: run.status,
      completed_at: run.completed_at,
      usage: run.usage,
    });
    expect(Math.abs(Date.parse(event.timestamp) - Date.parse(run.completed_at!))).toBeLessThan(2_000);
    if (i > 0) expect(event.timestamp <= events[i - 1]!.timestamp).toBe(true);
  }
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

  // The list's own shape, and paging one by one.
  const first = await expectOk<ListOf<EventObject>>(await api.get("/v1/events?limit=1"));
  expect(Object.keys(first).sort()).toEqual(["data", "has_more", "next_cursor", "object", "url"]);
  expect(first).toMatchObject({ object: "list", url: "/v1/events", has_more: true });
  const paged: EventObject[] = [...first.data];
  let cursor = first.next_cursor;
  for (let page = 0; cursor !== null && page < 50; page++) {
    expect(cursor).toMatch(CURSOR);
    const body: ListOf<EventObject> = await expectOk<ListOf<EventObject>>(
      await api.get(`/v1/events?limit=1&cursor=${encodeURIComponent(cursor)}`),
    );
    expect(body.data.length).toBeLessThanOrEqual(1);
    paged.push(...body.data);
    cursor = body.has_more ? body.next_cursor : null;
    if (!body.has_more) expect(body.next_cursor).toBeNull();
  }
  expect(paged).toEqual(events);

  // type filter: one type, a comma list; a cursor keeps its filter.
  const canceled = await expectOk<ListOf<EventObject>>(await api.get("/v1/events?type=generation.canceled"));
  expect(canceled.data.map((e) => e.id)).toEqual(
    events.filter((e) => e.type === "generation.canceled").map((e) => e.id),
  );
  expect(canceled.data).toHaveLength(1);
  const notSucceeded = await allEvents(api, { type: "generation.failed,generation.canceled" });
  expect(notSucceeded.map((e) => e.id)).toEqual(
    events.filter((e) => e.type !== "generation.succeeded").map((e) => e.id),
  );
  const succeeded = await expectOk<ListOf<EventObject>>(await api.get("/v1/events?type=generation.succeeded&limit=1"));
  expect(succeeded.has_more).toBe(true);
  const succeeded2 = await expectOk<ListOf<EventObject>>(
    await api.get(
      `/v1/events?type=generation.succeeded&limit=100&cursor=${encodeURIComponent(succeeded.next_cursor!)}`,
    ),
  );
  expect([...succeeded.data, ...succeeded2.data].map((e) => e.id)).toEqual(
    events.filter((e) => e.type === "generation.succeeded").map((e) => e.id),
  );

  // Bad queries, as for generations.
  await expectError(await api.get("/v1/events?type=generation.started"), 400, "invalid_parameter", { param: "type" });
  await expectError(await api.get("/v1/events?type=generation.failed,nope"), 400, "invalid_parameter", {
    param: "type",
  });
  await expectError(await api.get("/v1/events?limit=0"), 400, "invalid_parameter", { param: "limit" });
  await expectError(await api.get("/v1/events?limit=101"), 400, "invalid_parameter", { param: "limit" });
  await expectError(await api.get("/v1/events?cursor=not-a-cursor"), 400, "invalid_parameter", { param: "cursor" });
  await expectError(
    await api.get(`/v1/events?type=generation.canceled&cursor=${encodeURIComponent(first.next_cursor!)}`),
    400,
    "invalid_parameter",
    { param: "cursor" },
  );
  await expectError(await api.get("/v1/events?colour=red"), 400, "invalid_parameter", { param: "colour" });

  // One by one: the same object as in the list.
  for (const event of events)
    expect(await expectOk<EventObject>(await api.get(`/v1/events/${event.id}`))).toEqual(event);

  // A read-only key reads events and deliveries.
  const readOnly = new Api(request, spec, createKey(tenant.workspaceId, { scopes: ["generations:read"] }, spec).key);
  expect(await expectOk<EventObject>(await readOnly.get(`/v1/events/${events[0]!.id}`))).toEqual(events[0]);
  await expectOk(await readOnly.get("/v1/events?limit=1"));
  await expectOk(await readOnly.get(`/v1/events/${events[0]!.id}/deliveries`));
  // A key without generations:read does not.
  const writeOnly = new Api(request, spec, createKey(tenant.workspaceId, { scopes: ["generations:write"] }, spec).key);
  await expectError(await writeOnly.get("/v1/events"), 403, "permission_denied", { message: /generations:read/ });
  await expectError(await writeOnly.get(`/v1/events/${events[0]!.id}`), 403, "permission_denied", {
    message: /generations:read/,
  });

  // Another workspace: none listed, each one 404, as are unknown ids.
  const stranger = newTenant(request, spec, "1.00", "wh-events-stranger").api;
  expect(await allEvents(stranger)).toEqual([]);
  for (const event of events) {
    await expectError(await stranger.get(`/v1/events/${event.id}`), 404, "resource_not_found");
    await expectError(await stranger.get(`/v1/events/${event.id}/deliveries`), 404, "resource_not_found");
    await expectError(await stranger.post(`/v1/events/${event.id}/resend`), 404, "resource_not_found");
  }
  await expectError(await api.get("/v1/events/evt_doesnotexist0000000000"), 404, "resource_not_found");
  await expectError(await api.get("/v1/events/evt_doesnotexist0000000000/deliveries"), 404, "resource_not_found");
  await expectError(await api.post("/v1/events/evt_doesnotexist0000000000/resend"), 404, "resource_not_found");
});

test("resend to every destination and to one endpoint: new pending deliveries that arrive with the same webhook-id and bytes", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-resend").api;
  const secret = (await readSecret(api)).secret;
  const p = {
    run: receiver.path("resend-run"),
    endpoint: receiver.path("resend-endpoint"),
    other: receiver.path("resend-other"),
  };
  const endpoint = await createEndpoint(api, { url: receiver.url(p.endpoint) });
  const other = await createEndpoint(api, { url: receiver.url(p.other) });
  const run = await endedRun(api, receiver.url(p.run));
  const event = await eventOfRun(api, run);
  const originals = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 3);
  const original = {
    run: receiver.at(p.run)[0]!,
    endpoint: receiver.at(p.endpoint)[0]!,
    other: receiver.at(p.other)[0]!,
  };

  // Every destination.
  const allRes = await api.post(`/v1/events/${event.id}/resend`);
  const all = await expectOk<{ object: string; data: Delivery[] }>(allRes, 201);
  expect(all.object).toBe("list");
  all.data.forEach(expectDeliveryShape);
  expect(all.data.map((d) => [d.webhook_id, d.url]).sort()).toEqual(
    [
      [null, receiver.url(p.run)],
      [endpoint.id, receiver.url(p.endpoint)],
      [other.id, receiver.url(p.other)],
    ].sort(),
  );
  for (const d of all.data) {
    expect(d).toMatchObject({ event_id: event.id, status: "pending" });
    expect(originals.map((o) => o.id)).not.toContain(d.id);
  }
  for (const x of [p.run, p.endpoint, p.other]) await receiver.waitFor(x, 2);
  // A destination takes a new resend once its last one has ended (one pending delivery each).
  await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 6);

  // One endpoint.
  const one = await expectOk<{ object: string; data: Delivery[] }>(
    await api.post(`/v1/events/${event.id}/resend`, { webhook_id: endpoint.id }),
    201,
  );
  expect(one.object).toBe("list");
  expect(one.data).toHaveLength(1);
  expectDeliveryShape(one.data[0]!);
  expect(one.data[0]).toMatchObject({
    event_id: event.id,
    webhook_id: endpoint.id,
    url: receiver.url(p.endpoint),
    status: "pending",
  });
  await receiver.waitFor(p.endpoint, 3);
  await sleep(800);
  expect(receiver.at(p.run)).toHaveLength(2);
  expect(receiver.at(p.other)).toHaveLength(2);
  expect(receiver.at(p.endpoint)).toHaveLength(3);

  // Every resent request is the same event: same webhook-id, same bytes, freshly signed.
  const resent = [...receiver.at(p.run), ...receiver.at(p.endpoint), ...receiver.at(p.other)];
  for (const arrival of resent) {
    expectSignedDelivery(arrival, secret, { eventId: event.id });
    expectPayloadOf(arrival, event);
  }
  expect(new Set(resent.map((a) => a.body))).toEqual(new Set([original.run.body]));
  expect(original.endpoint.body).toBe(original.run.body);

  // The endpoint's deliveries, newest first and paged: the two resends, then the original.
  const byEndpoint = await finalDeliveries(api, `/v1/webhooks/${endpoint.id}/deliveries`, 3);
  const allResendToEndpoint = all.data.find((d) => d.webhook_id === endpoint.id)!;
  const originalToEndpoint = originals.find((d) => d.webhook_id === endpoint.id)!;
  expect(byEndpoint.map((d) => d.id)).toEqual([one.data[0]!.id, allResendToEndpoint.id, originalToEndpoint.id]);
  expect(byEndpoint.every((d) => d.status === "succeeded" && d.attempts.length === 1)).toBe(true);
  const walked: Delivery[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const qs: string = cursor ? `limit=1&cursor=${encodeURIComponent(cursor)}` : "limit=1";
    const body: ListOf<Delivery> = await expectOk<ListOf<Delivery>>(
      await api.get(`/v1/webhooks/${endpoint.id}/deliveries?${qs}`),
    );
    expect(body.object).toBe("list");
    walked.push(...body.data);
    if (!body.has_more) break;
    expect(body.next_cursor).toMatch(CURSOR);
    cursor = body.next_cursor;
  }
  expect(walked.map((d) => d.id)).toEqual(byEndpoint.map((d) => d.id));

  // The event's deliveries: 3 + 3 + 1, newest first.
  const byEvent = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 7);
  expect(byEvent[0]!.id).toBe(one.data[0]!.id);
  expect(
    byEvent
      .slice(4)
      .map((d) => d.id)
      .sort(),
  ).toEqual(originals.map((d) => d.id).sort());
  expect(byEvent.every((d) => d.event_id === event.id)).toBe(true);
});

test("resend to a disabled endpoint is sent anyway; to another workspace's or an unknown endpoint → refused, nothing sent", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-resend-more").api;
  const secret = (await readSecret(api)).secret;
  const p = { endpoint: receiver.path("resend-disabled"), stranger: receiver.path("resend-stranger") };
  const endpoint = await createEndpoint(api, { url: receiver.url(p.endpoint) });
  const run = await endedRun(api);
  const event = await eventOfRun(api, run);
  await receiver.waitFor(p.endpoint, 1);
  await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 1);

  await expectOk(await patch(api, `/v1/webhooks/${endpoint.id}`, { enabled: false }));
  const one = await expectOk<{ data: Delivery[] }>(
    await api.post(`/v1/events/${event.id}/resend`, { webhook_id: endpoint.id }),
    201,
  );
  expect(one.data).toHaveLength(1);
  expect(one.data[0]).toMatchObject({ webhook_id: endpoint.id, status: "pending", event_id: event.id });
  const [, again] = await receiver.waitFor(p.endpoint, 2);
  expectSignedDelivery(again!, secret, { eventId: event.id });

  const stranger = newTenant(request, spec, "1.00", "wh-resend-stranger").api;
  const strangers = await createEndpoint(stranger, { url: receiver.url(p.stranger) });
  for (const webhookId of [strangers.id, "wh_doesnotexist0000000000"]) {
    const res = await api.post(`/v1/events/${event.id}/resend`, { webhook_id: webhookId });
    // The contract says only that the endpoint must belong to the workspace: 404, or 400 on webhook_id.
    if (res.status() === 400) await expectError(res, 400, "invalid_parameter", { param: "webhook_id" });
    else await expectError(res, 404, "resource_not_found");
  }
  await expectError(await api.post(`/v1/events/${event.id}/resend`, { webhook_id: 42 }), 400, "invalid_parameter", {
    param: "webhook_id",
  });
  await expectError(await api.post(`/v1/events/${event.id}/resend`, { colour: "red" }), 400, "invalid_parameter", {
    param: "colour",
  });
  await sleep(800);
  expect(receiver.at(p.stranger)).toEqual([]);
  expect(await deliveriesOf(stranger, `/v1/webhooks/${strangers.id}/deliveries`)).toEqual([]);
  expect(await deliveriesOf(api, `/v1/events/${event.id}/deliveries`)).toHaveLength(2);
});
