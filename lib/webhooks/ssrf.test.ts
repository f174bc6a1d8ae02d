import { describe, expect, it } from "vitest";
import { checkWebhookUrl, classifyAddress, safeLookup } from "./ssrf";

const noDns = async (): Promise<string[]> => {
  throw Object.assign(new Error("no DNS in tests"), { code: "ENOTFOUND" });
};
const resolvesTo = (...addresses: string[]) => async () => addresses;

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
    const checked = await checkWebhookUrl("https://hooks.example/x", { allowInsecure: false, resolve: resolvesTo("93.184.216.34", "10.1.2.3") });
    expect(checked).toEqual({ ok: false, reason: "hooks.example resolves to 10.1.2.3, a private address" });
    expect((await checkWebhookUrl("https://localhost/x", { allowInsecure: false })).ok).toBe(false);
  });

  it("accepts https to public addresses, unresolvable names (checked again per attempt), and http/loopback when insecure", async () => {
    for (const url of ["https://93.184.216.34/hook", "https://8.8.8.8/", "https://[2606:4700::1111]/", "https://[::ffff:93.184.216.34]/"]) {
      expect((await checkWebhookUrl(url, { allowInsecure: false, resolve: noDns })).ok, url).toBe(true);
    }
    expect((await checkWebhookUrl("https://hooks.example/x", { allowInsecure: false, resolve: resolvesTo("93.184.216.34") })).ok).toBe(true);
    expect((await checkWebhookUrl("https://nowhere.invalid/x", { allowInsecure: false, resolve: noDns })).ok).toBe(true);
    expect((await checkWebhookUrl("http://127.0.0.1:9/x", { allowInsecure: true })).ok).toBe(true);
    expect((await checkWebhookUrl("ftp://127.0.0.1/x", { allowInsecure: true })).ok).toBe(false);
  });

  it("classifies addresses", () => {
    expect(classifyAddress("93.184.216.34")).toBeNull();
    expect(classifyAddress("127.0.0.1")).toBe("loopback");
    expect(classifyAddress("100.127.255.255")).toBe("CGNAT");
    expect(classifyAddress("::ffff:169.254.169.254")).toBe("IPv4-embedded link-local");
    expect(classifyAddress("2606:4700::1111")).toBeNull();
  });

  it("safeLookup refuses at connect time when a name now points inside, and hands back only a checked address", async () => {
    const lookup = (allow: boolean, addresses: string[]) =>
      new Promise<{ err: Error | null; address: unknown }>((resolve) =>
        safeLookup(allow, resolvesTo(...addresses))("hooks.example", {}, (err, address) => resolve({ err, address })),
      );
    expect((await lookup(false, ["93.184.216.34", "127.0.0.1"])).err?.message).toMatch(/refused address.*127\.0\.0\.1.*loopback/);
    expect(await lookup(false, ["93.184.216.34", "8.8.8.8"])).toEqual({ err: null, address: "93.184.216.34" });
    expect(await lookup(true, ["127.0.0.1"])).toEqual({ err: null, address: "127.0.0.1" });
  });
});
