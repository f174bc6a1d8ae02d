import { describe, expect, it } from "vitest";
import { resultLinkAllowed } from "./result-links";

describe("where a provider's result links may point", () => {
  it("refuses this machine and private networks, except the provider's own host", () => {
    const hosted = "https://api.replicate.com/v1";
    expect(resultLinkAllowed(new URL("https://replicate.delivery/x/out.png"), hosted)).toBe(true);
    for (const link of ["http://127.0.0.1:8080/x", "http://localhost/x", "http://10.0.0.5/x", "http://192.168.1.2/x", "http://169.254.169.254/latest/meta-data", "http://[::1]/x", "http://printer.local/x"]) {
      expect(resultLinkAllowed(new URL(link), hosted), link).toBe(false);
    }
    // A self-hosted server on a private address serves results from its own host (any port).
    expect(resultLinkAllowed(new URL("http://10.0.0.12:9000/view?f=a.png"), "http://10.0.0.12:8188")).toBe(true);
    expect(resultLinkAllowed(new URL("http://10.0.0.13/view"), "http://10.0.0.12:8188")).toBe(false);
    expect(resultLinkAllowed(new URL("http://10.0.0.13/view"), "")).toBe(false);
  });
});
