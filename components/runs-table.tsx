"use client";
import { useEffect } from "react";
import { useRouter } from "next/navigation";
import type { Generation } from "@/lib/core/generation-view";
import { RunStatusPill, relativeTime } from "./run-status";

/** The history table; while a row is unfinished the page refreshes every 2 s. */
export function RunsTable({ runs }: { runs: Generation[] }) {
  const router = useRouter();
  const live = runs.some((r) => r.status === "queued" || r.status === "running");
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(t);
  }, [live, router]);
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-left text-sm" data-testid="runs-table">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
          <tr>
            <th scope="col" className="w-16 px-4 py-2.5"><span className="sr-only">Preview</span></th>
            <th scope="col" className="px-4 py-2.5">Model</th>
            <th scope="col" className="px-4 py-2.5">Status</th>
            <th scope="col" className="px-4 py-2.5">Source</th>
            <th scope="col" className="px-4 py-2.5 text-right">Cost</th>
            <th scope="col" className="px-4 py-2.5 text-right">Created</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {runs.map((r) => {
            const image = r.output.find((o) => o.type === "image")?.url ?? r.output.find((o) => o.poster)?.poster?.url ?? r.preview?.url;
            return (
              <tr key={r.id} data-testid="run-row" data-status={r.status} className="cursor-pointer hover:bg-zinc-50" onClick={() => router.push(`/runs/${r.id}`)}>
                <td className="px-4 py-2">
                  {image ? (
                    <img src={image} alt="" className="h-10 w-10 rounded-md border border-zinc-200 object-cover" loading="lazy" />
                  ) : (
                    <div className="flex h-10 w-10 items-center justify-center rounded-md bg-zinc-100 text-[10px] text-zinc-400 uppercase">{r.modality.slice(0, 3)}</div>
                  )}
                </td>
                <td className="px-4 py-2">
                  <a href={`/runs/${r.id}`} onClick={(e) => e.stopPropagation()} className="font-medium text-zinc-900 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500">
                    {r.model}
                  </a>
                  <div className="font-mono text-xs text-zinc-400">{r.id}</div>
                </td>
                <td className="px-4 py-2"><RunStatusPill status={r.status} /></td>
                <td className="px-4 py-2 text-zinc-600" data-testid="run-source">{r.source}</td>
                <td className="px-4 py-2 text-right text-zinc-700 tabular-nums">{r.usage.cost_usd !== null ? `$${r.usage.cost_usd}` : "—"}</td>
                <td className="px-4 py-2 text-right text-zinc-500" title={new Date(r.created_at).toLocaleString()} suppressHydrationWarning>
                  {relativeTime(r.created_at)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
