"use client";
// The history list: a table from the `sm` breakpoint up, cards on a phone. Unfinished rows follow
// the page's live stream (use-live-runs.ts); when one ends, the server parts are read once more
// (the balance, and runs started meanwhile).
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useRouter } from "next/navigation";
import type { Generation } from "@/lib/core/runs/generation-view";
import { isFinal } from "@/lib/core/runs/run-states";
import { formatUsd, parseUsd } from "@/lib/primitives/money";
import { promptOf } from "@/lib/core/runs/run-input";
import { AudioWaveform } from "./audio-waveform";
import { RunStatusPill, relativeTime } from "./run-status";
import { useLiveRuns } from "./use-live-runs";

/** Runs that end together make one refresh. */
const REFRESH_AFTER_MS = 1_000;

/** What the pill adds: the queue place or the model's reported progress. */
function pillExtra(r: Generation): string | undefined {
  if (r.queue_position !== null) return `#${r.queue_position}`;
  if (r.status === "running" && r.progress !== null) return `${Math.floor(r.progress * 100)}%`;
  return undefined;
}

const cost = (r: Generation) => (r.usage.cost_usd !== null ? `$${r.usage.cost_usd}` : "—");

const THUMB = "h-10 w-10 shrink-0 rounded-md border border-zinc-200";

/** The image, else a video's or 3D model's poster, else the preset's preview; a sound's waveform. */
function Thumbnail({ run: r }: { run: Generation }) {
  const image =
    r.output.find((o) => o.type === "image")?.url ?? r.output.find((o) => o.poster)?.poster?.url ?? r.preview?.url;
  if (image)
    return <img src={image} alt="" data-testid="run-thumbnail" className={`${THUMB} object-cover`} loading="lazy" />;
  const audio = r.output.find((o) => o.type === "audio");
  if (audio) return <AudioWaveform url={audio.url} className={THUMB} />;
  return (
    <div className={`flex ${THUMB} items-center justify-center bg-zinc-100 text-[10px] text-zinc-400 uppercase`}>
      {r.status === "succeeded" ? r.modality.slice(0, 3) : ""}
    </div>
  );
}

/** The run's prompt (its first text input), one line. */
function Prompt({ run: r, className = "" }: { run: Generation; className?: string }) {
  const prompt = promptOf(r.input);
  return prompt ? (
    <span data-testid="run-prompt" title={prompt.text} className={`block truncate ${className}`}>
      {prompt.text}
    </span>
  ) : (
    <span data-testid="run-prompt" className={`block text-zinc-400 ${className}`}>
      —
    </span>
  );
}

/** A history line: one run, or the runs of one batch shown on this page (newest first). */
type Line = { kind: "run"; run: Generation } | { kind: "batch"; id: string; runs: Generation[]; size: number };

function linesOf(runs: readonly Generation[], batchSizes: Record<string, number> | undefined): Line[] {
  const lines: Line[] = [];
  const groups = new Map<string, Extract<Line, { kind: "batch" }>>();
  for (const run of runs) {
    if (!batchSizes || !run.batch_id) {
      lines.push({ kind: "run", run });
      continue;
    }
    const group = groups.get(run.batch_id);
    if (group) group.runs.push(run);
    else {
      const line = { kind: "batch" as const, id: run.batch_id, runs: [run], size: batchSizes[run.batch_id] ?? 1 };
      groups.set(run.batch_id, line);
      lines.push(line);
    }
  }
  return lines;
}

/** "2 succeeded, 1 running" for a batch's runs on this page. */
function statusSummary(runs: readonly Generation[]): { status: string; text: string } {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const order = ["running", "queued", "failed", "canceled", "succeeded"];
  const status = order.find((s) => counts.has(s)) ?? "queued";
  return { status, text: [...counts].map(([s, n]) => `${n} ${s}`).join(", ") };
}

const batchHref = (id: string) => `/runs?batch=${encodeURIComponent(id)}`;

