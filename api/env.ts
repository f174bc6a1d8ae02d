import type { IncomingMessage } from "node:http";
import type { Logger } from "pino";
import type { Config } from "../lib/boot/config";
import type { Services } from "../lib/core/context";
import type { Store } from "../lib/store/store";
import type { RateLimits } from "./rate-limit";

/** What the API door needs from the process that mounts it. */
export interface ApiDeps {
  store: Store;
  config: Config;
  services: Services;
  rateLimits: RateLimits;
  logger: Logger;
}

export interface ApiEnv {
  /** From @hono/node-server when node:http serves the app (absent when a test calls app.fetch). */
  Bindings: {
    incoming?: IncomingMessage;
  };
  Variables: {
    requestId: string;
    /** The connection's address (api/client-ip.ts), read once by the middleware. */
    clientIp?: string;
    /** X-Request-Id and RateLimit-*: set before any route runs, added to every answer (api/respond.ts). */
    answerHeaders?: Record<string, string>;
  };
}
