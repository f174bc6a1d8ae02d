// `admin events purge` on the webhooks server: 30 days (the default retention) keeps today's
// events; 0 days deletes every event of every workspace on the server, with its deliveries. So
// this test takes the exclusive purge guard (webhooks-helpers.ts): it waits until no other
// webhooks-* test is running, and none starts while it purges. It checks only its own events.
// And the engine's own scheduled purge (every second on this server, EVENTS_PURGE_INTERVAL_SECONDS)
// removes an event made 31 days old and keeps one made 29 days old.
import { expect, test } from "./fixtures";
import { admin } from "./admin";
import { expectError, expectOk } from "./helpers";
import { newTenant } from "./runs-helpers";
import { SERVERS } from "./servers";
import {
  allEvents,
  createEndpoint,
  deliveriesOf,
  endedRun,
  eventOfRun,
  finalDeliveries,
  holdEvents,
  purgeGuard,
  Receiver,
  WEBHOOK_PORTS,
  writeServerStore,
  type EventObject,
} from "./webhooks-helpers";

const spec = SERVERS.webhooks;
const receiver = new Receiver(WEBHOOK_PORTS.purge);

interface Purged {
  object: string;
  deleted: number;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  await receiver.start();
});

test.afterAll(async () => {
  await receiver.stop();
});

test("purge --older-than-days 30 keeps today's events; 0 deletes them with their deliveries; the runs stay; new events still come", async ({
  request,
}) => {
  test.setTimeout(180_000);
  const release = await purgeGuard();
  try {
    const api = newTenant(request, spec, "1.00", "wh-purge").api;
    const p = receiver.path("purge");
    const endpoint = await createEndpoint(api, { url: receiver.url(p) });
    const runs = [await endedRun(api), await endedRun(api)];
    const events: EventObject[] = [];
    for (const run of runs) events.push(await eventOfRun(api, run));
    for (const event of events) await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 1);
    await receiver.waitFor(p, 2);

    const kept = admin<Purged>(["events", "purge", "--older-than-days", "30"], spec);
    expect(kept).toEqual({ object: "events_purge", deleted: 0 });
    // The default is 30 days too.
    expect(admin<Purged>(["events", "purge"], spec)).toEqual({ object: "events_purge", deleted: 0 });
    for (const event of events)
      expect(await expectOk<EventObject>(await api.get(`/v1/events/${event.id}`))).toEqual(event);

    const purged = admin<Purged>(["events", "purge", "--older-than-days", "0"], spec);
    expect(Object.keys(purged).sort()).toEqual(["deleted", "object"]);
    expect(purged.object).toBe("events_purge");
    expect(Number.isInteger(purged.deleted)).toBe(true);
    expect(purged.deleted).toBeGreaterThanOrEqual(events.length);

    for (const event of events) {
      await expectError(await api.get(`/v1/events/${event.id}`), 404, "resource_not_found");
      await expectError(await api.get(`/v1/events/${event.id}/deliveries`), 404, "resource_not_found");
      await expectError(await api.post(`/v1/events/${event.id}/resend`), 404, "resource_not_found");
    }
    expect(await allEvents(api)).toEqual([]);
    expect(await deliveriesOf(api, `/v1/webhooks/${endpoint.id}/deliveries`)).toEqual([]);
    // The runs themselves stay, and the endpoint.
    for (const run of runs) expect(await api.read(run.id)).toMatchObject({ id: run.id, status: "succeeded" });
    expect(await expectOk(await api.get(`/v1/webhooks/${endpoint.id}`))).toMatchObject({
      id: endpoint.id,
      enabled: true,
    });

    // A run ending after the purge writes and delivers a new event.
    const later = await endedRun(api);
    const event = await eventOfRun(api, later);
    expect(events.map((e) => e.id)).not.toContain(event.id);
    expect((await allEvents(api)).map((e) => e.id)).toEqual([event.id]);
    const [arrival] = (await receiver.waitFor(p, 3)).slice(2);
    expect(arrival!.headers["webhook-id"]).toBe(event.id);
  } finally {
    release();
  }
});

test("the engine's scheduled purge deletes an event older than 30 days with its deliveries, and keeps one of 29 days", async ({
  request,
}) => {
  test.setTimeout(60_000);
  const release = await holdEvents();
  try {
    const api = newTenant(request, spec, "1.00", "wh-purge-scheduled").api;
    const p = receiver.path("scheduled");
    await createEndpoint(api, { url: receiver.url(p) });
    const [old, recent] = [await eventOfRun(api, await endedRun(api)), await eventOfRun(api, await endedRun(api))] as [
      EventObject,
      EventObject,
    ];
    for (const event of [old, recent]) await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 1);

    // Both ages in one transaction: any purge that sees the 31-day one also sees the 29-day one.
    const daysAgo = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000).toISOString();
    await writeServerStore(spec, [
      ["update events set created_at = ? where id = ?", [daysAgo(31), old.id]],
      ["update events set created_at = ? where id = ?", [daysAgo(29), recent.id]],
    ]);

    await expect
      .poll(async () => (await api.get(`/v1/events/${old.id}`)).status(), {
        timeout: 20_000,
        message: "the 31-day event is purged",
      })
      .toBe(404);
    await expectError(await api.get(`/v1/events/${old.id}/deliveries`), 404, "resource_not_found");
    expect(await expectOk<EventObject>(await api.get(`/v1/events/${recent.id}`))).toEqual(recent);
    expect(await finalDeliveries(api, `/v1/events/${recent.id}/deliveries`, 1)).toHaveLength(1);
    expect((await allEvents(api)).map((e) => e.id)).toEqual([recent.id]);
  } finally {
    release();
  }
});
