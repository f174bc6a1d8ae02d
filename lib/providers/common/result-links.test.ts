import { describe, expect, it } from "vitest";
import { resultLinkAllowed, resultLinkRefusal } from "./result-links";

describe("where a provider's result links may point", () => {
  it("refuses this machine and private networks, except the provider's own host", () => {
    const hosted = "https://api.replicate.com/v1";
    expect(resultLinkAllowed(new URL("https://replicate.delivery/x/out.png"), hosted)).toBe(true);
    for (const link of [
      "http://127.0.0.1:8080/x",
      "http://localhost/x",
      "http://10.0.0.5/x",
      "http://192.168.1.2/x",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/x",
      "http://printer.local/x",
    ]) {
      expect(resultLinkAllowed(new URL(link), hosted), link).toBe(false);
    }
    // A self-hosted server on a private address serves results from its own host (any port).
    expect(resultLinkAllowed(new URL("http://10.0.0.12:9000/view?f=a.png"), "http://10.0.0.12:8188")).toBe(true);
    expect(resultLinkAllowed(new URL("http://10.0.0.13/view"), "http://10.0.0.12:8188")).toBe(false);
    expect(resultLinkAllowed(new URL("http://10.0.0.13/view"), "")).toBe(false);
  });
});

describe("resultLinkRefusal: the rule, and what a name resolves to", () => {
  it("refuses a name any of whose addresses is local or private, except the provider's own host; IPs and unknown names are not looked up", async () => {
    const looked: string[] = [];
    const addresses: Record<string, string[]> = {
      "cdn.example": ["93.184.215.14"],
      "sneaky.example": ["93.184.215.14", "127.0.0.1"],
      "gpu.lan": ["192.168.1.20"],
      "meta.example": ["::ffff:169.254.169.254"],
    };
    const resolve = async (host: string) => {
      looked.push(host);
      if (!addresses[host]) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      return addresses[host]!;
    };
    const refusal = (link: string, base = "https://api.example/v1") => resultLinkRefusal(new URL(link), base, resolve);

    expect(await refusal("https://cdn.example/a.png")).toBeNull();
    expect(await refusal("https://sneaky.example/a.png")).toBe("a name of a local or private address");
    expect(await refusal("https://meta.example/latest")).toBe("a name of a local or private address");
    expect(await refusal("http://gpu.lan:8188/view")).toBe("a name of a local or private address");
    // A self-hosted provider's own name is its own host.
    expect(await refusal("http://gpu.lan:9000/view", "http://gpu.lan:8188")).toBeNull();
    expect(await refusal("https://nowhere.example/a.png")).toBeNull();
    expect(await refusal("http://10.0.0.5/a.png")).toBe("a local or private address");
    expect(await refusal("ftp://cdn.example/a.png")).toBe("not an http(s) link");
    expect(await refusal("https://93.184.215.14/a.png")).toBeNull();
    expect(looked).toEqual(["cdn.example", "sneaky.example", "meta.example", "gpu.lan", "nowhere.example"]);
  });
});
