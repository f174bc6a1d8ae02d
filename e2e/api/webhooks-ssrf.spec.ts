// Webhook URLs are checked when registered (REFERENCE.md 8), on the main server, which runs
// without WEBHOOK_ALLOW_INSECURE: https only, public addresses only, whatever the encoding of the
// address. Each refused URL is tried as an endpoint's `url`, a generation's `webhook`, a batch
// item's `webhook` and an endpoint change; an https URL to a public IP literal is accepted.
// No receiver: nothing here is ever delivered.
import { expect, test } from "@playwright/test";
import { expectError, expectOk } from "./helpers";
import { newTenant } from "./runs-helpers";
import { SERVERS } from "./servers";
import { createEndpoint, del, patch, readEndpoint } from "./webhooks-helpers";

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
];

const RUN = { model: "atelier/gradient", input: { prompt: "never started" } };

test(`${REFUSED.length} refused URLs → 400 invalid_parameter on the field that named them (url, webhook, requests[i].webhook)`, async ({ request }) => {
  const api = newTenant(request, spec, "1.00", "wh-ssrf").api;
  const before = await api.credits();
  const endpoint = await createEndpoint(api, { url: "https://93.184.216.34/kept" });
  for (const [url, why] of REFUSED) {
    await test.step(`${url} (${why})`, async () => {
      await expectError(await api.post("/v1/webhooks", { url }), 400, "invalid_parameter", { param: "url" });
      await expectError(await patch(api, `/v1/webhooks/${endpoint.id}`, { url }), 400, "invalid_parameter", { param: "url" });
      await expectError(await api.post("/v1/generations", { ...RUN, webhook: url }), 400, "invalid_parameter", { param: "webhook" });
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
  const moved = await expectOk<{ url: string }>(await patch(api, `/v1/webhooks/${endpoint.id}`, { url: "https://93.184.216.34:8443/other?x=1" }));
  expect(moved.url).toBe("https://93.184.216.34:8443/other?x=1");
  expect(await expectOk(await del(api, `/v1/webhooks/${endpoint.id}`))).toEqual({ id: endpoint.id, object: "webhook_endpoint", deleted: true });
});
