// Where webhook deliveries may go (docs/api.md, "Webhook deliveries"): https to public addresses only, checked when
// a URL is registered and again at every connection, against every resolved address; the
// connection then goes to the checked address (safeLookup), so a name cannot re-resolve elsewhere.
// WEBHOOK_ALLOW_INSECURE=1 (development) adds http:// and loopback/private receivers, no more.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

// IANA's special-purpose registries (IPv4 and IPv6), checked with node:net's BlockList; an IPv6
// address that carries an IPv4 one (below) is judged by the IPv4 address it carries.
const BLOCKED: [string, string, number, "ipv4" | "ipv6"][] = [
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["CGNAT", "100.64.0.0", 10, "ipv4"],
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["reserved", "192.0.0.0", 24, "ipv4"],
  ["documentation", "192.0.2.0", 24, "ipv4"],
  ["6to4 relay", "192.88.99.0", 24, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  ["benchmarking", "198.18.0.0", 15, "ipv4"],
  ["documentation", "198.51.100.0", 24, "ipv4"],
  ["documentation", "203.0.113.0", 24, "ipv4"],
  ["multicast", "224.0.0.0", 4, "ipv4"],
  ["reserved", "240.0.0.0", 4, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "::1", 128, "ipv6"],
  ["discard-only", "100::", 64, "ipv6"],
  // NAT64 for local use (RFC 8215): translates into the operator's own network.
  ["NAT64 local-use", "64:ff9b:1::", 48, "ipv6"],
  // Teredo (2001::/32) tunnels to an obfuscated IPv4 address; the rest of 2001::/23 are IETF
  // protocol assignments (benchmarking, ORCHID, …), none of them a receiver.
  ["Teredo", "2001::", 32, "ipv6"],
  ["reserved", "2001::", 23, "ipv6"],
  ["documentation", "2001:db8::", 32, "ipv6"],
  ["documentation", "3fff::", 20, "ipv6"],
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "fe80::", 10, "ipv6"],
  ["site-local", "fec0::", 10, "ipv6"],
  ["multicast", "ff00::", 8, "ipv6"],
];

const blocks = BLOCKED.map(([reason, network, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { reason, list, family };
});

/**
 * The IPv4 address an IPv6 address carries — mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d,
 * compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD:: — or null.
 */
function embeddedIpv4(ip: string): string | null {
  const groups = expandIpv6(ip);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6]!, groups[7]!); // ::ffff:0:a.b.c.d
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return v4(groups[6]!, groups[7]!); // ::a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!); // 64:ff9b::/96
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 6to4
  return null;
}

/** Eight 16-bit groups of an IPv6 address (dotted tail allowed), or null when it is not one. */
function expandIpv6(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === null ? [] : Array<string>(8 - left.length - right.length).fill("0");
  const groups = [...left, ...fill, ...right].map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

/** Null when `ip` is a public address deliveries may go to; else why not. */
export function classifyAddress(address: string): string | null {
  // A zone (fe80::1%eth0) says which interface, not which address.
  const ip = address.replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 0) return "not an IP address";
  if (family === 4) {
    if (ip === "255.255.255.255") return "broadcast";
    return blocks.find((b) => b.family === "ipv4" && b.list.check(ip, "ipv4"))?.reason ?? null;
  }
  const inner = embeddedIpv4(ip);
  if (inner !== null) {
    const reason = classifyAddress(inner);
    return reason === null ? null : `IPv4-embedded ${reason}`;
  }
  if (expandIpv6(ip) === null) return "not an IP address";
  return blocks.find((b) => b.family === "ipv6" && b.list.check(ip, "ipv6"))?.reason ?? null;
}

/**
 * What WEBHOOK_ALLOW_INSECURE=1 lets through besides http://: a receiver on this machine or on
 * the local network (development). Link-local (cloud metadata at 169.254.169.254), unspecified
 * (0.0.0.0 reaches this machine on Linux), CGNAT, IPv4-embedded and the reserved ranges stay refused.
 */
const INSECURE_ALLOWS = new Set(["loopback", "private"]);

/** Null when deliveries may go to `ip` under these settings; else why not. */
export function refusedAddress(ip: string, allowInsecure: boolean): string | null {
  const reason = classifyAddress(ip);
  return reason !== null && allowInsecure && INSECURE_ALLOWS.has(reason) ? null : reason;
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) =>
      err ? reject(err) : resolve(addresses.map((a) => a.address)),
    ),
  );

function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The registration check. Names that do not resolve now are accepted: every attempt checks
 * again, and refuses to connect where the name then points somewhere it must not.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allowInsecure: boolean; resolve?: Resolver },
): Promise<{ ok: true; url: URL } | { ok: false; reason: string }> {
  if (raw.length > 2048) return { ok: false, reason: "webhook URLs are at most 2048 characters" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "it is not an absolute URL" };
  }
  const schemes = options.allowInsecure ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol))
    return { ok: false, reason: `webhook URLs must use ${options.allowInsecure ? "https or http" : "https"}` };
  if (url.username || url.password) return { ok: false, reason: "webhook URLs must not carry a user name or password" };
  const host = hostOf(url);
  if (!host) return { ok: false, reason: "the URL has no host" };
  if (isIP(host) !== 0) {
    const reason = refusedAddress(host, options.allowInsecure);
    return reason === null ? { ok: true, url } : { ok: false, reason: `${host} is a ${reason} address` };
  }
  let addresses: string[];
  try {
    addresses = await (options.resolve ?? systemResolver)(host);
  } catch {
    return { ok: true, url };
  }
  for (const address of addresses) {
    const reason = refusedAddress(address, options.allowInsecure);
    if (reason !== null) return { ok: false, reason: `${host} resolves to ${address}, a ${reason} address` };
  }
  return { ok: true, url };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request: resolves the name, refuses when any address is refused (see
 * refusedAddress), and hands back only the first checked address.
 */
export function safeLookup(allowInsecure: boolean, resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
    const addresses = isIP(host) !== 0 ? Promise.resolve([host]) : resolve(host);
    addresses.then(
      (list) => {
        if (list.length === 0)
          return callback(Object.assign(new Error(`${host} has no address`), { code: "ENOTFOUND" }), "", 4);
        for (const address of list) {
          const reason = refusedAddress(address, allowInsecure);
          if (reason !== null) {
            return callback(
              Object.assign(new Error(`refused address: ${host} resolves to ${address}, a ${reason} address`), {
                code: "EREFUSEDADDRESS",
              }),
              "",
              4,
            );
          }
        }
        const address = list[0]!;
        const family = isIP(address);
        if (typeof options === "object" && options?.all) return callback(null, [{ address, family }]);
        callback(null, address, family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 4),
    );
  };
}
