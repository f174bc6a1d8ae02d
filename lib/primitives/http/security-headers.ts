// Response headers set once per request in server.ts, before the API or the studio answers.
// Every answer: no MIME sniffing (a blob or a JSON body is never run as HTML or script) and no
// full address in Referer to other sites. Studio pages also: no framing by any site
// (clickjacking of /keys and the like) and a script policy with a nonce per answer.
import { randomBytes } from "node:crypto";

/** On every answer: API, studio, /healthz and the rest. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

/** A fresh nonce for one studio answer: 16 random bytes, base64 (what CSP's 'nonce-…' takes). */
export function newScriptNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The studio's Content-Security-Policy. Scripts: only those carrying this answer's nonce, and
 * what they load ('strict-dynamic': Next's chunks, loaded by its nonce'd runtime). Next reads the
 * nonce from the request's own policy header (server.ts sets it) and puts it on its inline RSC
 * and hydration scripts; the root layout puts it on its early-input script. Without a nonce (a
 * file under /_next/static, never run as a page) scripts are same-origin only. 'self' is kept
 * for browsers without 'strict-dynamic'; browsers with it ignore 'self' there. Images, media and
 * fetches are left open: outputs may come from an S3 bucket's address. Dev mode (next dev) also
 * needs eval for React's debugging.
 */
export function studioContentSecurityPolicy(dev: boolean, nonce: string | null): string {
  const scripts = nonce === null ? "'self'" : `'self' 'nonce-${nonce}' 'strict-dynamic'`;
  return [
    "default-src 'self'",
    `script-src ${scripts}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src * data: blob:",
    "media-src * data: blob:",
    "connect-src *",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The script nonce a studio policy names, as the root layout reads it from the request; undefined without one. */
export function scriptNonceOf(policy: string | null | undefined): string | undefined {
  return policy?.match(/(?:^|;)\s*script-src\s[^;]*'nonce-([A-Za-z0-9+/_=-]+)'/)?.[1];
}

/**
 * On studio answers (pages, their assets, the studio's own /api routes), for the request at
 * `path`. Every answer but a static file gets its own nonce, so one page's nonce says nothing
 * of the next.
 */
export function studioSecurityHeaders(dev: boolean, path: string): Readonly<Record<string, string>> {
  const nonce = path.startsWith("/_next/static/") ? null : newScriptNonce();
  return {
    "Content-Security-Policy": studioContentSecurityPolicy(dev, nonce),
    // For browsers that predate frame-ancestors.
    "X-Frame-Options": "DENY",
  };
}

/**
 * On /v1/blobs answers: the bytes are shown, never run. `sandbox` makes an HTML or SVG body opened
 * at its link an origin-less document with no script, so bytes cannot act as the studio's origin.
 */
export const BLOB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "sandbox",
  "X-Frame-Options": "DENY",
};
