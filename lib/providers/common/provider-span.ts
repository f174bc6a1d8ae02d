// A provider call's span (docs/operating.md, "Traces"): one try of a run at one provider —
// uploads, submit, polls, fetching the outputs — named `provider.run`, with the provider's kind,
// its id (a routed run's target), the upstream model and how the try ended.
import { isTracing, SpanKind, traced } from "../../primitives/tracing";
import { ProviderError, type ProviderConfig, type RemoteEntryConfig } from "./types";

/** `call` (a runAtProvider) in its span; tracing off, just the call. */
export function tracedProviderCall<T>(
  provider: ProviderConfig,
  entry: RemoteEntryConfig,
  signal: AbortSignal,
  call: () => Promise<T>,
): Promise<T> {
  if (!isTracing()) return call();
  return traced(
    "provider.run",
    async (span) => {
      try {
        const result = await call();
        span?.setAttribute("atelier.provider.outcome", "succeeded");
        return result;
      } catch (err) {
        // Canceled (the run's signal), an outage (unreachable, 5xx, no answer: another target may
        // take the run), or refused (bad input, a content policy).
        const outcome = signal.aborted
          ? "canceled"
          : err instanceof ProviderError && err.transient
            ? "outage"
            : "failed";
        span?.setAttribute("atelier.provider.outcome", outcome);
        throw err;
      }
    },
    {
      kind: SpanKind.CLIENT,
      attributes: () => ({
        "atelier.provider.kind": provider.kind,
        "atelier.provider.id": provider.id,
        "atelier.provider.upstream_model": entry.upstreamModel,
        "server.address": hostOf(provider.baseUrl),
      }),
    },
  );
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return "";
  }
}
