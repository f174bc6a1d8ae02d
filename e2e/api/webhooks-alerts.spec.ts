// Budget alerts reach a customer's endpoint: a workspace with a daily cap, an endpoint subscribed
// to `budget.threshold_reached` only, runs that take the day's spend to 50 % and then 100 % of the
// cap. The receiver gets one signed delivery per threshold (Standard Webhooks, checked as a
// customer checks them), each the event the API lists, and no generation event.
import { expect, test } from "./fixtures";
import { admin } from "./admin";
import { newTenant, PRICE } from "./runs-helpers";
import { SERVERS } from "./servers";
import {
  allEvents,
  createEndpoint,
  expectPayloadOf,
  expectSignedDelivery,
  holdEvents,
  readSecret,
  Receiver,
  sleep,
  WEBHOOK_PORTS,
} from "./webhooks-helpers";

const spec = SERVERS.webhooks;
const receiver = new Receiver(WEBHOOK_PORTS.alerts);
const GRADIENT = { model: "atelier/gradient", input: { prompt: "alerts" } };
const THRESHOLD = "budget.threshold_reached";

test.beforeAll(async () => {
  await receiver.start();
});

test.afterAll(async () => {
  await receiver.stop();
});

test("a subscribed endpoint receives one signed budget.threshold_reached per threshold", async ({ request }) => {
  const release = await holdEvents();
  try {
    const tenant = newTenant(request, spec, "1.00", "wh-alerts");
    const { api } = tenant;
    const p = receiver.path("alerts");
    await createEndpoint(api, { url: receiver.url(p), event_types: [THRESHOLD] });
    const secret = (await readSecret(api)).secret;
    // Two runs of the cap: the first reaches 50 %, the second 100 % (80 % is claimed with it).
    const cap = (PRICE.gradientStandard * 2) / 1_000_000;
    admin(["budget", "set", "--workspace", tenant.workspaceId, "--daily", String(cap)], spec);

    await api.waitFinal((await api.create(GRADIENT)).gen.id, 30);
    const first = await receiver.waitFor(p, 1);
    const half = expectSignedDelivery(first[0]!, secret, { types: [THRESHOLD] });
    expect(half.data).toMatchObject({
      budget: { scope: "workspace", subject_id: tenant.workspaceId, period: "day", cap_usd: cap.toFixed(3) },
      threshold: 50,
    });

    await api.waitFinal((await api.create(GRADIENT)).gen.id, 30);
    const all = await receiver.waitFor(p, 3);
    const payloads = all.map((a) => expectSignedDelivery(a, secret, { types: [THRESHOLD] }));
    expect(payloads.map((x) => (x.data as unknown as { threshold: number }).threshold).sort((a, b) => a - b)).toEqual([
      50, 80, 100,
    ]);
    for (const x of payloads) expect(x.type).toBe(THRESHOLD);

    // Each delivery is the event the API lists, and each threshold is announced once.
    const events = await allEvents(api, { type: THRESHOLD });
    expect(events).toHaveLength(3);
    for (const arrival of all) {
      const event = events.find((e) => e.id === arrival.headers["webhook-id"]);
      expect(event, `the event of delivery ${String(arrival.headers["webhook-id"])}`).toBeDefined();
      expectPayloadOf(arrival, event!);
    }
    // The generation events exist but went nowhere: the endpoint subscribed to budget alerts only.
    expect((await allEvents(api)).filter((e) => e.type === "generation.succeeded")).toHaveLength(2);
    await sleep(500);
    expect(receiver.at(p)).toHaveLength(3);
  } finally {
    release();
  }
});
