// The caller's address: the connection's, as node:http gives it (a header a client sends is never
// believed). The IP rate limit counts it; the audit log keeps it with each change a key makes.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { plainAddress } from "../lib/primitives/http/client-address";

/** undefined when there is no connection (a test calling app.fetch). */
export function clientIp(c: Context): string | undefined {
  try {
    const address = getConnInfo(c).remote.address;
    return address === undefined ? undefined : plainAddress(address);
  } catch {
    return undefined;
  }
}