/** A refresh of the server parts once rows shown unfinished have ended (not for rows that came ended). */
function useRefreshWhenRowsEnd(runs: readonly Generation[]): void {
  const router = useRouter();
  const ended = runs.filter((r) => isFinal(r.status)).map((r) => r.id);
  const key = ended.join(",");
  const seen = useRef<{ all: Set<string>; ended: Set<string> } | null>(null);
  const all = runs.map((r) => r.id).join(",");
  useEffect(() => {
    const before = seen.current;
    const now = { all: new Set(all.split(",")), ended: new Set(key.split(",")) };
    seen.current = now;
    if (!before) return;
    const justEnded = [...now.ended].some((id) => id && before.all.has(id) && !before.ended.has(id));
    if (!justEnded) return;
    const t = setTimeout(() => router.refresh(), REFRESH_AFTER_MS);
    return () => clearTimeout(t);
  }, [all, key, router]);
}

function RunCard({ run: r, inBatch = false }: { run: Generation; inBatch?: boolean }) {
  return (
    <Link
      href={`/runs/${r.id}`}
      data-testid="run-card"
      data-status={r.status}
      className={`flex items-center gap-3 rounded-lg border border-zinc-200 bg-white p-3 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500 ${inBatch ? "ml-3" : ""}`}
    >
      <Thumbnail run={r} />
      <div className="min-w-0 flex-1">
        <div className="flex items-center justify-between gap-2">
          <span className="truncate text-sm font-medium text-zinc-900">{r.model}</span>
          <span className="shrink-0">
            <RunStatusPill status={r.status} extra={pillExtra(r)} />
          </span>
        </div>
        <Prompt run={r} className="mt-0.5 text-xs text-zinc-700" />
        <div className="mt-1 flex items-center justify-between gap-2 text-xs text-zinc-500">
          <span className="truncate">
            {r.source} · <span className="text-zinc-700 tabular-nums">{cost(r)}</span>
          </span>
          <span className="shrink-0" title={new Date(r.created_at).toLocaleString()} suppressHydrationWarning>
            {relativeTime(r.created_at)}
          </span>
        </div>
      </div>
    </Link>
  );
}

function RunRow({ run: r, inBatch = false }: { run: Generation; inBatch?: boolean }) {
  const router = useRouter();
  return (
    <tr
      data-testid="run-row"
      data-status={r.status}
      data-batch={r.batch_id ?? undefined}
      className="cursor-pointer hover:bg-zinc-50"
      onClick={() => router.push(`/runs/${r.id}`)}
    >
      <td className={`py-2 pr-4 ${inBatch ? "border-l-2 border-indigo-300 pl-[14px]" : "pl-4"}`}>
        <Thumbnail run={r} />
      </td>
      <td className="px-4 py-2">
        <Prompt run={r} className="text-zinc-800" />
      </td>
      <td className="px-4 py-2">
        <a
          href={`/runs/${r.id}`}
          onClick={(e) => e.stopPropagation()}
          className="block truncate font-medium text-zinc-900 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          {r.model}
        </a>
        <div data-testid="run-id" className="truncate font-mono text-xs text-zinc-400">
          {r.id}
        </div>
      </td>
      <td className="px-4 py-2 whitespace-nowrap">
        <RunStatusPill status={r.status} extra={pillExtra(r)} />
      </td>
      <td className="px-4 py-2 text-zinc-600" data-testid="run-source">
        {r.source}
      </td>
      <td className="px-4 py-2 text-right text-zinc-700 tabular-nums">{cost(r)}</td>
      <td
        className="px-4 py-2 text-right whitespace-nowrap text-zinc-500"
        title={new Date(r.created_at).toLocaleString()}
        suppressHydrationWarning
      >
        {relativeTime(r.created_at)}
      </td>
    </tr>
  );
}

/** What a batch's group says: its size (all of it, not only this page), how its runs on this page stand, their cost. */
function BatchLabel({ line }: { line: Extract<Line, { kind: "batch" }> }) {
  const summary = statusSummary(line.runs);
  const shown = line.runs.length < line.size ? ` (${line.runs.length} on this page)` : "";
  return (
    <>
      <span className="font-medium text-zinc-900">
        Batch of {line.size} run{line.size === 1 ? "" : "s"}
        {shown}
      </span>
      <span className="text-zinc-500">
        {" "}
        · {summary.text} · {batchCost(line.runs)}
      </span>
    </>
  );
}

