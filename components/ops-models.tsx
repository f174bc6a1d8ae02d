"use client";
// The ops model panel: every catalog entry with its state (in service, paused, out of service or
// not installed, with why and the fix; a remote entry's provider health), its failure rate and
// typical run time, and pause / resume onto the same core verbs as `admin model pause|resume`.
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { pauseModelAction, resumeModelAction } from "@/app/_studio/actions/ops";
import type { OpsModel } from "@/lib/core/ops/ops";
import { formatDuration, relativeTime } from "./run-status";
import { card, ConfirmDialog, secondary } from "./webhooks-ui";

const STATE_TONES = {
  in_service: { pill: "bg-emerald-50 text-emerald-700 ring-emerald-200", dot: "bg-emerald-500", label: "In service" },
  paused: { pill: "bg-amber-50 text-amber-800 ring-amber-300", dot: "bg-amber-500", label: "Paused" },
  provider_down: { pill: "bg-red-50 text-red-700 ring-red-200", dot: "bg-red-500", label: "Provider down" },
  out_of_service: { pill: "bg-zinc-100 text-zinc-700 ring-zinc-300", dot: "bg-zinc-400", label: "Out of service" },
  not_installed: { pill: "bg-zinc-100 text-zinc-700 ring-zinc-300", dot: "bg-zinc-400", label: "Not installed" },
  retired: { pill: "bg-zinc-100 text-zinc-500 ring-zinc-200", dot: "bg-zinc-300", label: "Retired" },
} as const;
type State = keyof typeof STATE_TONES;

function stateOf(m: OpsModel): State {
  // Past its sunset: runs get 410 whatever else is true of it.
  if (m.retired) return "retired";
  if (m.availability.status === "available") return "in_service";
  if (m.availability.status === "not_installed") return "not_installed";
  if (m.pause) return "paused";
  if (m.provider_outage) return "provider_down";
  return "out_of_service";
}

function until(iso: string | null, now: number): string {
  if (!iso) return "until resumed";
  const ms = Date.parse(iso) - now;
  const text = ms < 90 * 60_000 ? `${Math.max(1, Math.round(ms / 60_000))} min` : `${Math.round(ms / 3_600_000)} h`;
  // UTC, as the admin CLI prints it: the same on the server's render and in the browser.
  return `until ${iso.slice(0, 16).replace("T", " ")} UTC (in ${text})`;
}

/** Why it is not in service and what brings it back, in a sentence or two. */
function Detail({ m, now }: { m: OpsModel; now: number }) {
  const state = stateOf(m);
  const line = "text-xs text-zinc-600";
  if (state === "paused") {
    return (
      <p className={line} data-testid="model-detail">
        Paused {relativeTime(m.pause!.since, now)}
        {m.pause!.by ? <span data-testid="paused-by"> by {m.pause!.by}</span> : null}, {until(m.pause!.until, now)}:
        &ldquo;{m.pause!.reason}&rdquo;. Quotes and new runs get 503; queued runs wait.
        <span className="text-zinc-500"> Fix: Resume (or it comes back by itself at the end).</span>
      </p>
    );
  }
  if (state === "provider_down") {
    return (
      <p className={line} data-testid="model-detail">
        Its provider {m.provider} is failing: {m.provider_outage!.reason}, {until(m.provider_outage!.until, now)}.
        <span className="text-zinc-500">
          {" "}
          Fix: none needed if it recovers; a good answer ends it early. Check the provider&apos;s status and its key in
          PROVIDERS_FILE.
        </span>
      </p>
    );
  }
  if (state === "not_installed") {
    return (
      <p className={line} data-testid="model-detail">
        {m.availability.message}
      </p>
    );
  }
  if (state === "retired") {
    return (
      <p className={line} data-testid="model-detail">
        Past its sunset: quotes and runs answer 410 naming its replacement. Its past runs stay readable.
      </p>
    );
  }
  if (state === "out_of_service") {
    return (
      <p className={line} data-testid="model-detail">
        {m.availability.message}
        {m.availability.until ? `, ${until(m.availability.until, now)}` : ""}.
        <span className="text-zinc-500">
          {" "}
          Fix:{" "}
          {/its step /.test(m.availability.message ?? "")
            ? "bring that step back into service."
            : "wait for it, or check the server's log."}
        </span>
      </p>
    );
  }
  return null;
}

function Stats({ m }: { m: OpsModel }) {
  const rate = m.failure_rate === null ? null : Math.round(m.failure_rate * 1000) / 10;
  return (
    <dl className="flex shrink-0 gap-5 text-xs text-zinc-500 tabular-nums">
      <div className="min-w-24">
        <dt className="sr-only">Failed in the last 24 h</dt>
        <dd data-testid="model-failure-rate" title={`${m.failed} failed of ${m.finished} finished in the last 24 h`}>
          {rate === null ? (
            <span className="text-zinc-400">no runs</span>
          ) : (
            <>
              <span className={rate >= 20 ? "font-semibold text-red-700" : "text-zinc-800"}>{rate}%</span> failed ·{" "}
              {m.failed}/{m.finished}
            </>
          )}
        </dd>
      </div>
      <div className="min-w-16 text-right">
        <dt className="sr-only">Typical run time</dt>
        <dd data-testid="model-typical" title="Median run time of its last 20 succeeded runs">
          {m.typical_run_seconds === null ? (
            <span className="text-zinc-400">—</span>
          ) : (
            `~${formatDuration(Math.round(m.typical_run_seconds * 1000))}`
          )}
        </dd>
      </div>
    </dl>
  );
}

