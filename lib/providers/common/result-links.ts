// Where a provider's result links may point. A provider's answer names the URL Atelier fetches,
// so a link to this machine or a private network is refused (it would let a provider, or whoever
// speaks for it, make the server read internal addresses), except on the provider's own host:
// a self-hosted server on a private address serves its results from there.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyAddress } from "../../primitives/http/ssrf";

/** localhost, *.local, or an IP literal in a loopback, private or link-local range. */
export function isLocalHost(hostname: string): boolean {
  const host = bare(hostname);
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  return isIP(host) !== 0 && classifyAddress(host) !== null;
}

function bare(hostname: string): string {
  return hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
}

/** Whether `url` is on the host of `providerBaseUrl` (any port). */
export function onProviderHost(url: URL, providerBaseUrl: string): boolean {
  try {
    return new URL(providerBaseUrl).hostname === url.hostname;
  } catch {
    return false;
  }
}

/** Whether a result link may be fetched for a provider whose base URL is `providerBaseUrl`. */
export function resultLinkAllowed(url: URL, providerBaseUrl: string): boolean {
  return !isLocalHost(url.hostname) || onProviderHost(url, providerBaseUrl);
}

/** Every address a name resolves to (tests pass their own). */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Why `url` must not be fetched for the provider at `providerBaseUrl`, or null: resultLinkAllowed,
 * and for a name that is not the provider's own host, every address it resolves to (a public name
 * pointed at 127.0.0.1 is as local as 127.0.0.1). A name that does not resolve is left to the
 * fetch, which then fails on it. The connection resolves the name again, under the same rule
 * (guarded-fetch.ts's dispatcher), so a name that changes its answer in between (DNS rebinding)
 * is refused there.
 */
export async function resultLinkRefusal(
  url: URL,
  providerBaseUrl: string,
  resolve: Resolve = systemResolve,
): Promise<string | null> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return "not an http(s) link";
  if (!resultLinkAllowed(url, providerBaseUrl)) return "a local or private address";
  if (isIP(bare(url.hostname)) !== 0 || onProviderHost(url, providerBaseUrl)) return null;
  const addresses = await resolve(bare(url.hostname)).catch(() => [] as string[]);
  return addresses.some((address) => classifyAddress(address) !== null) ? "a name of a local or private address" : null;
}
