// Requests Node's HTTP parser refuses (bad bytes in a header, headers over 16 KB, an unknown
// method, conflicting Content-Length / Transfer-Encoding, a bad chunk size, HTTP/9.9, a request
// that took too long to arrive) never reach the API: Node emits 'clientError' with the socket.
// Left alone, Node writes a bare 400 or 431. This answers them like every other answer: the
// error envelope, X-Request-Id, the RateLimit-* headers (the request counts against its IP's
// budget, as any request does), then closes the connection, since the stream is unusable.
// The same for the two requests Node parses but answers bare itself: no Host, an odd Expect.
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ApiError, toErrorResponse } from "../lib/primitives/errors";
import { newId } from "../lib/primitives/ids";
import type { ApiDeps } from "./env";
import type { RateLimitState } from "./rate-limit";
import { rateLimitHeaders } from "./rate-limit-headers";
import { COMMON_SECURITY_HEADERS } from "../lib/primitives/http/security-headers";

/** Node's default limit on the request line and headers together (--max-http-header-size). */
// Node's own limit, which --max-http-header-size may change.
const HEADER_LIMIT_BYTES = http.maxHeaderSize;

/** The answer for a parser error code: status and message; invalid_request unless said. */
export function parserRefusal(code: string | undefined, reason: string | undefined): ApiError {
  const invalid = (message: string, status = 400) => new ApiError("invalid_request", message, { status });
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return invalid(
        `The request line and headers are over ${Math.round(HEADER_LIMIT_BYTES / 1024)} KB together.`,
        431,
      );
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ApiError("payload_too_large", "The chunk extensions of the request body are too large.");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return invalid("The request did not arrive in time: send the headers and body without long pauses.", 408);
    case "HPE_INVALID_HEADER_TOKEN":
      return invalid(
        "A request header holds a character HTTP does not allow in a header name or value (such as a control character).",
      );
    case "HPE_INVALID_METHOD":
      return invalid("The request method is not an HTTP method. The API takes GET, POST, PATCH, PUT and DELETE.");
    case "HPE_INVALID_VERSION":
      return invalid("The HTTP version is not one this server speaks: send HTTP/1.1.");
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return invalid(
        `The body's length is not clear: ${reason ?? "Content-Length and Transfer-Encoding conflict"}. Send one Content-Length, or Transfer-Encoding: chunked alone.`,
      );
    case "HPE_INVALID_CHUNK_SIZE":
      return invalid("The chunked body holds an invalid chunk size.");
    default:
      return invalid(`The request is not valid HTTP/1.1${reason ? `: ${reason}` : ""}.`);
  }
}