function PauseDialog({ model, onClose }: { model: string | null; onClose: () => void }) {
  const router = useRouter();
  const reasonId = useId();
  const [reason, setReason] = useState("");
  const [hours, setHours] = useState("");
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  async function confirm() {
    if (!model) return;
    setState({ busy: true, error: null });
    const result = await pauseModelAction(model, { reason, hours: hours ? Number(hours) : null });
    if (!result.ok) return setState({ busy: false, error: result.message });
    setState({ busy: false, error: null });
    setReason("");
    setHours("");
    onClose();
    router.refresh();
  }
  const field =
    "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-500";
  return (
    <ConfirmDialog
      open={model !== null}
      title={`Pause ${model ?? ""}`}
      confirmLabel="Pause"
      tone="danger"
      busy={state.busy}
      error={state.error}
      onConfirm={() => void confirm()}
      onCancel={onClose}
    >
      <p>
        Quotes and new runs of it answer 503 with the reason below (API, MCP and studio alike); its queued runs wait
        until it is back.
      </p>
      <label htmlFor={reasonId} className="block pt-1 text-sm font-medium text-zinc-700">
        Reason <span className="font-normal text-zinc-500">(shown to everyone)</span>
      </label>
      <input
        id={reasonId}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        maxLength={200}
        placeholder="it is paused for maintenance"
        className={field}
      />
      <label className="block pt-1 text-sm font-medium text-zinc-700">
        For how long
        <select value={hours} onChange={(e) => setHours(e.target.value)} className={field}>
          <option value="">Until resumed</option>
          <option value="1">1 hour</option>
          <option value="4">4 hours</option>
          <option value="24">24 hours</option>
        </select>
      </label>
    </ConfirmDialog>
  );
}

function ResumeButton({ model }: { model: OpsModel }) {
  const router = useRouter();
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  async function resume() {
    setState({ busy: true, error: null });
    const result = await resumeModelAction(model.id);
    setState({ busy: false, error: result.ok ? null : result.message });
    if (result.ok) router.refresh();
  }
  return (
    <span className="inline-flex items-center gap-2">
      {state.error ? (
        <span role="alert" className="text-xs text-red-700">
          {state.error}
        </span>
      ) : null}
      <button
        type="button"
        onClick={() => void resume()}
        disabled={state.busy}
        aria-label={`Resume ${model.id}`}
        className={`${secondary} px-2.5 py-1 text-xs`}
      >
        {state.busy ? "Resuming…" : "Resume"}
      </button>
    </span>
  );
}

/** Every catalog entry with its state and health; out-of-service ones first. */
export function OpsModels({ models, now }: { models: OpsModel[]; now: number }) {
  const [pausing, setPausing] = useState<string | null>(null);
  const order: Record<State, number> = {
    paused: 0,
    provider_down: 1,
    out_of_service: 2,
    not_installed: 3,
    in_service: 4,
    retired: 5,
  };
  const sorted = [...models].sort((a, b) => order[stateOf(a)] - order[stateOf(b)] || a.id.localeCompare(b.id));
  const inService = models.filter((m) => stateOf(m) === "in_service").length;
  const out = models.filter((m) => !["in_service", "retired"].includes(stateOf(m))).length;
  return (
    <section aria-labelledby="ops-models" className={`${card} overflow-hidden shadow-sm`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-zinc-200 px-5 py-3">
        <h2 id="ops-models" className="text-base font-semibold text-zinc-900">
          Models
        </h2>
        <span className="text-xs text-zinc-500" data-testid="ops-models-summary">
          {inService} in service{out > 0 ? ` · ${out} out of service` : ""} · failures of the last 24 h · typical run
          time of the last 20 successes
        </span>
      </div>
      <ul className="divide-y divide-zinc-100">
        {sorted.map((m) => {
          const state = stateOf(m);
          const tone = STATE_TONES[state];
          return (
            <li
              key={m.id}
              data-testid="ops-model"
              data-model={m.id}
              data-state={state}
              className="flex flex-col gap-2 px-5 py-3 sm:flex-row sm:items-center sm:gap-4"
            >
              <div className="min-w-0 flex-1 space-y-1">
                <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                  <span className="font-mono text-sm font-medium break-all text-zinc-900">{m.id}</span>
                  <span
                    data-testid="model-state"
                    className={`inline-flex shrink-0 items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tone.pill}`}
                  >
                    <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${tone.dot}`} />
                    {tone.label}
                  </span>
                  {m.type === "preset" ? (
                    <span className="rounded bg-indigo-50 px-1.5 py-0.5 text-[11px] font-medium text-indigo-700">
                      Preset
                    </span>
                  ) : null}
                  {m.provider ? (
                    <span className="text-xs text-zinc-500" data-testid="model-provider">
                      via {m.provider} ·{" "}
                      {m.provider_outage ? (
                        <span className="font-medium text-red-700">failing</span>
                      ) : (
                        <span className="text-emerald-700">healthy</span>
                      )}
                    </span>
                  ) : null}
                </div>
                <Detail m={m} now={now} />
              </div>
              <div className="flex items-center justify-between gap-4 sm:justify-end">
                <Stats m={m} />
                <div className="w-20 text-right">
                  {m.pause ? (
                    <ResumeButton model={m} />
                  ) : state === "not_installed" || state === "retired" ? null : (
                    <button
                      type="button"
                      onClick={() => setPausing(m.id)}
                      aria-label={`Pause ${m.id}`}
                      className={`${secondary} px-2.5 py-1 text-xs`}
                    >
                      Pause
                    </button>
                  )}
                </div>
              </div>
            </li>
          );
        })}
      </ul>
      <PauseDialog model={pausing} onClose={() => setPausing(null)} />
    </section>
  );
}
