// A connection's address as people read it: an IPv4 client of a dual-stack socket shows as
// "::ffff:127.0.0.1"; the IPv4 address alone is the same client, and what the audit log keeps.
import { isIPv4 } from "node:net";

export function plainAddress(address: string): string {
  const mapped = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : null;
  return mapped !== null && isIPv4(mapped) ? mapped : address;
}
