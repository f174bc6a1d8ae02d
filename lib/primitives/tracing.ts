// Traces (docs/operating.md, "Traces"): spans made through @opentelemetry/api only. The SDK that
// records and exports them is set up by lib/boot/tracing.ts, and only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set; until then every helper here is one check of a module
// variable and a direct call: no span, no attributes built, no context switched.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import { ApiError } from "./errors";

export type { Attributes, Span } from "@opentelemetry/api";

/** The process's tracer once the SDK is registered; null: tracing is off. */
let tracer: Tracer | null = null;

/** Whether spans are recorded in this process (OTEL_EXPORTER_OTLP_ENDPOINT set, the SDK started). */
export function isTracing(): boolean {
  return tracer !== null;
}

/** Called by lib/boot/tracing.ts once the SDK is the API's global provider; false turns tracing off again. */
export function setTracing(on: boolean): void {
  tracer = on ? trace.getTracer("atelier") : null;
}

/** What a span's body may set on it: its outcome, the attributes known only at its end. */
export type SpanBody<T> = (span: Span | undefined) => Promise<T>;

export interface TracedOptions {
  /** Built only when tracing is on. */
  attributes?: () => Attributes;
  kind?: SpanKind;
  /** A new trace, whatever span is active (work that only happens to be scheduled from a request). */
  root?: boolean;
  /** Only as the child of an active span: none is made for work that no traced request or run started. */
  childOnly?: boolean;
}

/**
 * An error thrown out of a span: recorded on it, and the span's status is ERROR; a refusal of the
 * caller's request (an ApiError under 500: bad input, no credit) only names its code.
 */
export function recordFailure(span: Span, err: unknown): void {
  if (err instanceof ApiError && err.status < 500) {
    span.setAttribute("error.type", err.code);
    return;
  }
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

function inSpan<T>(t: Tracer, name: string, options: SpanOptions, parent: Context, fn: SpanBody<T>): Promise<T> {
  return t.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * `fn` inside a span named `name` (the active span's child, or a new trace's root), ended when
 * fn settles; a throw marks it failed. Tracing off: fn(undefined), nothing else.
 */
export function traced<T>(name: string, fn: SpanBody<T>, options?: TracedOptions): Promise<T> {
  if (tracer === null) return fn(undefined);
  const active = context.active();
  if (options?.childOnly && trace.getSpan(active) === undefined) return fn(undefined);
  return inSpan(
    tracer,
    name,
    { kind: options?.kind ?? SpanKind.INTERNAL, attributes: options?.attributes?.(), root: options?.root },
    active,
    fn,
  );
}

/**
 * The active span as a W3C `traceparent` (00-trace id-span id-flags), for work another process
 * takes up later (a run's execution: the run row keeps it); null when tracing is off or no span is active.
 */
export function currentTraceparent(): string | null {
  if (tracer === null) return null;
  const active = context.active();
  if (trace.getSpan(active) === undefined) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ?? null;
}

/** The context a W3C `traceparent` (and `tracestate`) names; the root context when there is none or it does not parse. */
function remoteContext(traceparent: string | null | undefined, tracestate?: string): Context {
  if (!traceparent) return ROOT_CONTEXT;
  const carrier: Record<string, string> = tracestate ? { traceparent, tracestate } : { traceparent };
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/**
 * `fn` in a span continuing the trace `traceparent` names (its child), whatever span is active
 * here; a new trace when it is null or does not parse. Tracing off: fn(undefined).
 */
export function tracedFrom<T>(
  traceparent: string | null | undefined,
  name: string,
  fn: SpanBody<T>,
  options?: Pick<TracedOptions, "attributes" | "kind"> & { tracestate?: string },
): Promise<T> {
  if (tracer === null) return fn(undefined);
  return inSpan(
    tracer,
    name,
    { kind: options?.kind ?? SpanKind.INTERNAL, attributes: options?.attributes?.() },
    remoteContext(traceparent, options?.tracestate),
    fn,
  );
}

/** Sets an attribute on the active span (the request's, in a route), when tracing is on. */
export function setActiveSpanAttribute(name: string, value: string | number | boolean): void {
  if (tracer === null) return;
  trace.getActiveSpan()?.setAttribute(name, value);
}

/** What traceIdsForLog answers when there is nothing to add: one object, never merged into (logLineWithIds). */
const NO_IDS: { trace_id?: string; span_id?: string } = Object.freeze({});

/** The active span's trace and span IDs for a log line (pino's mixin); NO_IDS when tracing is off or none is active. */
export function traceIdsForLog(): { trace_id?: string; span_id?: string } {
  if (tracer === null) return NO_IDS;
  const span = trace.getActiveSpan();
  if (span === undefined) return NO_IDS;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * pino's mixinMergeStrategy for traceIdsForLog: a line's own fields with the IDs, when there are
 * some; pino's default merges into the mixin's object, which NO_IDS must never become.
 */
export function logLineWithIds(line: object, ids: object): object {
  return ids === NO_IDS ? line : Object.assign(ids, line);
}

export { SpanKind, SpanStatusCode };
