"use client";
// One run, live: status, progress, outputs as they arrive, cost, cancel, keep as file, copy as
// curl/JSON. The run comes from the page's live stream (use-live-runs.ts): no reads on a timer.
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import type { Generation } from "@/lib/core/runs/generation-view";
import { isFinal } from "@/lib/core/runs/run-states";
import { cancelRunAction, keepOutputAction } from "@/app/_studio/actions/runs";
import { blobOf, loadModelViewer, ModelViewer3D } from "./model-viewer-3d";
import { RunStatusPill, formatDuration, queuePlace } from "./run-status";
import { threeDFacts } from "./output-labels";
import { storeRun, useLiveRun } from "./use-live-runs";
import { balanceChanged } from "./balance-badge";

export { storeRun, useLiveRun };

export function curlFor(origin: string, model: string, input: Record<string, unknown>): string {
  const body = JSON.stringify({ model, input }).replace(/'/g, "'\\''");
  return `curl -X POST ${origin}/v1/generations \\\n  -H "x-api-key: $ATELIER_API_KEY" \\\n  -H "content-type: application/json" \\\n  -d '${body}'`;
}

/** The clock of a running run's elapsed time and estimate, ticking while mounted. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

function Elapsed({ since }: { since: string }) {
  const now = useNow(500);
  return <>{formatDuration(Math.max(0, now - Date.parse(since))).replace(/\.\d s/, " s")}</>;
}

/** Seconds as "3 s" or "1 min 5 s". */
function roughSeconds(s: number): string {
  const whole = Math.max(1, Math.round(s));
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** An estimate never goes past this until the run is done: it is a guess, not a promise. */
const ESTIMATE_CAP = 0.95;

/** Why cancel can no longer stop a run, as the run card says it. */
const UNCANCELABLE: Record<string, string> = {
  preview: "Preview shown: this run can no longer be canceled. It is charged only if it succeeds.",
  provider:
    "Sent to a provider that bills once a run is submitted: this run can no longer be canceled. It is charged only if it succeeds.",
};

/**
 * A running run's progress bar: the model's own report when it gives one, else an estimate from
 * the model's typical run time (labelled as such, held under 95 %), else a bar without a value.
 */
export function RunProgress({ run, typicalSeconds }: { run: Generation; typicalSeconds: number | null }) {
  const now = useNow(250);
  const elapsed = run.started_at ? Math.max(0, (now - Date.parse(run.started_at)) / 1000) : 0;
  let value: number | null = null;
  let label: string;
  let source: "model" | "estimate" | "none";
  if (run.progress !== null) {
    value = Math.min(1, Math.max(0, run.progress));
    label = `${Math.floor(value * 100)}%`;
    source = "model";
  } else if (typicalSeconds !== null && typicalSeconds > 0) {
    value = Math.min(ESTIMATE_CAP, elapsed / typicalSeconds);
    const left = typicalSeconds - elapsed;
    label =
      left >= 1
        ? `about ${roughSeconds(left)} left`
        : elapsed < typicalSeconds * 1.5
          ? "almost done"
          : "taking longer than usual";
    source = "estimate";
  } else {
    label = "working…";
    source = "none";
  }
  return (
    <div data-testid="run-progress" data-source={source} className="flex flex-col gap-1.5">
      <div
        role="progressbar"
        aria-label={source === "estimate" ? "Estimated progress" : "Progress"}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value === null ? undefined : Math.round(value * 100)}
        aria-valuetext={source === "estimate" ? `${label} (estimated)` : label}
        suppressHydrationWarning
        className="relative h-1.5 w-full overflow-hidden rounded-full bg-zinc-100"
      >
        {value === null ? (
          <div className="h-full w-full motion-safe:animate-pulse rounded-full bg-blue-200" />
        ) : (
          <div
            suppressHydrationWarning
            className={`h-full rounded-full transition-[width] duration-300 ease-out ${source === "estimate" ? "bg-blue-400/70" : "bg-blue-500"}`}
            style={{ width: `${(value * 100).toFixed(1)}%` }}
          />
        )}
      </div>
      <div className="flex items-center justify-between gap-2 text-xs text-zinc-500 tabular-nums">
        <span>
          {source === "estimate"
            ? "Estimated from this model's recent runs"
            : source === "model"
              ? "Progress"
              : "Running"}
        </span>
        <span
          data-testid="run-progress-label"
          className={source === "model" ? "font-medium text-blue-700" : ""}
          suppressHydrationWarning
        >
          {label}
        </span>
      </div>
    </div>
  );
}

export function CopyButton({ label, text }: { label: string; text: () => string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text()).catch(() => {});
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
      className="rounded-md border border-zinc-200 bg-white px-2.5 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      {done ? "Copied" : label}
    </button>
  );
}

