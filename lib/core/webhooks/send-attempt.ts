// One delivery attempt: POST the signed body, connect only to a checked address, follow no
// redirect, stop at the timeout, keep at most 20 kB of the answer. Never throws for the network:
// every outcome is an AttemptResult to record.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { refusedAddress, safeLookup } from "../../primitives/http/ssrf";

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  status: number | null;
  latencyMs: number;
  /** The first 20 kB of the answer, as text (whole characters, without U+0000). */
  responseBody: string;
  /** Why it failed, for people; null on success. */
  error: string | null;
  /** From Retry-After (seconds or an HTTP date), when the receiver sent one. */
  retryAfterSeconds: number | null;
  /** The receiver answered 410 Gone: it wants no more deliveries. */
  gone: boolean;
}

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function describeError(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err.message.startsWith("refused address")) return err.message;
  if (err.name === "TimeoutError" || err.code === "ETIMEDOUT" || err.message === "timeout")
    return `no answer within ${timeoutMs / 1000} s (timeout)`;
  if (err.code === "ECONNREFUSED") return "connection refused";
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return "the host name does not resolve";
  if (err.code === "ECONNRESET") return "the connection was reset";
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

export function sendAttempt(options: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowInsecure: boolean;
  maxBodyBytes?: number;
}): Promise<AttemptResult> {
  const maxBody = options.maxBodyBytes ?? 20_480;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    let settled = false;
    // Set once the request exists; a failure before that has no timer to clear.
    const deadline: { timer?: NodeJS.Timeout } = {};
    const finish = (result: Omit<AttemptResult, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline.timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const failure = (error: string) =>
      finish({ ok: false, status: null, responseBody: "", error, retryAfterSeconds: null, gone: false });

    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      return failure("the URL is not valid");
    }
    const transport =
      url.protocol === "https:" ? https : url.protocol === "http:" && options.allowInsecure ? http : null;
    if (!transport) return failure(`webhook URLs must use https (got ${url.protocol})`);
    // An address in the URL is connected to without a lookup: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    const literalReason = isIP(literal) !== 0 ? refusedAddress(literal, options.allowInsecure) : null;
    if (literalReason) return failure(`refused address: ${literal} is a ${literalReason} address`);

    const body = Buffer.from(options.body);
    const request = transport.request(url, {
      method: "POST",
      headers: { ...options.headers, "content-length": String(body.byteLength) },
      lookup: safeLookup(options.allowInsecure) as never,
      agent: false,
    });
    deadline.timer = setTimeout(() => {
      request.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" }));
    }, options.timeoutMs);

    request.on("error", (err: NodeJS.ErrnoException) => failure(describeError(err, options.timeoutMs)));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        // Streaming decode holds back a character cut in two by the limit instead of mangling it;
        // U+0000 goes (PostgreSQL text refuses it).
        const text = new TextDecoder("utf-8", { ignoreBOM: true })
          .decode(Buffer.concat(chunks).subarray(0, maxBody), { stream: true })
          .replaceAll("\u0000", "");
        const ok = status >= 200 && status < 300;
        const redirect = status >= 300 && status < 400;
        finish({
          ok,
          status,
          responseBody: text,
          error: ok ? null : redirect ? `redirect (${status}) not followed` : `the receiver answered ${status}`,
          retryAfterSeconds: ok ? null : parseRetryAfter(response.headers["retry-after"]),
          gone: status === 410,
        });
        response.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        if (size < maxBody) chunks.push(chunk);
        size += chunk.byteLength;
        if (size >= maxBody) done();
      });
      response.on("end", done);
      response.on("error", done);
    });
    request.end(body);
  });
}
