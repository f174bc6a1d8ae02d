import { describe, expect, it } from "vitest";
import { checkBlobLink, downloadName, signBlobLink } from "./links";

const SECRET = "links-test-secret-0123456789abcdef";
const BASE = "https://atelier.example";
const KEY = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const NOW = Date.parse("2026-11-02T10:00:00.500Z");
const DAY_MS = 24 * 3600 * 1000;

function queryOf(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams.entries());
}

describe("signed blob links", () => {
  it("points at the blob and is valid 24 hours from the read", () => {
    const link = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png");
    const url = new URL(link.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/v1/blobs/${KEY}`);
    // Whole seconds: the read's second plus 24 hours.
    expect(link.expires_at).toBe("2026-11-03T10:00:00.000Z");
    expect(queryOf(link.url)).toMatchObject({ type: "image/png", expires: String(Date.parse(link.expires_at) / 1000) });
    expect(queryOf(link.url).signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("round-trips: the link it signs is accepted with its content type", () => {
    const link = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "video/mp4");
    expect(checkBlobLink(SECRET, KEY, queryOf(link.url), NOW)).toEqual({ ok: true, contentType: "video/mp4" });
    expect(checkBlobLink(SECRET, KEY, queryOf(link.url), NOW + DAY_MS - 1000)).toEqual({
      ok: true,
      contentType: "video/mp4",
    });
  });

  it("a share page's link carries its share link's ID under the signature", () => {
    const link = signBlobLink({ secret: SECRET, baseUrl: "", now: NOW, share: "shr_AbC123" }, KEY, "image/png");
    const query = Object.fromEntries(new URL(link.url, BASE).searchParams.entries());
    expect(query.share).toBe("shr_AbC123");
    expect(checkBlobLink(SECRET, KEY, query, NOW)).toEqual({ ok: true, contentType: "image/png", share: "shr_AbC123" });
    const named = signBlobLink(
      { secret: SECRET, baseUrl: "", now: NOW, share: "shr_AbC123", filename: "a.png" },
      KEY,
      "image/png",
    );
    const namedQuery = Object.fromEntries(new URL(named.url, BASE).searchParams.entries());
    expect(checkBlobLink(SECRET, KEY, namedQuery, NOW)).toEqual({
      ok: true,
      contentType: "image/png",
      filename: "a.png",
      share: "shr_AbC123",
    });
    // Dropped or swapped for another share, the signature no longer matches; a malformed one is refused.
    const { share: _dropped, ...withoutShare } = query;
    for (const changed of [
      withoutShare,
      { ...query, share: "shr_Other1" },
      { ...query, share: "shr_AbC123\n" },
      { ...query, share: "__proto__" },
    ]) {
      expect(checkBlobLink(SECRET, KEY, changed, NOW)).toEqual({ ok: false, reason: "tampered" });
    }
    expect(() => signBlobLink({ secret: SECRET, baseUrl: "", share: "not a share" }, KEY, "image/png")).toThrow();
  });

  it("each read signs a fresh link that expires later", () => {
    const first = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png");
    const later = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW + 60_000 }, KEY, "image/png");
    expect(Date.parse(later.expires_at) - Date.parse(first.expires_at)).toBe(60_000);
    expect(later.url).not.toBe(first.url);
  });

  it("refuses a link once it has expired", () => {
    const link = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png");
    const expiresMs = Date.parse(link.expires_at);
    expect(checkBlobLink(SECRET, KEY, queryOf(link.url), expiresMs)).toEqual({ ok: false, reason: "expired" });
    expect(checkBlobLink(SECRET, KEY, queryOf(link.url), expiresMs + DAY_MS)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a tampered link: another blob, type, expiry or signature", () => {
    const link = signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png");
    const query = queryOf(link.url);
    const tampered = { ok: false, reason: "tampered" };
    expect(checkBlobLink(SECRET, `${KEY.slice(0, -1)}6`, query, NOW)).toEqual(tampered);
    expect(checkBlobLink(SECRET, KEY, { ...query, type: "text/html" }, NOW)).toEqual(tampered);
    expect(checkBlobLink(SECRET, KEY, { ...query, expires: String(Number(query.expires) + 3600) }, NOW)).toEqual(
      tampered,
    );
    const sig = query.signature!;
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    expect(checkBlobLink(SECRET, KEY, { ...query, signature: flipped }, NOW)).toEqual(tampered);
    expect(checkBlobLink("another-secret", KEY, query, NOW)).toEqual(tampered);
  });

  it("refuses a link with a missing or malformed part", () => {
    const query = queryOf(signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png").url);
    const tampered = { ok: false, reason: "tampered" };
    for (const field of ["type", "expires", "signature"] as const) {
      expect(checkBlobLink(SECRET, KEY, { ...query, [field]: undefined }, NOW)).toEqual(tampered);
    }
    for (const expires of ["", "-1", "1e9", "12.5", "1234567890123"]) {
      expect(checkBlobLink(SECRET, KEY, { ...query, expires }, NOW)).toEqual(tampered);
    }
  });

  it("signs a download name: the link answers it, and a changed, added or dropped name is refused", () => {
    const link = signBlobLink(
      { secret: SECRET, baseUrl: BASE, now: NOW, filename: "gradient-gen_abc-1.png" },
      KEY,
      "image/png",
    );
    const query = queryOf(link.url);
    expect(query.filename).toBe("gradient-gen_abc-1.png");
    expect(checkBlobLink(SECRET, KEY, query, NOW)).toEqual({
      ok: true,
      contentType: "image/png",
      filename: "gradient-gen_abc-1.png",
    });
    const tampered = { ok: false, reason: "tampered" };
    expect(checkBlobLink(SECRET, KEY, { ...query, filename: "evil.html" }, NOW)).toEqual(tampered);
    expect(checkBlobLink(SECRET, KEY, { ...query, filename: undefined }, NOW)).toEqual(tampered);
    // A header-breaking name is refused before the signature is even checked.
    expect(checkBlobLink(SECRET, KEY, { ...query, filename: 'a"; x=1' }, NOW)).toEqual(tampered);
    const plain = queryOf(signBlobLink({ secret: SECRET, baseUrl: BASE, now: NOW }, KEY, "image/png").url);
    expect(checkBlobLink(SECRET, KEY, { ...plain, filename: "gradient-gen_abc-1.png" }, NOW)).toEqual(tampered);
  });

  it("makes download names safe for a header and gives same-origin links with an empty base", () => {
    expect(downloadName("atelier/gradient@v2_gen_1.png")).toBe("atelier-gradient-v2_gen_1.png");
    expect(downloadName('../"x"\r\n.png')).toBe("x-.png");
    expect(downloadName("...")).toBe("download");
    expect(downloadName("é".repeat(300))).toBe("download");
    expect(downloadName("a".repeat(300))).toHaveLength(150);
    expect(signBlobLink({ secret: SECRET, baseUrl: "", now: NOW }, KEY, "image/png").url).toMatch(
      new RegExp(`^/v1/blobs/${KEY}\\?`),
    );
  });
});