/**
 * Why a video, sound or 3D model has no "Keep as file" (the API keeps only images as files; a video or
 * sound comes in by upload; files hold no 3D models).
 */
function NoKeep({ kind }: { kind: "video" | "audio" | "3d" }) {
  if (kind === "3d") {
    return (
      <span data-testid="no-keep" className="text-zinc-500">
        Only images can be kept as files: download the .glb to use this model elsewhere.
      </span>
    );
  }
  return (
    <span data-testid="no-keep" className="text-zinc-500">
      Only images can be kept as files: download this {kind === "video" ? "video" : "sound"}, then upload it on the{" "}
      <Link href="/files" className="font-medium text-indigo-600 hover:text-indigo-700">
        Files
      </Link>{" "}
      page to reuse it.
    </span>
  );
}

export function RunOutputs({ generation, onKeep }: { generation: Generation; onKeep?: (index: number) => void }) {
  const [zoom, setZoom] = useState<string | null>(null);
  const images = generation.output.filter((o) => o.type === "image");
  return (
    <div className="flex flex-col gap-3">
      {generation.outputs_purged_at ? (
        <p
          data-testid="outputs-purged"
          className="rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-600 ring-1 ring-zinc-200"
        >
          The outputs of this run were deleted on {generation.outputs_purged_at.slice(0, 10)} under this install&rsquo;s
          output retention (OUTPUT_RETENTION_DAYS). The run&rsquo;s record stays.
        </p>
      ) : null}
      {generation.output.length === 0 && generation.preview ? (
        <figure className="relative">
          {/* A preset's first image while the run goes on. */}
          <img
            src={generation.preview.url}
            alt="Preview of the run"
            data-testid="run-preview"
            className="w-full rounded-lg border border-zinc-200 opacity-80"
          />
          <figcaption className="mt-1 text-xs text-zinc-500">Preview: the run goes on.</figcaption>
        </figure>
      ) : null}
      {images.length ? (
        <div className={`grid gap-3 ${images.length > 1 ? "grid-cols-2" : "grid-cols-1"}`}>
          {generation.output.map((o, i) =>
            o.type === "image" ? (
              <div key={i} className="group relative">
                <button
                  type="button"
                  onClick={() => setZoom(o.url)}
                  className="block w-full overflow-hidden rounded-lg border border-zinc-200 bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500"
                  aria-label={`Zoom output ${i + 1}`}
                >
                  <img
                    src={o.url}
                    alt={`Output ${i + 1}`}
                    data-testid="output-image"
                    width={o.width}
                    height={o.height}
                    className="h-auto w-full object-contain"
                  />
                </button>
                <div className="mt-1.5 flex items-center gap-3 text-xs">
                  <span className="text-zinc-500 tabular-nums">
                    {o.width}×{o.height}
                  </span>
                  <a
                    href={o.download_url ?? o.url}
                    download
                    data-testid="output-download"
                    className="font-medium text-indigo-600 hover:text-indigo-700"
                  >
                    Download
                  </a>
                  {onKeep ? (
                    <button
                      type="button"
                      onClick={() => onKeep(i)}
                      className="font-medium text-indigo-600 hover:text-indigo-700"
                    >
                      Keep as file
                    </button>
                  ) : null}
                </div>
              </div>
            ) : null,
          )}
        </div>
      ) : null}
      {generation.output.map((o, i) =>
        o.type === "video" ? (
          <div key={i}>
            <video
              controls
              poster={o.poster?.url}
              src={o.url}
              data-testid="output-video"
              className="w-full rounded-lg border border-zinc-200 bg-black"
            />
            <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <a
                href={o.download_url ?? o.url}
                download
                data-testid="output-download"
                className="font-medium text-indigo-600 hover:text-indigo-700"
              >
                Download video{o.duration ? ` (${o.duration} s)` : ""}
              </a>
              {onKeep ? <NoKeep kind="video" /> : null}
            </div>
          </div>
        ) : o.type === "audio" ? (
          <div key={i}>
            <audio controls src={o.url} data-testid="output-audio" className="w-full" />
            <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <a
                href={o.download_url ?? o.url}
                download
                data-testid="output-download"
                className="font-medium text-indigo-600 hover:text-indigo-700"
              >
                Download audio
              </a>
              {onKeep ? <NoKeep kind="audio" /> : null}
            </div>
          </div>
        ) : o.type === "3d" ? (
          <div key={i} data-testid="output-3d">
            <ModelViewer3D key={blobOf(o.url)} src={o.url} poster={o.poster?.url} alt={`3D model, output ${i + 1}`} />
            <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <span data-testid="output-3d-facts" className="text-zinc-500 tabular-nums">
                {threeDFacts(o).join(" · ")}
              </span>
              <a
                href={o.download_url ?? o.url}
                download
                data-testid="output-download"
                className="font-medium text-indigo-600 hover:text-indigo-700"
              >
                Download .glb
              </a>
              {onKeep ? <NoKeep kind="3d" /> : null}
            </div>
          </div>
        ) : null,
      )}
      {zoom ? (
        <div
          role="dialog"
          aria-modal="true"
          aria-label="Full-size image"
          className="fixed inset-0 z-50 flex items-center justify-center bg-black/80 p-6"
          onClick={() => setZoom(null)}
          onKeyDown={(e) => e.key === "Escape" && setZoom(null)}
        >
          <img src={zoom} alt="Full size output" className="max-h-full max-w-full rounded-lg shadow-2xl" />
          <button
            type="button"
            autoFocus
            onClick={() => setZoom(null)}
            className="absolute top-4 right-4 rounded-md bg-white/90 px-3 py-1 text-sm font-medium text-zinc-900"
          >
            Close
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** How a run ended, under its outputs: the error, what it cost and how long it took. */
export function RunEnding({ run: g }: { run: Generation }) {
  const final = isFinal(g.status);
  return (
    <>
      {g.error ? (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
          {g.error.message}
        </p>
      ) : null}
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
        <dt className="text-zinc-500">Cost</dt>
        <dd data-testid="run-cost" className="text-right font-medium text-zinc-900 tabular-nums">
          {g.usage.cost_usd !== null ? `$${g.usage.cost_usd}` : final ? "Not charged" : "—"}
        </dd>
        {g.completed_at && g.started_at ? (
          <>
            <dt className="text-zinc-500">Took</dt>
            <dd className="text-right text-zinc-700 tabular-nums">
              {formatDuration(Date.parse(g.completed_at) - Date.parse(g.started_at))}
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}

/** The run card of the model page and the body of the run page. */
export function RunView({
  initial,
  compact = false,
  typicalSeconds = null,
}: {
  initial: Generation;
  compact?: boolean;
  typicalSeconds?: number | null;
}) {
  const { generation: g, uncancelable_reason: uncancelable } = useLiveRun(initial);
  const client = useQueryClient();
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string; file?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const final = isFinal(g.status);
  const router = useRouter();
  const wasFinal = useRef(final);
  // The balance in the top bar changes when a run settles. The run page's server parts (sharing,
  // the run's event) change too: they are rendered again once; the model page's card only needs
  // the balance, and a render of the whole page would compete with loading the run's output.
  useEffect(() => {
    if (final && !wasFinal.current) {
      if (compact) balanceChanged();
      else router.refresh();
    }
    wasFinal.current = final;
  }, [final, router, compact]);
  // A 3D run on its way: fetch the viewer meanwhile, so the model shows as soon as it exists.
  const awaits3d = g.modality === "3d" && !final;
  useEffect(() => {
    if (awaits3d) loadModelViewer().catch(() => {});
  }, [awaits3d]);

  async function cancel() {
    setBusy(true);
    const answer = await cancelRunAction(g.id);
    setBusy(false);
    if (answer.ok) storeRun(client, answer.value);
    else setMessage({ tone: "error", text: answer.error.message });
  }
  async function keep(index: number) {
    const answer = await keepOutputAction(g.id, index);
    setMessage(
      answer.ok
        ? { tone: "info", text: "Kept as", file: answer.value.id }
        : { tone: "error", text: answer.error.message },
    );
  }

  return (
    <section aria-label="Run" data-testid="run-view" data-run-id={g.id} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <RunStatusPill status={g.status} />
          {g.status === "running" && g.started_at ? (
            <span className="text-xs text-blue-700 tabular-nums" suppressHydrationWarning>
              <Elapsed since={g.started_at} />
            </span>
          ) : null}
          {g.queue_position !== null ? (
            <span data-testid="queue-position" className="text-xs font-medium text-zinc-600 tabular-nums">
              {queuePlace(g)}
            </span>
          ) : null}
          {compact ? (
            <Link href={`/runs/${g.id}`} className="font-mono text-xs text-zinc-500 hover:text-zinc-800">
              {g.id}
            </Link>
          ) : null}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {!final && !uncancelable ? (
            <button
              type="button"
              onClick={cancel}
              disabled={busy}
              className="rounded-md border border-zinc-200 bg-white px-2.5 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-50 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              Cancel run
            </button>
          ) : null}
          <CopyButton label="Copy as curl" text={() => curlFor(window.location.origin, g.model, g.input)} />
          <CopyButton label="Copy as JSON" text={() => JSON.stringify({ model: g.model, input: g.input }, null, 2)} />
          {compact ? (
            <Link
              href={`/runs/${g.id}`}
              className="rounded-md px-2 py-1 text-xs font-medium text-indigo-600 hover:text-indigo-700"
            >
              Open run →
            </Link>
          ) : null}
        </div>
      </div>
      {!final && uncancelable ? (
        <p data-testid="uncancelable-reason" className="text-xs text-zinc-500">
          {UNCANCELABLE[uncancelable] ?? UNCANCELABLE.provider}
        </p>
      ) : null}
      {g.status === "running" ? <RunProgress run={g} typicalSeconds={typicalSeconds} /> : null}
      {message ? (
        <p
          role={message.tone === "error" ? "alert" : "status"}
          data-testid="run-message"
          className={`rounded-md px-3 py-2 text-sm ${message.tone === "error" ? "bg-amber-50 text-amber-900 ring-1 ring-amber-200" : "bg-emerald-50 text-emerald-800"}`}
        >
          {message.file ? (
            <>
              {message.text}{" "}
              <Link
                href="/files"
                data-testid="kept-file"
                className="font-mono font-medium underline hover:text-emerald-900"
              >
                {message.file}
              </Link>
              . It is on the Files page, ready to use as an input.
            </>
          ) : (
            message.text
          )}
        </p>
      ) : null}
      {!final && g.output.length === 0 && !g.preview ? (
        <div className="flex aspect-video w-full motion-safe:animate-pulse items-center justify-center rounded-lg bg-zinc-100 text-sm text-zinc-400">
          {g.status === "queued" ? "Waiting in the queue…" : "Generating…"}
        </div>
      ) : null}
      <RunOutputs generation={g} onKeep={g.status === "succeeded" ? keep : undefined} />
      <RunEnding run={g} />
    </section>
  );
}
