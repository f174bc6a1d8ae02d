// Webhook deliveries over HTTP on the webhooks server (WEBHOOK_ALLOW_INSECURE=1 so a local
// receiver can be reached, WEBHOOK_RETRY_SCHEDULE of 0.3 s so retries come quickly), to a real
// receiver: signed with the published secret over the exact bytes (Standard Webhooks), to the
// run's own URL and to the workspace's endpoints by their event_types; two signatures after a
// rotation; retries with the same webhook-id recorded attempt by attempt; redirects are failures
// and never followed; 410 disables the endpoint at once and ends a run's own delivery; disabling
// or moving an endpoint takes its pending deliveries along; answers are stored as safe text;
// Retry-After is capped at 10 h.
import { expect, test } from "./fixtures";
import { expectOk, ISO_MS } from "./helpers";
import { newTenant, type Generation } from "./runs-helpers";
import { SERVERS } from "./servers";
import {
  createEndpoint,
  deliveriesOf,
  endedRun,
  eventOfRun,
  expectPayloadOf,
  expectSecretFormat,
  expectSignedDelivery,
  failedRun,
  finalDeliveries,
  hmacOf,
  holdEvents,
  patch,
  readEndpoint,
  readSecret,
  Receiver,
  sleep,
  verifyWith,
  WEBHOOK_PORTS,
  type Delivery,
  type Endpoint,
  type Secret,
} from "./webhooks-helpers";

const spec = SERVERS.webhooks;
const receiver = new Receiver(WEBHOOK_PORTS.delivery);
const elsewhere = new Receiver(WEBHOOK_PORTS.redirectTarget);
let release: () => void = () => {};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  await receiver.start();
  await elsewhere.start();
});

test.afterAll(async () => {
  await receiver.stop();
  await elsewhere.stop();
});

test.beforeEach(async () => {
  release = await holdEvents();
});

test.afterEach(() => release());

