import { describe, expect, it } from "vitest";
import { checkWebhookUrl, classifyAddress, refusedAddress, safeLookup } from "./ssrf";

const noDns = async (): Promise<string[]> => {
  throw Object.assign(new Error("no DNS in tests"), { code: "ENOTFOUND" });
};
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

describe("webhook URL checks (SSRF)", () => {
  const refused = [
    "https://127.0.0.1/",
    "https://127.1/",
    "https://0x7f000001/",
    "https://2130706433/",
    "https://017700000001/",
    "https://0x7f.0.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[64:ff9b::a00:1]/",
    "https://[2002:c0a8:101::1]/",
    "https://[::127.0.0.1]/",
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/",
    "https://0.0.0.0/",
    "https://255.255.255.255/",
    "https://224.0.0.1/",
    "https://240.0.0.1/",
    "https://198.18.0.1/",
    "https://192.0.0.8/",
    "https://192.0.2.10/",
    "https://203.0.113.5/",
    "https://[fe80::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[ff02::1]/",
    "https://[2001:db8::1]/",
    // IPv4-translated (::ffff:0:0/96), NAT64 (well-known with a private IPv4 inside, and local-use),
    // Teredo and the rest of 2001::/23, site-local, discard-only, 6to4 relay, 6to4 with private inside.
    "https://[::ffff:0:10.0.0.1]/",
    "https://[::ffff:0:7f00:1]/",
    "https://[64:ff9b::127.0.0.1]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://[64:ff9b:1::5db8:d822]/",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "https://[2001:2::1]/",
    "https://[2001:10::1]/",
    "https://[fec0::1]/",
    "https://[100::1]/",
    "https://192.88.99.1/",
    "https://[2002:a00:1::1]/",
    "https://[2002:7f00:1::]/",
    "https://[2002:a9fe:a9fe::1]/",
    "https://[3fff::1]/",
    "https://0.255.255.255/",
    "https://198.19.255.255/",
    "https://239.255.255.250/",
    "https://[ff05::2]/",
    "https://250.1.2.3/",
    "http://93.184.216.34/",
    "ftp://93.184.216.34/",
    "https://user:pass@93.184.216.34/",
    `https://93.184.216.34/${"a".repeat(2048)}`,
    "not a url",
  ];

  it.each(refused)("refuses %s", async (url) => {
    const checked = await checkWebhookUrl(url, { allowInsecure: false, resolve: noDns });
    expect(checked.ok).toBe(false);
  });

  it("refuses a name that resolves to a private address (any of them), with the reason", async () => {
    const checked = await checkWebhookUrl("https://hooks.example/x", {
      allowInsecure: false,
      resolve: resolvesTo("93.184.216.34", "10.1.2.3"),
    });
    expect(checked).toEqual({ ok: false, reason: "hooks.example resolves to 10.1.2.3, a private address" });
    expect((await checkWebhookUrl("https://localhost/x", { allowInsecure: false })).ok).toBe(false);
  });

  it("accepts https to public addresses, unresolvable names (checked again per attempt), and http/loopback when insecure", async () => {
    for (const url of [
      "https://93.184.216.34/hook",
      "https://8.8.8.8/",
      "https://[2606:4700::1111]/",
      "https://[::ffff:93.184.216.34]/",
    ]) {
      expect((await checkWebhookUrl(url, { allowInsecure: false, resolve: noDns })).ok, url).toBe(true);
    }
    expect(
      (await checkWebhookUrl("https://hooks.example/x", { allowInsecure: false, resolve: resolvesTo("93.184.216.34") }))
        .ok,
    ).toBe(true);
    expect((await checkWebhookUrl("https://nowhere.invalid/x", { allowInsecure: false, resolve: noDns })).ok).toBe(
      true,
    );
    expect((await checkWebhookUrl("http://127.0.0.1:9/x", { allowInsecure: true })).ok).toBe(true);
    expect((await checkWebhookUrl("ftp://127.0.0.1/x", { allowInsecure: true })).ok).toBe(false);
  });

  it("classifies addresses", () => {
    for (const [ip, reason] of [
      ["93.184.216.34", null],
      ["::ffff:0:10.0.0.1", "IPv4-embedded private"],
      ["::ffff:0:5db8:d822", null],
      ["64:ff9b::10.1.2.3", "IPv4-embedded private"],
      ["64:ff9b::93.184.216.34", null],
      ["64:ff9b:1::93.184.216.34", "NAT64 local-use"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
      ["2001:2::1", "reserved"],
      ["2002:c0a8:101::1", "IPv4-embedded private"],
      ["2002:5db8:d822::1", null],
      ["fec0::1", "site-local"],
      ["100::1", "discard-only"],
      ["192.88.99.1", "6to4 relay"],
      ["0.1.2.3", "unspecified"],
      ["198.18.0.1", "benchmarking"],
      ["240.0.0.1", "reserved"],
      ["224.0.0.251", "multicast"],
      ["ff02::fb", "multicast"],
      ["fe80::1%eth0", "link-local"],
      ["2a00:1450:4001::1", null],
    ] as const) {
      expect(classifyAddress(ip), ip).toBe(reason);
    }
    expect(classifyAddress("93.184.216.34")).toBeNull();
    expect(classifyAddress("127.0.0.1")).toBe("loopback");
    expect(classifyAddress("100.127.255.255")).toBe("CGNAT");
    expect(classifyAddress("::ffff:169.254.169.254")).toBe("IPv4-embedded link-local");
    expect(classifyAddress("2606:4700::1111")).toBeNull();
  });

  it("WEBHOOK_ALLOW_INSECURE lets through loopback and private receivers only, never link-local, unspecified or reserved", async () => {
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://[::1]:9/x",
      "http://10.0.0.5/x",
      "http://192.168.1.20:8080/x",
      "http://172.20.0.2/x",
      "http://[fd00::5]/x",
      "https://93.184.216.34/x",
    ]) {
      expect((await checkWebhookUrl(url, { allowInsecure: true, resolve: noDns })).ok, url).toBe(true);
    }
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://[::ffff:169.254.169.254]/",
      "http://[fe80::1]/",
      "http://0.0.0.0:9/x",
      "http://[::]:9/x",
      "http://100.64.0.1/",
      "http://198.18.0.1/",
      "http://240.0.0.1/",
      "http://224.0.0.1/",
      "http://[::ffff:127.0.0.1]/",
      "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    ]) {
      expect((await checkWebhookUrl(url, { allowInsecure: true, resolve: noDns })).ok, url).toBe(false);
    }
    expect(
      await checkWebhookUrl("http://metadata.internal/x", {
        allowInsecure: true,
        resolve: resolvesTo("169.254.169.254"),
      }),
    ).toEqual({
      ok: false,
      reason: "metadata.internal resolves to 169.254.169.254, a link-local address",
    });
    expect(refusedAddress("192.168.0.1", true)).toBeNull();
    expect(refusedAddress("192.168.0.1", false)).toBe("private");
    expect(refusedAddress("169.254.169.254", true)).toBe("link-local");
  });

  it("safeLookup refuses at connect time when a name now points inside, and hands back only a checked address", async () => {
    const lookup = (allow: boolean, addresses: string[]) =>
      new Promise<{ err: Error | null; address: unknown }>((resolve) =>
        safeLookup(allow, resolvesTo(...addresses))("hooks.example", {}, (err, address) => resolve({ err, address })),
      );
    expect((await lookup(false, ["93.184.216.34", "127.0.0.1"])).err?.message).toMatch(
      /refused address.*127\.0\.0\.1.*loopback/,
    );
    expect(await lookup(false, ["93.184.216.34", "8.8.8.8"])).toEqual({ err: null, address: "93.184.216.34" });
    expect(await lookup(true, ["127.0.0.1"])).toEqual({ err: null, address: "127.0.0.1" });
    expect((await lookup(true, ["169.254.169.254"])).err?.message).toMatch(
      /refused address.*169\.254\.169\.254.*link-local/,
    );
    expect((await lookup(true, ["fe80::1"])).err?.message).toMatch(/refused address.*link-local/);
  });
});
