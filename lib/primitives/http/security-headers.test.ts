// The studio policy's nonce: fresh per answer, in the form Next reads from the request's policy
// (base64 in script-src; e2e/studio/security.spec.ts sees it on the page's scripts), read back by
// the root layout, and none on static files.
import { describe, expect, it } from "vitest";
import { scriptNonceOf, studioContentSecurityPolicy, studioSecurityHeaders } from "./security-headers";

function scriptSrc(policy: string): string {
  return policy.split("; ").find((d) => d.startsWith("script-src ")) ?? "";
}

describe("studio security headers", () => {
  it("give each page answer its own nonce, which the root layout reads back", () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const policy = studioSecurityHeaders(false, "/catalog?modality=video")["Content-Security-Policy"]!;
      const nonce = scriptNonceOf(policy);
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(scriptSrc(policy)).toBe(`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(50);
  });

  it("allow no inline script without the nonce, and eval only in dev", () => {
    const prod = studioContentSecurityPolicy(false, "bm9uY2Vub25jZW5vbmNlMQ==");
    expect(scriptSrc(prod)).not.toContain("unsafe-inline");
    expect(prod).not.toContain("unsafe-eval");
    expect(scriptSrc(studioContentSecurityPolicy(true, "bm9uY2Vub25jZW5vbmNlMQ=="))).toContain("'unsafe-eval'");
    expect(prod).toContain("frame-ancestors 'none'");
  });

  it("spend no nonce on static files", () => {
    const policy = studioSecurityHeaders(false, "/_next/static/chunks/app.js")["Content-Security-Policy"]!;
    expect(scriptSrc(policy)).toBe("script-src 'self'");
    expect(scriptNonceOf(policy)).toBeUndefined();
  });

  it("read a nonce from script-src only", () => {
    expect(scriptNonceOf(null)).toBeUndefined();
    expect(scriptNonceOf("style-src 'nonce-abc='")).toBeUndefined();
    expect(scriptNonceOf("default-src 'self'; script-src 'self' 'nonce-abc=' 'strict-dynamic'")).toBe("abc=");
  });
});