test("the run's own webhook and the matching endpoints get the ending event, signed with the published secret over the exact bytes", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-signed").api;
  const secret = await readSecret(api);
  expect(secret.previous_expires_at).toBeNull();
  // The secret is stable and the workspace's own.
  expect((await readSecret(api)).secret).toBe(secret.secret);
  const other = await readSecret(newTenant(request, spec, "1.00", "wh-signed-other").api);
  expect(other.secret).not.toBe(secret.secret);

  const p = {
    run: receiver.path("signed-run"),
    all: receiver.path("signed-all"),
    matching: receiver.path("signed-matching"),
    failedOnly: receiver.path("signed-failed-only"),
    disabled: receiver.path("signed-disabled"),
    paused: receiver.path("signed-paused"),
  };
  const all = await createEndpoint(api, { url: receiver.url(p.all), description: "every event" });
  expect(all).toMatchObject({
    url: receiver.url(p.all),
    description: "every event",
    event_types: [],
    enabled: true,
    disabled_reason: null,
  });
  const matching = await createEndpoint(api, {
    url: receiver.url(p.matching),
    event_types: ["generation.succeeded", "generation.canceled"],
  });
  const failedOnly = await createEndpoint(api, { url: receiver.url(p.failedOnly), event_types: ["generation.failed"] });
  const disabled = await createEndpoint(api, { url: receiver.url(p.disabled), enabled: false });
  expect(disabled).toMatchObject({ enabled: false });
  const paused = await createEndpoint(api, { url: receiver.url(p.paused) });
  expect(await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${paused.id}`, { enabled: false }))).toMatchObject({
    enabled: false,
  });

  const run = await endedRun(api, receiver.url(p.run));
  expect(run.status).toBe("succeeded");
  const event = await eventOfRun(api, run);
  expect(event.type).toBe("generation.succeeded");

  // The event's destinations were fixed when it was written: the run's URL and the two matching
  // enabled endpoints, no more.
  const deliveries = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 3);
  expect(deliveries.map((d) => [d.webhook_id, d.url, d.status]).sort()).toEqual(
    [
      [null, receiver.url(p.run), "succeeded"],
      [all.id, receiver.url(p.all), "succeeded"],
      [matching.id, receiver.url(p.matching), "succeeded"],
    ].sort(),
  );
  for (const d of deliveries) {
    expect(d.event_id).toBe(event.id);
    expect(d.next_attempt_at).toBeNull();
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attempt: 1, response_status: 204, error: null });
  }

  const arrivals = [
    ...(await receiver.waitFor(p.run, 1)),
    ...(await receiver.waitFor(p.all, 1)),
    ...(await receiver.waitFor(p.matching, 1)),
  ];
  for (const arrival of arrivals) {
    const payload = expectSignedDelivery(arrival, secret.secret, { eventId: event.id });
    expect(payload.type).toBe("generation.succeeded");
    expect(payload.data).toMatchObject({
      id: run.id,
      object: "generation",
      status: "succeeded",
      model: "atelier/gradient",
      input: run.input,
    });
    expect(payload.data.usage).toEqual(run.usage);
    expect(payload.data.completed_at).toBe(run.completed_at);
    // "timestamp" is when the run ended.
    expect(Math.abs(Date.parse(payload.timestamp) - Date.parse(run.completed_at!))).toBeLessThan(2_000);
    expectPayloadOf(arrival, event);
    // Another workspace's secret does not verify it.
    expect(() => verifyWith(other.secret, arrival)).toThrow();
  }
  // The same event is the same bytes wherever it goes.
  expect(new Set(arrivals.map((a) => a.body)).size).toBe(1);

  // Nothing for the endpoint that takes only failures, nor for the disabled ones.
  await sleep(800);
  expect(receiver.at(p.failedOnly)).toEqual([]);
  expect(receiver.at(p.disabled)).toEqual([]);
  expect(receiver.at(p.paused)).toEqual([]);
  expect(await deliveriesOf(api, `/v1/webhooks/${failedOnly.id}/deliveries`)).toEqual([]);
  expect(await deliveriesOf(api, `/v1/webhooks/${disabled.id}/deliveries`)).toEqual([]);
  // Exactly one request each (no duplicate sends).
  expect(receiver.at(p.run)).toHaveLength(1);
  expect(receiver.at(p.all)).toHaveLength(1);
  expect(receiver.at(p.matching)).toHaveLength(1);
});

test("a failed run sends generation.failed: the failures-only endpoint gets it, the succeeded/canceled one does not", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-failed").api;
  const secret = (await readSecret(api)).secret;
  const p = {
    run: receiver.path("failed-run"),
    failedOnly: receiver.path("failed-only"),
    others: receiver.path("failed-others"),
  };
  await createEndpoint(api, { url: receiver.url(p.failedOnly), event_types: ["generation.failed"] });
  const others = await createEndpoint(api, {
    url: receiver.url(p.others),
    event_types: ["generation.succeeded", "generation.canceled"],
  });
  const run = await failedRun(api, receiver.url(p.run));
  const event = await eventOfRun(api, run);
  expect(event.type).toBe("generation.failed");
  for (const arrival of [...(await receiver.waitFor(p.run, 1)), ...(await receiver.waitFor(p.failedOnly, 1))]) {
    const payload = expectSignedDelivery(arrival, secret, { eventId: event.id });
    expect(payload.type).toBe("generation.failed");
    expect(payload.data).toMatchObject({ id: run.id, status: "failed", error: run.error, usage: { cost_usd: null } });
    expectPayloadOf(arrival, event);
  }
  await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 2);
  await sleep(500);
  expect(receiver.at(p.others)).toEqual([]);
  expect(await deliveriesOf(api, `/v1/webhooks/${others.id}/deliveries`)).toEqual([]);
});

test("each item of a batch sends its own event to its own webhook", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "wh-batch").api;
  const secret = (await readSecret(api)).secret;
  const p = [receiver.path("batch-0"), receiver.path("batch-1")];
  const batch = await expectOk<{ data: Generation[] }>(
    await api.post("/v1/batches", {
      requests: p.map((x, i) => ({
        model: "atelier/gradient",
        input: { prompt: `item ${i}` },
        webhook: receiver.url(x),
      })),
    }),
    201,
  );
  const runs = await Promise.all(batch.data.map((g) => api.waitFinal(g.id)));
  for (const [i, run] of runs.entries()) {
    const event = await eventOfRun(api, run);
    const [arrival] = await receiver.waitFor(p[i]!, 1);
    const payload = expectSignedDelivery(arrival!, secret, { eventId: event.id });
    expect(payload.data).toMatchObject({ id: run.id, batch_id: run.batch_id });
  }
  expect(receiver.at(p[0]!)[0]!.headers["webhook-id"]).not.toBe(receiver.at(p[1]!)[0]!.headers["webhook-id"]);
});

test("after a rotation deliveries carry two signatures, v1,<new> v1,<old>: each verifies with its own secret only", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-rotate").api;
  const old = await readSecret(api);
  const rotateRes = await api.post("/v1/webhooks/default/secret/rotate");
  const rotated = await expectOk<Secret>(rotateRes);
  expect(Object.keys(rotated).sort()).toEqual(["object", "previous_expires_at", "secret"]);
  expect(rotated.object).toBe("webhook_secret");
  expectSecretFormat(rotated.secret);
  expect(rotated.secret).not.toBe(old.secret);
  expect(rotated.previous_expires_at).toMatch(ISO_MS);
  const expiresIn = Date.parse(rotated.previous_expires_at!) - Date.now();
  expect(expiresIn).toBeGreaterThan(24 * 3600_000 - 10 * 60_000);
  expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
  expect(await readSecret(api)).toEqual(rotated);

  const p = { run: receiver.path("rotate-run"), endpoint: receiver.path("rotate-endpoint") };
  await createEndpoint(api, { url: receiver.url(p.endpoint) });
  const run = await endedRun(api, receiver.url(p.run));
  const event = await eventOfRun(api, run);
  for (const arrival of [...(await receiver.waitFor(p.run, 1)), ...(await receiver.waitFor(p.endpoint, 1))]) {
    // The first signature is the new secret's (checked by hand inside).
    expectSignedDelivery(arrival, rotated.secret, { eventId: event.id, signatures: 2 });
    const [sigNew, sigOld] = String(arrival.headers["webhook-signature"]).split(" ") as [string, string];
    expect(sigNew).toBe(hmacOf(rotated.secret, arrival));
    expect(sigOld).toBe(hmacOf(old.secret, arrival));
    // A customer on either secret accepts the delivery as sent.
    expect(verifyWith(rotated.secret, arrival)).toMatchObject({ type: "generation.succeeded" });
    expect(verifyWith(old.secret, arrival)).toMatchObject({ type: "generation.succeeded" });
    // Each signature on its own: it verifies with its secret and not with the other.
    expect(verifyWith(rotated.secret, arrival, sigNew)).toMatchObject({ data: { id: run.id } });
    expect(verifyWith(old.secret, arrival, sigOld)).toMatchObject({ data: { id: run.id } });
    expect(() => verifyWith(rotated.secret, arrival, sigOld)).toThrow();
    expect(() => verifyWith(old.secret, arrival, sigNew)).toThrow();
  }
});

test("a receiver failing twice (500) then answering 200 gets exactly three attempts with one webhook-id; the record shows 500, 500, 200", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-retry").api;
  const secret = (await readSecret(api)).secret;
  const p = receiver.path("retry");
  receiver.answer(p, { status: 500, body: "busy, try later" }, 500, { status: 200, body: "thanks" });
  const endpoint = await createEndpoint(api, { url: receiver.url(p) });
  const run = await endedRun(api);
  const event = await eventOfRun(api, run);

  const arrivals = await receiver.waitFor(p, 3);
  for (const arrival of arrivals) {
    expectSignedDelivery(arrival, secret, { eventId: event.id });
    expectPayloadOf(arrival, event);
  }
  expect(new Set(arrivals.map((a) => a.headers["webhook-id"]))).toEqual(new Set([event.id]));
  // Each attempt signs its own timestamp (equal or later, never earlier).
  const stamps = arrivals.map((a) => Number(a.headers["webhook-timestamp"]));
  expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  expect(new Set(arrivals.map((a) => a.body)).size).toBe(1);

  const [byEndpoint] = await finalDeliveries(api, `/v1/webhooks/${endpoint.id}/deliveries`, 1);
  const [byEvent] = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 1);
  expect(byEvent).toEqual(byEndpoint);
  const delivery: Delivery = byEndpoint!;
  expect(delivery).toMatchObject({
    event_id: event.id,
    webhook_id: endpoint.id,
    url: receiver.url(p),
    status: "succeeded",
    next_attempt_at: null,
  });
  expect(delivery.attempts.map((a) => [a.attempt, a.response_status])).toEqual([
    [1, 500],
    [2, 500],
    [3, 200],
  ]);
  expect(delivery.attempts[0]!.response_body).toBe("busy, try later");
  expect(delivery.attempts[2]!.response_body).toBe("thanks");
  expect(delivery.attempts[2]!.error).toBeNull();
  for (const a of delivery.attempts.slice(0, 2)) expect(a.response_body).not.toBeNull();

  // Done: no fourth attempt.
  await sleep(1_000);
  expect(receiver.at(p)).toHaveLength(3);
});

test("a redirect is a failure and is never followed: the target gets nothing, the delivery fails after 8 attempts", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-redirect").api;
  const p = { endpoint: receiver.path("redirect-endpoint"), run: receiver.path("redirect-run") };
  const target = elsewhere.path("redirect-target");
  for (const x of [p.endpoint, p.run])
    receiver.answer(x, { status: 302, headers: { location: elsewhere.url(target) } });
  const endpoint = await createEndpoint(api, { url: receiver.url(p.endpoint) });
  const run = await endedRun(api, receiver.url(p.run));
  const event = await eventOfRun(api, run);

  const deliveries = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 2);
  for (const d of deliveries) {
    expect(d.status).toBe("failed");
    expect(d.next_attempt_at).toBeNull();
    expect(d.attempts).toHaveLength(8);
    for (const a of d.attempts) {
      expect(a.response_status).toBe(302);
      expect(a.error).toMatch(/redirect/);
    }
  }
  expect(deliveries.map((d) => d.webhook_id).sort()).toEqual([endpoint.id, null].sort());
  expect(receiver.at(p.endpoint)).toHaveLength(8);
  expect(receiver.at(p.run)).toHaveLength(8);
  expect(new Set([...receiver.at(p.endpoint), ...receiver.at(p.run)].map((a) => a.headers["webhook-id"]))).toEqual(
    new Set([event.id]),
  );
  await sleep(500);
  expect(elsewhere.arrivals).toEqual([]);
  // Failing 8 times in a few seconds is far from 5 days of failures: the endpoint stays enabled.
  expect(await readEndpoint(api, endpoint.id)).toMatchObject({ enabled: true, disabled_reason: null });
});

test("410 disables the endpoint at once: no retry, no later event; enabling it again clears the reason", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-gone").api;
  const p = { gone: receiver.path("gone"), control: receiver.path("gone-control") };
  receiver.answer(p.gone, { status: 410, body: "this hook is gone" });
  const gone = await createEndpoint(api, { url: receiver.url(p.gone) });
  const control = await createEndpoint(api, { url: receiver.url(p.control) });

  const first = await endedRun(api);
  await receiver.waitFor(p.gone, 1);
  await expect.poll(async () => (await readEndpoint(api, gone.id)).enabled, { timeout: 15_000 }).toBe(false);
  const disabled = await readEndpoint(api, gone.id);
  expect(disabled.disabled_reason).toEqual(expect.any(String));
  expect(disabled.disabled_reason!.length).toBeGreaterThan(0);
  expect(disabled.updated_at >= gone.updated_at).toBe(true);
  const firstEvent = await eventOfRun(api, first);
  const [goneDelivery] = await deliveriesOf(api, `/v1/webhooks/${gone.id}/deliveries`);
  expect(goneDelivery).toMatchObject({ event_id: firstEvent.id, webhook_id: gone.id });
  expect(goneDelivery!.attempts[0]).toMatchObject({
    attempt: 1,
    response_status: 410,
    response_body: "this hook is gone",
  });

  // The next event goes to the control endpoint only.
  const second = await endedRun(api);
  const secondEvent = await eventOfRun(api, second);
  await receiver.waitFor(p.control, 2);
  const secondDeliveries = await finalDeliveries(api, `/v1/events/${secondEvent.id}/deliveries`, 1);
  expect(secondDeliveries[0]!.webhook_id).toBe(control.id);
  await sleep(800);
  expect(receiver.at(p.gone), "one request: 410 is not retried").toHaveLength(1);

  // Turned back on: the reason is cleared and events flow again.
  const enabled = await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${gone.id}`, { enabled: true }));
  expect(enabled).toMatchObject({ id: gone.id, enabled: true, disabled_reason: null });
  expect(await readEndpoint(api, gone.id)).toEqual(enabled);
  receiver.answer(p.gone, 200);
  await endedRun(api);
  await receiver.waitFor(p.gone, 2);
});

