// The one fetch for URLs a provider names (result links, polling URLs, upload targets): every
// request and every redirect hop (followed here, with `redirect: "manual"`, so no hop escapes the
// check) must pass result-links.ts's rule — no local or private address (by IP, by name, or by
// what a name resolves to) other than the provider's own host — and the key's headers go only to
// the provider's API origin and the domains it names. Redirects are followed for GET and HEAD only; other methods get the 3xx.
// Names are checked twice: before the request (a clear refusal) and by the connection itself,
// which resolves the name once more and connects only to the addresses it checked (undici's
// connect lookup), so a name whose answer changes in between (DNS rebinding) gets nowhere.
import { isIP } from "node:net";
import type { Agent } from "undici";
import { classifyAddress } from "../../primitives/http/ssrf";
import { resultLinkRefusal, systemResolve, type Resolve } from "./result-links";

export type FetchFunction = typeof globalThis.fetch;

/** Request headers that carry a provider's key (each provider names its own). */
const KEY_HEADERS = new Set(["authorization", "x-key", "x-api-key", "xi-api-key", "x-goog-api-key", "api-key"]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

export interface GuardedFetchOptions {
  /** The provider's base URL: its host is the provider's own. */
  baseUrl: string;
  apiKey: string | null;
  /** More hosts of the provider's own (and their subdomains), e.g. fal.run for its queue host. */
  keyDomains?: readonly string[];
  /** The error a refused URL throws (each caller's failures read their own kind). */
  refused(reason: string): Error;
  /** Tests only: how names resolve. */
  resolve?: Resolve;
}

function originOf(baseUrl: string): string | null {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return null;
  }
}

const REBOUND = "ATELIER_REFUSED_ADDRESS";

/**
 * Connections that resolve a name through `resolve` and refuse it when any address is local or
 * private, unless it is the provider's own host: what is connected to is what was checked.
 */
function checkedConnections(providerBaseUrl: string, resolve: Resolve): Agent {
  let providerHost: string | null = null;
  try {
    providerHost = new URL(providerBaseUrl).hostname;
  } catch {
    providerHost = null;
  }
  type Callback = (
    err: Error | null,
    address?: string | Array<{ address: string; family: number }>,
    family?: number,
  ) => void;
  const lookup = (hostname: string, options: { all?: boolean } | undefined, callback: Callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }));
        if (hostname !== providerHost && addresses.some((address) => classifyAddress(address) !== null)) {
          return callback(
            Object.assign(new Error(`${hostname} now resolves to a local or private address`), { code: REBOUND }),
          );
        }
        if (options?.all)
          callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, addresses[0]!, isIP(addresses[0]!));
      },
      (err: Error) => callback(err),
    );
  };
  // undici loads with the first provider entry, not with every process: it would slow the admin
  // CLI's start even when no providers file is set.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Agent: UndiciAgent } = require("undici") as typeof import("undici");
  return new UndiciAgent({ connect: { lookup: lookup as never } });
}

function refusedByConnection(err: unknown): boolean {
  for (
    let cause = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    cause && depth < 5;
    cause = cause.cause as typeof cause, depth++
  ) {
    if (cause.code === REBOUND) return true;
  }
  return false;
}

/** Callers pass fetch(url, init); a Request's own body is not carried over (none passes one). */
export function guardedFetch(options: GuardedFetchOptions, inner: FetchFunction = globalThis.fetch): FetchFunction {
  const keyDomains = options.keyDomains ?? [];
  // The key goes to the provider's API origin (host and port: another port on its host may be a
  // storage server) and to the domains it names; the address rule (result-links.ts) is by host.
  const apiOrigin = originOf(options.baseUrl);
  const keyGoesTo = (url: URL) =>
    url.origin === apiOrigin || keyDomains.some((d) => url.hostname === d || url.hostname.endsWith(`.${d}`));
  const key = options.apiKey && options.apiKey.length >= 4 ? options.apiKey : null;
  const withoutKey = (headers: Headers): Headers => {
    const kept = new Headers();
    headers.forEach((value, name) => {
      if (!KEY_HEADERS.has(name) && !(key && value.includes(key))) kept.set(name, value);
    });
    return kept;
  };
  const connections = checkedConnections(options.baseUrl, options.resolve ?? systemResolve);
  return async (input, init = {}) => {
    const from = input instanceof Request ? input : null;
    const headers = new Headers(init.headers ?? from?.headers);
    const method = (init.method ?? from?.method ?? "GET").toUpperCase();
    const follow =
      (init.redirect ?? from?.redirect ?? "follow") === "follow" && (method === "GET" || method === "HEAD");
    let url = new URL(from ? from.url : String(input));
    for (let hop = 0; ; hop++) {
      const refusal = await resultLinkRefusal(url, options.baseUrl, options.resolve);
      if (refusal) throw options.refused(refusal);
      let response: Response;
      try {
        response = await inner(url.href, {
          ...init,
          method,
          headers: keyGoesTo(url) ? headers : withoutKey(headers),
          redirect: "manual",
          signal: init.signal ?? from?.signal,
          // Node's fetch takes undici's dispatcher (not in the DOM's RequestInit).
          ...({ dispatcher: connections } as RequestInit),
        });
      } catch (err) {
        if (refusedByConnection(err)) throw options.refused("a name of a local or private address");
        throw err;
      }
      const location = response.headers.get("location");
      if (!follow || !REDIRECTS.has(response.status) || !location) return response;
      await response.body?.cancel();
      if (hop === MAX_REDIRECTS) throw options.refused("too many redirects");
      url = new URL(location, url);
    }
  };
}
