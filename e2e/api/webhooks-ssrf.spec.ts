// Webhook URLs are checked when registered (docs/api.md, "Webhook deliveries"), on the main server, which runs
// without WEBHOOK_ALLOW_INSECURE: https only, public addresses only, whatever the encoding of the
// address. Each refused URL is tried as an endpoint's `url`, a generation's `webhook`, a batch
// item's `webhook` and an endpoint change; an https URL to a public IP literal is accepted.
// On the webhooks server (WEBHOOK_ALLOW_INSECURE=1) http and loopback/private receivers are
// accepted, link-local (cloud metadata), unspecified and reserved addresses still refused. And
// every attempt checks again at connect time: an endpoint whose name now resolves to loopback
// gets a "refused address" attempt, and nothing connects.
import { createServer, type Server } from "node:net";
import { expect, test } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import { newTenant } from "./runs-helpers";
import { SERVERS } from "./servers";
import {
  createEndpoint,
  del,
  deliveriesOf,
  endedRun,
  eventOfRun,
  patch,
  readEndpoint,
  WEBHOOK_PORTS,
  writeServerStore,
} from "./webhooks-helpers";

const spec = SERVERS.main;

const REFUSED: [url: string, why: string][] = [
  ["http://example.com/hook", "plain http"],
  ["http://93.184.216.34/hook", "plain http to a public address"],
  ["ftp://93.184.216.34/hook", "not https"],
  ["https://user:pass@93.184.216.34/hook", "credentials in the URL"],
  ["https://127.0.0.1/hook", "loopback"],
  ["https://127.0.0.1:8443/hook", "loopback with a port"],
  ["https://localhost/hook", "loopback by name"],
  ["https://0x7f000001/hook", "loopback in hex"],
  ["https://2130706433/hook", "loopback in decimal"],
  ["https://017700000001/hook", "loopback in octal"],
  ["https://0177.0.0.1/hook", "loopback, octal first part"],
  ["https://0x7f.0.0.1/hook", "loopback, hex first part"],
  ["https://127.1/hook", "loopback, short form"],
  ["https://[::1]/hook", "IPv6 loopback"],
  ["https://[::]/hook", "IPv6 unspecified"],
  ["https://[::ffff:127.0.0.1]/hook", "IPv4-mapped loopback"],
  ["https://[::ffff:7f00:1]/hook", "IPv4-mapped loopback in hex"],
  ["https://[::ffff:a9fe:a9fe]/hook", "IPv4-mapped metadata address"],
  ["https://10.0.0.1/hook", "private 10/8"],
  ["https://172.16.5.4/hook", "private 172.16/12"],
  ["https://172.31.255.254/hook", "private 172.16/12, top"],
  ["https://192.168.1.1/hook", "private 192.168/16"],
  ["https://169.254.169.254/latest/meta-data", "link-local metadata"],
  ["https://100.64.0.1/hook", "CGNAT 100.64/10"],
  ["https://100.127.255.254/hook", "CGNAT 100.64/10, top"],
  ["https://0.0.0.0/hook", "0/8"],
  ["https://0.1.2.3/hook", "0/8"],
  ["https://[fe80::1]/hook", "IPv6 link-local"],
  ["https://[fc00::1]/hook", "IPv6 unique local"],
  ["https://[fd12:3456::1]/hook", "IPv6 unique local (fd)"],
  ["https://198.18.0.1/hook", "benchmarking 198.18/15"],
  ["https://198.19.255.1/hook", "benchmarking 198.18/15, top"],
  ["https://240.0.0.1/hook", "reserved 240/4"],
  ["https://255.255.255.255/hook", "broadcast (240/4)"],
  ["https://192.0.0.1/hook", "IETF protocol assignments 192.0.0/24"],
  ["https://192.0.2.10/hook", "documentation TEST-NET-1"],
  ["https://198.51.100.7/hook", "documentation TEST-NET-2"],
  ["https://203.0.113.9/hook", "documentation TEST-NET-3"],
  ["https://[2001:db8::1]/hook", "IPv6 documentation"],
  ["https://[::ffff:0:10.0.0.1]/hook", "IPv4-translated private (::ffff:0:0/96)"],
  ["https://[::ffff:0:7f00:1]/hook", "IPv4-translated loopback in hex"],
  ["https://[64:ff9b::127.0.0.1]/hook", "NAT64 with loopback inside"],
  ["https://[64:ff9b::a9fe:a9fe]/hook", "NAT64 with the metadata address inside"],
  ["https://[64:ff9b:1::5db8:d822]/hook", "NAT64 local-use 64:ff9b:1::/48"],
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", "Teredo 2001::/32"],
  ["https://[2001:2::1]/hook", "IPv6 benchmarking (2001::/23)"],
  ["https://[2002:a00:1::1]/hook", "6to4 with private 10.0.0.1 inside"],
  ["https://[2002:7f00:1::1]/hook", "6to4 with loopback inside"],
  ["https://[fec0::1]/hook", "IPv6 site-local fec0::/10"],
  ["https://[100::1]/hook", "IPv6 discard-only 100::/64"],
  ["https://[ff02::1]/hook", "IPv6 multicast"],
  ["https://[::127.0.0.1]/hook", "IPv4-compatible loopback"],
  ["https://192.88.99.1/hook", "6to4 relay anycast 192.88.99/24"],
  ["https://224.0.0.1/hook", "multicast 224/4"],
  ["https://239.255.255.250/hook", "multicast 224/4, top"],
];