test("410 from a run's own webhook ends that delivery at once: one request, failed, no retry", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "wh-own-gone").api;
  const p = receiver.path("own-gone");
  receiver.answer(p, { status: 410, body: "no such hook" });
  const run = await endedRun(api, receiver.url(p));
  const event = await eventOfRun(api, run);
  const [delivery] = await finalDeliveries(api, `/v1/events/${event.id}/deliveries`, 1);
  expect(delivery).toMatchObject({ webhook_id: null, url: receiver.url(p), status: "failed", next_attempt_at: null });
  expect(delivery!.attempts.map((a) => [a.attempt, a.response_status, a.response_body])).toEqual([
    [1, 410, "no such hook"],
  ]);
  await sleep(1_000);
  expect(receiver.at(p), "410 is not retried").toHaveLength(1);
});

test("disabling an endpoint fails its pending deliveries; a new URL takes them along and they arrive there at once", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-patch-pending").api;
  const secret = (await readSecret(api)).secret;
  const p = { off: receiver.path("patch-off"), old: receiver.path("patch-old"), moved: receiver.path("patch-new") };
  // Both receivers ask for an hour's pause, so the deliveries stay pending.
  for (const x of [p.off, p.old])
    receiver.answer(x, { status: 503, headers: { "retry-after": "3600" }, body: "back in an hour" });
  const off = await createEndpoint(api, { url: receiver.url(p.off) });
  const moving = await createEndpoint(api, { url: receiver.url(p.old) });
  const event = await eventOfRun(api, await endedRun(api));
  const waiting = async (id: string) => {
    let last: Delivery[] = [];
    await expect
      .poll(
        async () => (
          (last = await deliveriesOf(api, `/v1/webhooks/${id}/deliveries`)),
          last.length === 1 && last[0]!.attempts.length === 1
        ),
        { timeout: 15_000 },
      )
      .toBe(true);
    expect(last[0]).toMatchObject({ event_id: event.id, status: "pending" });
    return last[0]!;
  };
  const pendingOff = await waiting(off.id);
  await waiting(moving.id);

  expect(await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${off.id}`, { enabled: false }))).toMatchObject({
    enabled: false,
    disabled_reason: null,
  });
  const [failed] = await deliveriesOf(api, `/v1/webhooks/${off.id}/deliveries`);
  expect(failed).toMatchObject({ id: pendingOff.id, status: "failed", next_attempt_at: null });
  expect(failed!.attempts).toHaveLength(1);

  await expectOk<Endpoint>(await patch(api, `/v1/webhooks/${moving.id}`, { url: receiver.url(p.moved) }));
  const [arrival] = await receiver.waitFor(p.moved, 1);
  expectSignedDelivery(arrival!, secret, { eventId: event.id });
  const [delivered] = await finalDeliveries(api, `/v1/webhooks/${moving.id}/deliveries`, 1);
  expect(delivered).toMatchObject({
    event_id: event.id,
    url: receiver.url(p.moved),
    status: "succeeded",
    next_attempt_at: null,
  });
  expect(delivered!.attempts.map((a) => [a.attempt, a.response_status])).toEqual([
    [1, 503],
    [2, 204],
  ]);
  await sleep(800);
  expect(receiver.at(p.off)).toHaveLength(1);
  expect(receiver.at(p.old)).toHaveLength(1);
});

test("an answer is recorded as text the store takes: U+0000 removed, cut at 20 kB on a whole character", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-odd-body").api;
  const p = receiver.path("odd-body");
  // 20 479 bytes of "x" then "é" (2 bytes), which the 20 480-byte limit cuts in two.
  receiver.answer(
    p,
    { status: 500, body: "before\u0000after\u0000" },
    { status: 500, body: "x".repeat(20_479) + "é" + "tail" },
    { status: 200, body: "ok" },
  );
  const endpoint = await createEndpoint(api, { url: receiver.url(p) });
  await endedRun(api);
  const [delivery] = await finalDeliveries(api, `/v1/webhooks/${endpoint.id}/deliveries`, 1);
  expect(delivery!.status).toBe("succeeded");
  expect(delivery!.attempts.map((a) => a.response_status)).toEqual([500, 500, 200]);
  expect(delivery!.attempts[0]!.response_body).toBe("beforeafter");
  expect(delivery!.attempts[1]!.response_body).toBe("x".repeat(20_479));
});

test("Retry-After is honoured up to 10 hours: a receiver asking for longer gets its next attempt 10 hours later", async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-retry-after").api;
  const p = { far: receiver.path("retry-after-far"), near: receiver.path("retry-after-near") };
  receiver.answer(p.far, { status: 429, headers: { "retry-after": "99999999999999999999" } });
  receiver.answer(p.near, { status: 503, headers: { "retry-after": "120" } });
  const far = await createEndpoint(api, { url: receiver.url(p.far) });
  const near = await createEndpoint(api, { url: receiver.url(p.near) });
  await endedRun(api);
  for (const [endpoint, seconds] of [
    [far, 10 * 3600],
    [near, 120],
  ] as const) {
    let last: Delivery[] = [];
    await expect
      .poll(
        async () => (
          (last = await deliveriesOf(api, `/v1/webhooks/${endpoint.id}/deliveries`)),
          last[0]?.attempts.length ?? 0
        ),
        { timeout: 15_000 },
      )
      .toBe(1);
    const delivery = last[0]!;
    expect(delivery.status).toBe("pending");
    // The schedule's 0.3 s is shorter: the wait is exactly what Retry-After asked, capped at 10 h.
    expect(Date.parse(delivery.next_attempt_at!) - Date.parse(delivery.attempts[0]!.at)).toBe(seconds * 1000);
  }
});
