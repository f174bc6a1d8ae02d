"use client";
// The ops page's latest runs across workspaces. A client component fed plain rows: as server
// markup, its fifty rows went into the page's RSC payload element by element (every class name
// twice), which made /ops the heaviest page to render; the row text is worked out on the server.
import { OpsRunLink } from "./ops-run-link";
import { RunStatusPill } from "./run-status";

export interface OpsLatestRun {
  id: string;
  workspace: string;
  model: string;
  status: string;
  /** From created to started, and from started to completed, when known. */
  queued: string | null;
  runTime: string | null;
  cost: { text: string; tone: "charged" | "held" | "none"; title?: string };
  error: string | null;
  created: { at: string; label: string };
}

const NONE = <span className="text-zinc-300">—</span>;
const COST_TONE = { charged: "", held: "text-zinc-500", none: "text-zinc-400" } as const;

export function OpsLatestRuns({ runs }: { runs: readonly OpsLatestRun[] }) {
  return (
    <tbody className="divide-y divide-zinc-100">
      {runs.map((run) => (
        <tr key={run.id} data-testid="ops-run">
          <td className="px-5 py-2 whitespace-nowrap">
            <OpsRunLink id={run.id} />
          </td>
          <td className="px-5 py-2 whitespace-nowrap text-zinc-900">{run.workspace}</td>
          <td className="px-5 py-2 font-mono text-xs text-zinc-700">{run.model}</td>
          <td className="px-5 py-2">
            <RunStatusPill status={run.status} />
          </td>
          <td
            className="px-5 py-2 text-right whitespace-nowrap text-zinc-600 tabular-nums"
            data-testid="ops-run-queued"
          >
            {run.queued ?? NONE}
          </td>
          <td className="px-5 py-2 text-right whitespace-nowrap text-zinc-600 tabular-nums" data-testid="ops-run-time">
            {run.runTime ?? NONE}
          </td>
          <td className="px-5 py-2 text-right whitespace-nowrap text-zinc-800 tabular-nums" data-testid="ops-run-cost">
            {run.cost.tone === "charged" ? (
              run.cost.text
            ) : (
              <span className={COST_TONE[run.cost.tone]} title={run.cost.title}>
                {run.cost.text}
              </span>
            )}
          </td>
          <td className="max-w-[14rem] truncate px-5 py-2 text-red-700" title={run.error ?? undefined}>
            {run.error ?? NONE}
          </td>
          <td className="px-5 py-2 whitespace-nowrap text-zinc-500" title={run.created.at}>
            {run.created.label}
          </td>
        </tr>
      ))}
    </tbody>
  );
}