const RUN = { model: "atelier/gradient", input: { prompt: "never started" } };

test(`${REFUSED.length} refused URLs → 400 invalid_parameter on the field that named them (url, webhook, requests[i].webhook)`, async ({
  request,
}) => {
  const api = newTenant(request, spec, "1.00", "wh-ssrf").api;
  const before = await api.credits();
  const endpoint = await createEndpoint(api, { url: "https://93.184.216.34/kept" });
  for (const [url, why] of REFUSED) {
    await test.step(`${url} (${why})`, async () => {
      await expectError(await api.post("/v1/webhooks", { url }), 400, "invalid_parameter", { param: "url" });
      await expectError(await patch(api, `/v1/webhooks/${endpoint.id}`, { url }), 400, "invalid_parameter", {
        param: "url",
      });
      await expectError(await api.post("/v1/generations", { ...RUN, webhook: url }), 400, "invalid_parameter", {
        param: "webhook",
      });
      await expectError(
        await api.post("/v1/batches", { requests: [{ ...RUN }, { ...RUN, webhook: url }] }),
        400,
        "invalid_parameter",
        { param: "requests[1].webhook" },
      );
    });
  }
  // Nothing was registered, changed, started or charged.
  const list = await expectOk<{ data: { id: string }[] }>(await api.get("/v1/webhooks"));
  expect(list.data.map((e) => e.id)).toEqual([endpoint.id]);
  expect((await readEndpoint(api, endpoint.id)).url).toBe("https://93.184.216.34/kept");
  expect(await api.listAll()).toEqual([]);
  expect(await api.credits()).toEqual(before);
  await expectOk(await del(api, `/v1/webhooks/${endpoint.id}`));
});

test("an https URL to a public IP literal is accepted at registration", async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "wh-ssrf-ok").api;
  const endpoint = await createEndpoint(api, { url: "https://93.184.216.34/hook" });
  expect(endpoint).toMatchObject({ url: "https://93.184.216.34/hook", enabled: true });
  const moved = await expectOk<{ url: string }>(
    await patch(api, `/v1/webhooks/${endpoint.id}`, { url: "https://93.184.216.34:8443/other?x=1" }),
  );
  expect(moved.url).toBe("https://93.184.216.34:8443/other?x=1");
  expect(await expectOk(await del(api, `/v1/webhooks/${endpoint.id}`))).toEqual({
    id: endpoint.id,
    object: "webhook_endpoint",
    deleted: true,
  });
});

