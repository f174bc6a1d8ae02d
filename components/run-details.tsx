"use client";
// The run page body: the live run (outputs, cancel, keep) beside its timeline and input.
import Link from "next/link";
import { useState } from "react";
import { RunView, useGeneration } from "./run-view";
import { formatDuration } from "./run-status";
import type { Generation } from "@/lib/core/generation-view";

function Stamp({ label, at, after }: { label: string; at: string | null; after?: string | null }) {
  return (
    <li className="relative pb-4 pl-6 last:pb-0">
      <span aria-hidden className={`absolute top-1.5 left-0 h-2.5 w-2.5 rounded-full ${at ? "bg-indigo-500" : "border border-zinc-300 bg-white"}`} />
      <div className="text-sm font-medium text-zinc-800">{label}</div>
      <div className="text-xs text-zinc-500 tabular-nums" suppressHydrationWarning>
        {at ? new Date(at).toLocaleString() : "—"}
        {at && after ? <span className="ml-1 text-zinc-400">(+{formatDuration(Date.parse(at) - Date.parse(after))})</span> : null}
      </div>
    </li>
  );
}

export function RunDetails({ initial }: { initial: Generation }) {
  const { data } = useGeneration(initial);
  const g = data ?? initial;
  const [copied, setCopied] = useState(false);
  const json = JSON.stringify(g.input, null, 2);
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <div className="rounded-lg border border-zinc-200 bg-white p-5">
        <RunView initial={initial} />
      </div>
      <div className="flex flex-col gap-6">
        <section className="rounded-lg border border-zinc-200 bg-white p-5">
          <h2 className="mb-3 text-sm font-semibold text-zinc-900">Timeline</h2>
          <ol className="border-l border-zinc-200 pl-0" style={{ marginLeft: 4 }}>
            <Stamp label="Created" at={g.created_at} />
            <Stamp label="Started" at={g.started_at} after={g.created_at} />
            <Stamp label={g.status === "canceled" ? "Canceled" : g.status === "failed" ? "Failed" : "Completed"} at={g.completed_at} after={g.started_at ?? g.created_at} />
          </ol>
          <dl className="mt-4 grid grid-cols-2 gap-y-1 border-t border-zinc-100 pt-3 text-sm">
            <dt className="text-zinc-500">Source</dt>
            <dd className="text-right text-zinc-800" data-testid="run-source">{g.source}</dd>
            <dt className="text-zinc-500">Revision</dt>
            <dd className="text-right text-zinc-800">{g.revision}</dd>
            {g.batch_id ? (
              <>
                <dt className="text-zinc-500">Batch</dt>
                <dd className="text-right">
                  <Link
                    href={`/runs?batch=${g.batch_id}`}
                    title="Every run of this batch"
                    data-testid="run-batch"
                    className="font-mono text-xs text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500"
                  >
                    {g.batch_id}
                  </Link>
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="rounded-lg border border-zinc-200 bg-white p-5">
          <div className="mb-2 flex items-center justify-between">
            <h2 className="text-sm font-semibold text-zinc-900">Input</h2>
            <button
              type="button"
              onClick={async () => {
                await navigator.clipboard.writeText(json).catch(() => {});
                setCopied(true);
                setTimeout(() => setCopied(false), 1500);
              }}
              className="rounded-md border border-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-700 hover:bg-zinc-50"
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
          <pre data-testid="run-input" className="max-h-80 overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs leading-5 text-zinc-800">{json}</pre>
        </section>
      </div>
    </div>
  );
}
