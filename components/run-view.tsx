"use client";
// One run, live: status, outputs as they arrive, cost, cancel, keep as file, copy as curl/JSON.
// Polls a server action (lib/core getGeneration) as the API's Retry-After says, until the run is final.
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { Generation } from "@/lib/core/generation-view";
import { isFinal, retryAfterSeconds } from "@/lib/core/run-states";
import { cancelRunAction, getRunAction, keepOutputAction, type RunRead } from "@/app/(studio)/runs/actions";
import { RunStatusPill, formatDuration } from "./run-status";


export function curlFor(origin: string, model: string, input: Record<string, unknown>): string {
  const body = JSON.stringify({ model, input }).replace(/'/g, "'\\''");
  return `curl -X POST ${origin}/v1/generations \\\n  -H "x-api-key: $ATELIER_API_KEY" \\\n  -H "content-type: application/json" \\\n  -d '${body}'`;
}

/** What the run's query holds: the run and when to read it again. */
export function runRead(generation: Generation): RunRead {
  return { generation, retryAfterSeconds: isFinal(generation.status) ? null : retryAfterSeconds(generation.modality) };
}

/** Puts a run the studio just got (started, canceled) into its query, so every view shows it at once. */
export function storeRun(client: QueryClient, generation: Generation): void {
  client.setQueryData(["generation", generation.id], runRead(generation));
}

export function useGeneration(initial: Generation) {
  return useQuery({
    queryKey: ["generation", initial.id],
    queryFn: async () => {
      const answer = await getRunAction(initial.id);
      if (!answer.ok) throw new Error(answer.error.message);
      return answer.value;
    },
    initialData: runRead(initial),
    select: (read) => read.generation,
    refetchInterval: (q) => (q.state.data?.retryAfterSeconds ? q.state.data.retryAfterSeconds * 1000 : false),
  });
}

function Elapsed({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, []);
  return <>{formatDuration(Math.max(0, now - Date.parse(since))).replace(/\.\d s/, " s")}</>;
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

export function RunOutputs({ generation, onKeep }: { generation: Generation; onKeep?: (index: number) => void }) {
  const [zoom, setZoom] = useState<string | null>(null);
  const images = generation.output.filter((o) => o.type === "image");
  return (
    <div className="flex flex-col gap-3">
      {generation.output.length === 0 && generation.preview ? (
        <figure className="relative">
          {/* A preset's first image while the run goes on. */}
          <img src={generation.preview.url} alt="Preview of the run" className="w-full rounded-lg border border-zinc-200 opacity-80" />
          <figcaption className="mt-1 text-xs text-zinc-500">Preview: the run goes on.</figcaption>
        </figure>
      ) : null}
      {images.length ? (
        <div className={`grid gap-3 ${images.length > 1 ? "grid-cols-2" : "grid-cols-1"}`}>
          {generation.output.map((o, i) =>
            o.type === "image" ? (
              <div key={i} className="group relative">
                <button type="button" onClick={() => setZoom(o.url)} className="block w-full overflow-hidden rounded-lg border border-zinc-200 bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500" aria-label={`Zoom output ${i + 1}`}>
                  <img src={o.url} alt={`Output ${i + 1}`} data-testid="output-image" width={o.width} height={o.height} className="h-auto w-full object-contain" />
                </button>
                <div className="mt-1.5 flex items-center gap-3 text-xs">
                  <span className="text-zinc-500 tabular-nums">
                    {o.width}×{o.height}
                  </span>
                  <a href={o.url} download className="font-medium text-indigo-600 hover:text-indigo-700">
                    Download
                  </a>
                  {onKeep ? (
                    <button type="button" onClick={() => onKeep(i)} className="font-medium text-indigo-600 hover:text-indigo-700">
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
            <video controls poster={o.poster?.url} src={o.url} data-testid="output-video" className="w-full rounded-lg border border-zinc-200 bg-black" />
            <a href={o.url} download className="mt-1.5 inline-block text-xs font-medium text-indigo-600">
              Download video{o.duration ? ` (${o.duration} s)` : ""}
            </a>
          </div>
        ) : o.type === "audio" ? (
          <div key={i}>
            <audio controls src={o.url} data-testid="output-audio" className="w-full" />
            <a href={o.url} download className="mt-1.5 inline-block text-xs font-medium text-indigo-600">
              Download audio
            </a>
          </div>
        ) : null,
      )}
      {zoom ? (
        <div role="dialog" aria-modal="true" aria-label="Full-size image" className="fixed inset-0 z-50 flex items-center justify-center bg-black/80 p-6" onClick={() => setZoom(null)} onKeyDown={(e) => e.key === "Escape" && setZoom(null)}>
          <img src={zoom} alt="Full size output" className="max-h-full max-w-full rounded-lg shadow-2xl" />
          <button type="button" autoFocus onClick={() => setZoom(null)} className="absolute top-4 right-4 rounded-md bg-white/90 px-3 py-1 text-sm font-medium text-zinc-900">
            Close
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The run card of the model page and the body of the run page. */
export function RunView({ initial, compact = false }: { initial: Generation; compact?: boolean }) {
  const { data: run } = useGeneration(initial);
  const client = useQueryClient();
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const g = run ?? initial;
  const final = isFinal(g.status);
  const router = useRouter();
  const wasFinal = useRef(final);
  // The balance in the top bar changes when a run settles: refresh the server parts once.
  useEffect(() => {
    if (final && !wasFinal.current) router.refresh();
    wasFinal.current = final;
  }, [final, router]);

  async function cancel() {
    setBusy(true);
    const answer = await cancelRunAction(g.id);
    setBusy(false);
    if (answer.ok) storeRun(client, answer.value);
    else setMessage({ tone: "error", text: answer.error.message });
  }
  async function keep(index: number) {
    const answer = await keepOutputAction(g.id, index);
    setMessage(answer.ok ? { tone: "info", text: `Kept as ${answer.value.id}.` } : { tone: "error", text: answer.error.message });
  }

  return (
    <section aria-label="Run" data-testid="run-view" data-run-id={g.id} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex items-center gap-2">
          <RunStatusPill status={g.status} />
          {g.status === "running" && g.started_at ? (
            <span className="text-xs text-blue-700 tabular-nums">
              <Elapsed since={g.started_at} />
            </span>
          ) : null}
          {compact ? (
            <Link href={`/runs/${g.id}`} className="font-mono text-xs text-zinc-500 hover:text-zinc-800">
              {g.id}
            </Link>
          ) : null}
        </div>
        <div className="flex items-center gap-2">
          {!final ? (
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
            <Link href={`/runs/${g.id}`} className="rounded-md px-2 py-1 text-xs font-medium text-indigo-600 hover:text-indigo-700">
              Open run →
            </Link>
          ) : null}
        </div>
      </div>
      {message ? (
        <p role={message.tone === "error" ? "alert" : "status"} data-testid="run-message" className={`rounded-md px-3 py-2 text-sm ${message.tone === "error" ? "bg-amber-50 text-amber-900 ring-1 ring-amber-200" : "bg-emerald-50 text-emerald-800"}`}>
          {message.text}
        </p>
      ) : null}
      {!final && g.output.length === 0 && !g.preview ? (
        <div className="flex aspect-video w-full animate-pulse items-center justify-center rounded-lg bg-zinc-100 text-sm text-zinc-400">
          {g.status === "queued" ? "Waiting in the queue…" : "Generating…"}
        </div>
      ) : null}
      <RunOutputs generation={g} onKeep={g.status === "succeeded" ? keep : undefined} />
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
            <dd className="text-right text-zinc-700 tabular-nums">{formatDuration(Date.parse(g.completed_at) - Date.parse(g.started_at))}</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}
