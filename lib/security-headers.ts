// Response headers set once per request in server.ts, before the API or the studio answers.
// Every answer: no MIME sniffing (a blob or a JSON body is never run as HTML or script) and no
// full address in Referer to other sites. Studio pages also: no framing by any site
// (clickjacking of /keys and the like) and a script policy.

/** On every answer: API, studio, /healthz and the rest. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

/**
 * The studio's Content-Security-Policy. Scripts: our own files, plus inline ones, because Next
 * streams the page's RSC payload and hydration data as inline scripts whose text differs per
 * page, and the root layout's early-input script runs inline too; nonces would need every page
 * rendered per request. Images, media and fetches are left open: outputs may come from an S3
 * bucket's address. Dev mode (next dev) also needs eval for React's debugging.
 */
export function studioContentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
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

/** On studio answers (pages, their assets, the studio's own /api routes). */
export function studioSecurityHeaders(dev: boolean): Readonly<Record<string, string>> {
  return {
    "Content-Security-Policy": studioContentSecurityPolicy(dev),
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
