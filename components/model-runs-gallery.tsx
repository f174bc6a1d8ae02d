"use client";
// The model page's gallery: the signed-in user's recent runs of this model as small tiles (the
// image, a video's or 3D model's poster, a sound's length), live while unfinished; a tile shows
// its run in the result area.
import Link from "next/link";
import type { Generation } from "@/lib/core/runs/generation-view";
import { relativeTime } from "./run-status";
import { useLiveRuns } from "./use-live-runs";

/** The first words a run was given (its prompt, text or title), for a tile's name. */
export function promptOf(input: Record<string, unknown>): string | null {
  for (const key of ["prompt", "text", "title", "content"]) {
    const v = input[key];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  const first = Object.values(input).find(
    (v) => typeof v === "string" && v.trim() && !v.startsWith("file_") && !v.startsWith("#"),
  );
  return typeof first === "string" ? first.trim() : null;
}

const STATUS_TONE: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-600",
  running: "bg-blue-50 text-blue-700",
  failed: "bg-red-50 text-red-700",
  canceled: "bg-zinc-100 text-zinc-500",
};

function Tile({ run }: { run: Generation }) {
  const image = run.output.find((o) => o.type === "image");
  const video = run.output.find((o) => o.type === "video");
  const audio = run.output.find((o) => o.type === "audio");
  const model = run.output.find((o) => o.type === "3d");
  const picture = image?.url ?? video?.poster?.url ?? model?.poster?.url ?? run.preview?.url;
  if (picture) {
    return (
      <>
        <img
          src={picture}
          alt=""
          data-testid={model && !image ? "recent-run-poster" : undefined}
          className="h-full w-full object-cover"
          loading="lazy"
        />
        {video ? (
          <span
            aria-hidden
            className="absolute right-1 bottom-1 rounded bg-black/60 px-1 text-[10px] font-medium text-white [--color-white:#fff]"
          >
            ▶ {video.duration ? `${Math.round(video.duration)} s` : ""}
          </span>
        ) : model && !image ? (
          <span
            aria-hidden
            className="absolute right-1 bottom-1 rounded bg-black/60 px-1 text-[10px] font-medium text-white [--color-white:#fff]"
          >
            3D
          </span>
        ) : null}
      </>
    );
  }
  if (audio) {
    return (
      <span className="flex h-full w-full flex-col items-center justify-center gap-0.5 bg-indigo-50 text-indigo-600">
        <svg viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth={1.6} aria-hidden>
          <path d="M3 12h2M7 8v8M11 5v14M15 9v6M19 11v2" strokeLinecap="round" />
        </svg>
        {audio.duration ? <span className="text-[10px] tabular-nums">{audio.duration.toFixed(0)} s</span> : null}
      </span>
    );
  }
  return (
    <span
      className={`flex h-full w-full items-center justify-center text-[11px] font-medium capitalize ${STATUS_TONE[run.status] ?? STATUS_TONE.queued} ${run.status === "running" || run.status === "queued" ? "motion-safe:animate-pulse" : ""}`}
    >
      {run.status}
    </span>
  );
}

export function ModelRunsGallery({
  runs: initial,
  selected,
  onSelect,
  modelId,
}: {
  runs: readonly Generation[];
  selected: string | null;
  onSelect: (run: Generation) => void;
  modelId: string;
}) {
  const runs = useLiveRuns(initial).map((r) => r.generation);
  if (runs.length === 0) return null;
  return (
    <section aria-labelledby="recent-runs-heading" data-testid="recent-runs" className="mt-6">
      <div className="mb-2 flex items-baseline justify-between gap-2">
        <h2 id="recent-runs-heading" className="text-sm font-medium text-zinc-500">
          Your recent runs
        </h2>
        <Link
          href={`/runs?model=${encodeURIComponent(modelId)}`}
          className="text-xs font-medium text-indigo-600 hover:text-indigo-700"
        >
          All runs of this model →
        </Link>
      </div>
      <ul className="grid grid-cols-4 gap-2 sm:grid-cols-6">
        {runs.map((run) => {
          const prompt = promptOf(run.input);
          const when = relativeTime(run.created_at);
          const current = run.id === selected;
          return (
            <li key={run.id}>
              <button
                type="button"
                data-testid="recent-run"
                data-run-id={run.id}
                data-status={run.status}
                aria-pressed={current}
                aria-label={`Show the run from ${when}${prompt ? `: ${prompt.slice(0, 60)}` : ""} (${run.status})`}
                title={`${prompt ?? run.id} · ${run.status} · ${new Date(run.created_at).toLocaleString()}`}
                onClick={() => onSelect(run)}
                suppressHydrationWarning
                className={`relative block aspect-square w-full overflow-hidden rounded-md border bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${
                  current ? "border-indigo-500 ring-2 ring-indigo-500" : "border-zinc-200 hover:border-zinc-400"
                }`}
              >
                <Tile run={run} />
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
