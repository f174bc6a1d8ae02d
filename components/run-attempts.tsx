// The providers a routed run tried, in order, on the run page and the ops run page: which target,
// how it ended and how long it took. A server component: the list is written when the run ends,
// and the run page is rendered again then (the webhook deliveries refresh it).
import type { RouteAttempt } from "@/lib/core/catalog/model-definition";
import { formatDuration } from "./run-status";

// Colour plus the word, never colour alone (as the status pill).
const OUTCOMES: Record<RouteAttempt["outcome"], { label: string; tone: string }> = {
  succeeded: { label: "succeeded", tone: "bg-emerald-50 text-emerald-700 ring-emerald-200" },
  failed: { label: "failed", tone: "bg-red-50 text-red-700 ring-red-200" },
  skipped: { label: "passed over", tone: "bg-zinc-100 text-zinc-600 ring-zinc-300" },
};

export function RunAttempts({ attempts }: { attempts: readonly RouteAttempt[] }) {
  return (
    <section
      aria-label="Providers tried"
      data-testid="run-attempts"
      className="mt-6 rounded-lg border border-zinc-200 bg-white p-5"
    >
      <h2 className="text-sm font-semibold text-zinc-900">Providers tried</h2>
      <p className="mt-1 text-xs text-zinc-500">
        This entry is served by several providers, tried in turn until one produces the output.
      </p>
      <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm text-zinc-700 marker:text-xs marker:text-zinc-400">
        {attempts.map((a, i) => {
          const outcome = OUTCOMES[a.outcome];
          return (
            <li key={i} data-testid="run-attempt" data-outcome={a.outcome} data-provider={a.provider}>
              <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
                <span className="font-mono text-xs font-medium text-zinc-900">{a.provider}</span>
                <span className="font-mono text-xs break-all text-zinc-500">({a.upstream_model})</span>
                <span
                  className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${outcome.tone}`}
                >
                  {outcome.label}
                </span>
                <span title={`Started ${a.started_at}`} className="text-xs text-zinc-500 tabular-nums">
                  {formatDuration(a.ms)}
                </span>
              </div>
              {a.reason ? (
                <p
                  className={`mt-0.5 text-xs break-words ${a.outcome === "failed" ? "text-red-700" : "text-zinc-600"}`}
                >
                  {a.reason}
                </p>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
