// For tests: what the Replicate and fal fakes share: a media host on its own origin, like
// replicate.delivery or v3.fal.media (outputs link there, their bytes from fake-media.ts; it
// records whether a key was sent), and the answers a test injects ahead of a fake's own.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface MediaHost {
  url: string;
  /** Serves `data` at a new path; returns its URL. */
  put(name: string, data: Buffer, type: string): string;
  /** Every request it got: path and headers (tests check no key was sent). */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** A file host on 127.0.0.1 (`port` 0: any free port). */
export async function startMediaHost(port = 0): Promise<MediaHost> {
  const files = new Map<string, { data: Buffer; type: string }>();
  const requests: MediaHost["requests"] = [];
  const server = createServer((req, res) => {
    const at = (req.url ?? "/").split("?")[0]!;
    requests.push({ path: at, headers: req.headers });
    const file = files.get(at);
    if (!file) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    res.writeHead(200, { "content-type": file.type, "content-length": file.data.length }).end(file.data);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    put(name, data, type) {
      const at = `/${name.replace(/^\/+/, "")}`;
      files.set(at, { data, type });
      return `${url}${at}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the Replicate and fal fakes both offer a test. */
export interface HostedFake {
  media: MediaHost;
  /** "auto": a job ends (succeeds, or fails as the provider would) as soon as it is created; "manual": only when told. */
  mode: "auto" | "manual";
  /** Every API request, as it came. */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }>;
  /** The next `times` API requests answer `status` with `body` (an outage, a rate limit…). */
  failNext(status: number, body: unknown, times?: number, headers?: Record<string, string>): void;
  /** The next `times` API requests are never answered. */
  hangNext(times?: number): void;
  close(): Promise<void>;
}

/** An answer a test injects in place of the fake's own: an error answer, or "hang" (never answered). */
export type InjectedAnswer = { status: number; body: unknown; headers: Record<string, string> } | "hang";

/** The answers injected by a fake's failNext and hangNext, taken one a request by `next`. */
export function injectedAnswers() {
  const queue: InjectedAnswer[] = [];
  return {
    /** The next `times` requests answer `status` with `body` (an outage, a rate limit…). */
    failNext(status: number, body: unknown, times = 1, headers: Record<string, string> = {}): void {
      for (let i = 0; i < times; i++) queue.push({ status, body, headers });
    },
    /** The next `times` requests are never answered. */
    hangNext(times = 1): void {
      for (let i = 0; i < times; i++) queue.push("hang");
    },
    next: (): InjectedAnswer | undefined => queue.shift(),
  };
}
