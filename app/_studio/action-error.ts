// What a studio server action answers when lib/core throws, mirroring the API door
// (api/respond.ts): an ApiError goes back as it is (code, message, param) for the form to place;
// an unreachable store answers service_unavailable ("try again in 2 s"); anything else is logged
// under a new req_ id and the answer carries that id, so the person who sees "Reference req_…" can
// give ops something that finds the log line.
import { unstable_rethrow } from "next/navigation";
import type { Logger } from "pino";
import { config } from "@/lib/boot/config";
import { ApiError, storeUnavailableError } from "@/lib/primitives/errors";
import { newId } from "@/lib/primitives/ids";
import { createLogger } from "@/lib/primitives/logger";
import { logStoreUnreachable, storeUnreachable } from "@/lib/primitives/unreachable";

export interface ActionError {
  code: string;
  message: string;
  param: string | null;
  /** Only for an unexpected error: the id of its server log line. */
  request_id: string | null;
}

let logger: Logger | undefined;

export function actionError(err: unknown): ActionError {
  // redirect() and notFound() are Next's control flow, not failures: let them through.
  unstable_rethrow(err);
  if (err instanceof ApiError) return { code: err.code, message: err.message, param: err.param, request_id: null };
  logger ??= createLogger(config().logLevel);
  if (storeUnreachable(err)) {
    // An outage, not a bug: the same 503 answer as the API's, logged briefly.
    logStoreUnreachable(logger, err, { door: "studio" });
    const unavailable = storeUnavailableError();
    return { code: unavailable.code, message: unavailable.message, param: null, request_id: null };
  }
  const requestId = newId("request");
  logger.error({ err, requestId, door: "studio" }, "unexpected error");
  return {
    code: "internal_error",
    message: `Something went wrong on our side. Reference ${requestId}.`,
    param: null,
    request_id: requestId,
  };
}
