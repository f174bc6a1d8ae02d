// For tests: a real HTTP server on 127.0.0.1 (port 0) whose answers each test writes, recording
// every request as it arrives and every request whose connection closed before it was answered.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Paths of requests the client gave up on (aborted) before an answer was sent. */
  abandoned: string[];
  handle: Handler;
  close(): Promise<void>;
}

export async function startTestServer(handle: Handler): Promise<TestServer> {
  const state = { requests: [] as RecordedRequest[], abandoned: [] as string[], handle };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      state.requests.push(request);
      res.on("close", () => {
        if (!res.writableFinished) state.abandoned.push(request.path);
      });
      Promise.resolve(state.handle(request, res)).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(599).end(err.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** A recorded request's JSON body as an object ({} when it is empty or not JSON). */
export function bodyOf(request: RecordedRequest): Record<string, unknown> {
  try {
    return JSON.parse(request.body || "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The origin the client addressed (its Host header): where a fake's own links point. */
export function originOf(request: RecordedRequest): string {
  return `http://${request.headers.host ?? "127.0.0.1"}`;
}

/**
 * Resolves once `check` holds, looking every few milliseconds (for events on the server side).
 * The bound only ends a wait that would never end: generous, as a loaded 2-core CI machine needs.
 */
export async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("eventually: the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
