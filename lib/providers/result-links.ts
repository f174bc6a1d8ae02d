// Where a provider's result links may point. A provider's answer names the URL Atelier fetches,
// so a link to this machine or a private network is refused (it would let a provider, or whoever
// speaks for it, make the server read internal addresses), except on the provider's own host:
// a self-hosted server on a private address serves its results from there.
import { isIP } from "node:net";
import { classifyAddress } from "../webhooks/ssrf";

/** localhost, *.local, or an IP literal in a loopback, private or link-local range. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  return isIP(host) !== 0 && classifyAddress(host) !== null;
}

/** Whether a result link may be fetched for a provider whose base URL is `providerBaseUrl`. */
export function resultLinkAllowed(url: URL, providerBaseUrl: string): boolean {
  if (!isLocalHost(url.hostname)) return true;
  try {
    return new URL(providerBaseUrl).hostname === url.hostname;
  } catch {
    return false;
  }
}