/**
 * The history list: a table from the `sm` breakpoint up, cards on a phone. With `batchSizes`
 * (the list is not one batch), the runs of a batch show as a group under a line naming the batch,
 * its size and a link to all of its runs.
 */
export function RunsTable({ runs: initial, batchSizes }: { runs: Generation[]; batchSizes?: Record<string, number> }) {
  const runs = useLiveRuns(initial).map((live) => live.generation);
  useRefreshWhenRowsEnd(runs);
  const lines = linesOf(runs, batchSizes);
  return (
    <>
      {/* A phone: one card per run, a batch's cards under its line. */}
      <ul className="flex flex-col gap-2 sm:hidden" data-testid="runs-cards" aria-label="Runs">
        {lines.map((line) =>
          line.kind === "run" ? (
            <li key={line.run.id}>
              <RunCard run={line.run} />
            </li>
          ) : (
            <li key={line.id} data-testid="batch-group" data-batch={line.id} className="flex flex-col gap-2">
              <Link
                href={batchHref(line.id)}
                data-testid="batch-link"
                className="flex items-center justify-between gap-2 rounded-lg bg-indigo-50 px-3 py-2 text-xs ring-1 ring-indigo-200 ring-inset focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                <span className="min-w-0 truncate">
                  <BatchLabel line={line} />
                </span>
                <span className="shrink-0 font-medium text-indigo-700">All →</span>
              </Link>
              {line.runs.map((r) => (
                <RunCard key={r.id} run={r} inBatch />
              ))}
            </li>
          ),
        )}
      </ul>
      <div className="hidden overflow-x-auto rounded-lg border border-zinc-200 bg-white sm:block">
        <table className="w-full table-fixed text-left text-sm" data-testid="runs-table">
          <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
            <tr>
              <th scope="col" className="w-[4.5rem] px-4 py-2.5">
                <span className="sr-only">Preview</span>
              </th>
              <th scope="col" className="px-4 py-2.5">
                Prompt
              </th>
              <th scope="col" className="w-56 px-4 py-2.5">
                Model
              </th>
              <th scope="col" className="w-36 px-4 py-2.5">
                Status
              </th>
              <th scope="col" className="w-20 px-4 py-2.5">
                Source
              </th>
              <th scope="col" className="w-24 px-4 py-2.5 text-right">
                Cost
              </th>
              <th scope="col" className="w-28 px-4 py-2.5 text-right">
                Created
              </th>
            </tr>
          </thead>
          {lines.map((line) =>
            line.kind === "run" ? (
              <tbody key={line.run.id} className="border-b border-zinc-100 last:border-b-0">
                <RunRow run={line.run} />
              </tbody>
            ) : (
              <tbody
                key={line.id}
                data-testid="batch-group"
                data-batch={line.id}
                className="divide-y divide-zinc-100 border-b border-zinc-100 last:border-b-0"
              >
                <tr data-testid="batch-row" className="bg-indigo-50/60">
                  <td colSpan={7} className="border-l-2 border-indigo-300 py-1.5 pr-4 pl-[14px] text-xs">
                    <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
                      <span>
                        <BatchLabel line={line} /> <span className="ml-1 font-mono text-zinc-400">{line.id}</span>
                      </span>
                      <Link
                        href={batchHref(line.id)}
                        data-testid="batch-link"
                        className="font-medium text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500"
                      >
                        All runs of this batch →
                      </Link>
                    </div>
                  </td>
                </tr>
                {line.runs.map((r) => (
                  <RunRow key={r.id} run={r} inBatch />
                ))}
              </tbody>
            ),
          )}
        </table>
      </div>
    </>
  );
}

/** What the batch's runs on this page cost together ("—" while none is charged). */
function batchCost(runs: readonly Generation[]): string {
  const charged = runs.flatMap((r) => (r.usage.cost_usd !== null ? [parseUsd(r.usage.cost_usd) ?? 0] : []));
  return charged.length ? `$${formatUsd(charged.reduce((a, b) => a + b, 0))}` : "—";
}
