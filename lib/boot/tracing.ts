// The one place the OpenTelemetry SDK is set up (docs/operating.md, "Traces"). With no OTLP
// endpoint configured nothing here runs and nothing of the SDK is loaded: the code's spans go
// through @opentelemetry/api (lib/primitives/tracing.ts), which does nothing without a provider.
// With one, the SDK is loaded then (dynamic imports), registered as the API's global provider with
// the W3C trace-context propagator and an AsyncLocalStorage context, and exports in batches over
// OTLP/HTTP with JSON bodies. The SDK reads the standard OTEL_* variables itself: the endpoint and
// its headers, timeout and compression, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, the
// sampler (OTEL_TRACES_SAMPLER, _ARG) and the batch's delays and sizes (OTEL_BSP_*).
import type { Logger } from "pino";
import { setTracing } from "../primitives/tracing";
import type { Config } from "./config";

export interface Tracing {
  /** Sends the spans ended so far (tests; a process about to exit). */
  flush(): Promise<void>;
  /** Flushes, then stops exporting; the API is a no-op again. */
  shutdown(): Promise<void>;
}

/**
 * Starts exporting spans when the configuration names an OTLP endpoint; null (and nothing loaded)
 * otherwise. `serviceName` is the resource's service.name unless OTEL_SERVICE_NAME sets another.
 */
export async function startTracing(
  config: Pick<Config, "traces">,
  serviceName: string,
  logger?: Logger,
): Promise<Tracing | null> {
  if (!config.traces) return null;
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources, semconv] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/semantic-conventions"),
    ]);
  // The SDK's own troubles (an export the collector refused or never answered) in the log, not on stderr.
  if (logger) {
    const log =
      (level: "warn" | "error") =>
      (message: string, ...args: unknown[]) =>
        logger[level]({ otel: args.length > 0 ? args : undefined }, `OpenTelemetry: ${message}`);
    api.diag.setLogger(
      { error: log("error"), warn: log("warn"), info: () => {}, debug: () => {}, verbose: () => {} },
      api.DiagLogLevel.WARN,
    );
  }
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the process's own name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // The URL as the configuration read it (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
  // OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces); headers, timeout and compression from the
  // environment (OTEL_EXPORTER_OTLP_HEADERS…). It posts JSON (application/json).
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.traces.url }))],
  });
  // The default context manager (AsyncLocalStorage) and propagator (W3C trace context and baggage).
  provider.register();
  setTracing(true);
  logger?.info({ url: config.traces.url, service: serviceName }, "traces are exported over OTLP/HTTP");
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracing(false);
      await provider.shutdown().catch((err: unknown) => logger?.warn({ err }, "the last spans could not be exported"));
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
      api.diag.disable();
    },
  };
}
