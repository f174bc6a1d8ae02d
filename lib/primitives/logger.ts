import pino, { type DestinationStream, type Logger } from "pino";
import { logLineWithIds, traceIdsForLog } from "./tracing";

/** `destination`: stdout unless given (tests read the lines). */
export function createLogger(level: string, name = "atelier", destination?: DestinationStream): Logger {
  // A line written inside a span carries its trace_id and span_id (lib/primitives/tracing.ts), so
  // a trace and its log lines find each other; tracing off, the mixin adds nothing.
  const options = { name, level, mixin: traceIdsForLog, mixinMergeStrategy: logLineWithIds };
  return destination ? pino(options, destination) : pino(options);
}
