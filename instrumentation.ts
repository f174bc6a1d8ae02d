// Next calls onRequestError for every failure it catches while rendering a studio page, a route
// handler or a server action. Next hands the browser only the error's digest, which the error
// page shows as the reference (components/error-state.tsx); this writes a JSON log line, beside
// the API's "unexpected error" lines, that carries that digest with the error, so ops can find it.
// (Server actions catch their own failures and log them under a req_ id: app/_studio/action-error.ts.)
import type { Instrumentation } from "next";
import type { Logger } from "pino";

let logger: Logger | undefined;

export const onRequestError: Instrumentation.onRequestError = async (err, request, context) => {
  // Only the Node.js server logs through pino; the app has no edge code.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (!logger) {
    const [{ createLogger }, { config }] = await Promise.all([
      import("./lib/primitives/logger"),
      import("./lib/boot/config"),
    ]);
    logger = createLogger(config().logLevel);
  }
  const digest = (err as { digest?: unknown }).digest;
  logger.error(
    {
      err,
      digest: typeof digest === "string" ? digest : null,
      door: "studio",
      method: request.method,
      path: request.path,
      route: context.routePath,
      routeType: context.routeType,
    },
    "unexpected error",
  );
};