const INSECURE_REFUSED: [url: string, why: string][] = [
  ["http://169.254.169.254/latest/meta-data", "link-local metadata"],
  ["http://[fe80::1]/hook", "IPv6 link-local"],
  ["http://[::ffff:169.254.169.254]/hook", "IPv4-mapped metadata address"],
  ["http://0.0.0.0:3357/hook", "unspecified (reaches this machine on Linux)"],
  ["http://[::]:3357/hook", "IPv6 unspecified"],
  ["http://100.64.0.1/hook", "CGNAT"],
  ["http://198.18.0.1/hook", "benchmarking"],
  ["http://240.0.0.1/hook", "reserved 240/4"],
  ["http://224.0.0.1/hook", "multicast"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", "Teredo"],
];

test(`WEBHOOK_ALLOW_INSECURE=1 allows http and loopback/private receivers, and still refuses ${INSECURE_REFUSED.length} others`, async ({
  request,
}) => {
  const api = newTenant(request, SERVERS.webhooks, "1.00", "wh-ssrf-insecure").api;
  for (const [url, why] of INSECURE_REFUSED) {
    await test.step(`${url} (${why})`, async () => {
      await expectError(await api.post("/v1/webhooks", { url }), 400, "invalid_parameter", { param: "url" });
      await expectError(await api.post("/v1/generations", { ...RUN, webhook: url }), 400, "invalid_parameter", {
        param: "webhook",
      });
    });
  }
  // Registered only: no run ends in this workspace, so nothing is sent to them.
  for (const url of [
    "http://127.0.0.1:3357/hook",
    "http://localhost:3357/hook",
    "http://[::1]:3357/hook",
    "http://10.1.2.3/hook",
    "http://192.168.1.20:8080/hook",
    "http://[fd00::5]/hook",
  ]) {
    const endpoint = await createEndpoint(api, { url });
    expect(endpoint.url).toBe(url);
    await expectOk(await del(api, `/v1/webhooks/${endpoint.id}`));
  }
  expect(await api.listAll()).toEqual([]);
});

test("every attempt checks the address again at connect time: a name that now resolves to loopback is refused and nothing connects", async ({
  request,
}) => {
  // A listener where the delivery would land if the connect-time check let it through.
  const connections: string[] = [];
  const listener: Server = createServer((socket) => {
    connections.push(String(socket.remoteAddress));
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(WEBHOOK_PORTS.refusedTarget, "127.0.0.1", resolve);
  });
  try {
    const api = newTenant(request, spec, "1.00", "wh-ssrf-connect").api;
    const endpoint = await createEndpoint(api, { url: "https://93.184.216.34/hook" });
    // Since registration the endpoint's host has come to mean this machine: the store now says
    // "localhost", as a DNS change would make of a checked name. Registration would refuse it.
    const target = `https://localhost:${WEBHOOK_PORTS.refusedTarget}/hook`;
    await expectError(await patch(api, `/v1/webhooks/${endpoint.id}`, { url: target }), 400, "invalid_parameter", {
      param: "url",
    });
    await writeServerStore(spec, [["update webhook_endpoints set url = ? where id = ?", [target, endpoint.id]]]);

    const event = await eventOfRun(api, await endedRun(api));
    // The main server keeps the standard schedule: the first attempt goes at once, the next in 5 s.
    let attempts: { response_status: number | null; error: string | null }[] = [];
    await expect
      .poll(
        async () => {
          const [delivery] = await deliveriesOf(api, `/v1/events/${event.id}/deliveries`);
          expect(delivery?.url).toBe(target);
          attempts = delivery?.attempts ?? [];
          return attempts.length;
        },
        { timeout: 15_000, message: "the first attempt is recorded" },
      )
      .toBeGreaterThanOrEqual(1);
    expect(attempts[0]).toMatchObject({ response_status: null });
    expect(attempts[0]!.error).toMatch(
      /^refused address: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    expect(connections, "nothing connected to the listener").toEqual([]);
  } finally {
    await new Promise((resolve) => listener.close(resolve));
  }
});
