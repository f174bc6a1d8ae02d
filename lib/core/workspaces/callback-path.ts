// The way back after signing in (?callbackUrl=…): same-origin paths only, never another site.

/**
 * Where to go after signing in: a same-origin path ("/catalog/atelier/gradient?x=1"), else null.
 * Absolute URLs, protocol-relative ("//host") and backslash tricks ("/\\host") are refused.
 */
export function safeCallbackPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2000) return null;
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return null;
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return null;
  try {
    const url = new URL(value, "http://same.origin");
    if (url.origin !== "http://same.origin") return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}