/** A whole HTTP/1.1 response, written by hand: the socket no longer has a ServerResponse to use. */
export function rawErrorResponse(status: number, headers: Record<string, string>, body: string): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`];
  const all: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Date: new Date().toUTCString(),
    Connection: "close",
    ...COMMON_SECURITY_HEADERS,
    ...headers,
  };
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value.replace(/[\r\n]/g, " ")}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The in-flight response on a socket (Node's own field): set when a body fails after its headers parsed. */
interface HttpMessageHolder {
  _httpMessage?: { headersSent: boolean; detachSocket?: (socket: Socket) => void } | null;
}

/** Seconds after which a socket whose answer the client does not read is closed anyway. */
const CLOSE_AFTER_MS = 5_000;

type RefusalDeps = Pick<ApiDeps, "config" | "logger" | "rateLimits">;

/**
 * The envelope, X-Request-Id and RateLimit-* of an answer given outside the API's middleware.
 * The request counts against its IP's budget like any other; over it, the 429 wins, as it does
 * in the middleware.
 */
export async function refusalAnswer(
  deps: RefusalDeps,
  refusal: ApiError,
  ip: string | undefined,
): Promise<{ status: number; headers: Record<string, string>; body: string; requestId: string }> {
  const requestId = newId("request");
  let rate: RateLimitState | undefined;
  try {
    rate = await deps.rateLimits.consumeIp(ip ?? "unknown");
  } catch (limited) {
    rate = (limited as { rateLimit?: RateLimitState }).rateLimit;
    if (limited instanceof ApiError) refusal = limited;
    else deps.logger.warn({ err: limited, requestId }, "the IP rate limit could not be read");
  }
  const { status, body, headers } = toErrorResponse(refusal, requestId, deps.config.publicBaseUrl);
  return {
    status,
    headers: { "X-Request-Id": requestId, ...(rate ? rateLimitHeaders(rate) : {}), ...headers },
    body: JSON.stringify(body),
    requestId,
  };
}

/** The server's 'clientError' listener. */
export function createClientErrorHandler(deps: RefusalDeps): (err: ParserError, socket: Socket) => void {
  const answered = new WeakSet<Socket>();
  return (err, socket) => {
    // A parser keeps failing on every later chunk of the same connection: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as Socket & HttpMessageHolder)._httpMessage;
    // Nothing can be said on a socket that is gone, or mid-way through another answer (as Node does).
    if (err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    // A body that failed after its headers parsed has a handler running: it must not write into
    // this socket too. Its answer goes nowhere; this one is the answer.
    if (inFlight?.detachSocket) inFlight.detachSocket(socket);
    void answer(err, socket).catch((failure: unknown) => {
      deps.logger.warn({ err: failure }, "could not answer a request the HTTP parser refused");
      socket.destroy();
    });
  };

  async function answer(err: ParserError, socket: Socket): Promise<void> {
    const { status, headers, body, requestId } = await refusalAnswer(
      deps,
      parserRefusal(err.code, err.reason),
      socket.remoteAddress,
    );
    deps.logger.debug(
      { code: err.code, reason: err.reason, remote: socket.remoteAddress, requestId },
      "refused a request the HTTP parser could not read",
    );
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const timer = setTimeout(() => socket.destroy(), CLOSE_AFTER_MS);
    timer.unref();
    socket.end(rawErrorResponse(status, headers, body), () => {
      clearTimeout(timer);
      socket.destroy();
    });
  }
}

/**
 * Requests Node parses but would answer with a bare status of its own: one without a Host
 * header (with `requireHostHeader: false`, so it reaches us; neither door can make a URL of it),
 * and an `Expect` other than 100-continue (the server's 'checkExpectation' event).
 */
export function createRequestRefusals(deps: RefusalDeps): {
  /** The refusal for a request neither door can take, or null. */
  check(req: IncomingMessage): ApiError | null;
  /** Answers `refusal` on the request's own response, then closes the connection. */
  refuse(req: IncomingMessage, res: ServerResponse, refusal: ApiError): void;
  /** The 'checkExpectation' listener. */
  expectation(req: IncomingMessage, res: ServerResponse): void;
} {
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: ApiError) => {
    req.resume();
    void refusalAnswer(deps, refusal, req.socket.remoteAddress)
      .then(({ status, headers, body }) => {
        res.writeHead(status, {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Length": String(Buffer.byteLength(body)),
          Connection: "close",
          ...headers,
        });
        res.end(body);
      })
      .catch((failure: unknown) => {
        deps.logger.warn({ err: failure }, "could not answer a refused request");
        res.destroy();
      });
  };
  return {
    check(req) {
      if (req.headers.host === undefined || req.headers.host === "") {
        return new ApiError(
          "invalid_request",
          "The request has no Host header: send one naming the host the request is for.",
        );
      }
      return null;
    },
    refuse,
    expectation(req, res) {
      refuse(
        req,
        res,
        new ApiError(
          "invalid_request",
          `Expect: ${String(req.headers.expect).slice(0, 100)} is not something this server can meet; only 100-continue is.`,
          { status: 417 },
        ),
      );
    },
  };
}
