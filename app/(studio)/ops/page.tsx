import { notFound } from "next/navigation";
import { presentCredits, readBalance } from "@/lib/core/credits";
import { opsOverview } from "@/lib/core/ops";
import { listWorkspaces } from "@/lib/core/workspaces";
import { OpsCreditForm } from "@/components/ops-credit-form";
import { RunStatusPill, relativeTime } from "@/components/run-status";
import { requireStudioCtx } from "../studio-ctx";

export const metadata = { title: "Ops · Atelier" };
export const dynamic = "force-dynamic";

function Stat({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm">
      <div className="text-xs font-medium tracking-wide text-zinc-500 uppercase">{label}</div>
      <div className="mt-1 text-2xl font-semibold text-zinc-900 tabular-nums" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

// Operators only: every workspace's latest runs, the queue, and credit top-ups.
export default async function OpsPage() {
  const ctx = await requireStudioCtx();
  if (ctx.user.role !== "ops") notFound();
  const [overview, workspaces] = await Promise.all([opsOverview(ctx), listWorkspaces(ctx)]);
  const balances = await Promise.all(workspaces.map((w) => readBalance(ctx.db, w.id)));
  const now = Date.now();
  return (
    <div className="mx-auto max-w-6xl space-y-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Ops</h1>
        <p className="mt-1 text-sm text-zinc-500">Every workspace: the queue, the latest runs, and credit.</p>
      </div>

      <section aria-label="Queue" className="grid gap-4 sm:grid-cols-3">
        <Stat label="Queued" value={overview.queued} testId="ops-queued" />
        <Stat label="Running" value={overview.running} testId="ops-running" />
        <Stat label="Runs in the last minute" value={overview.created_last_minute} testId="ops-last-minute" />
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-5 shadow-sm">
        <h2 className="text-base font-semibold text-zinc-900">Add credit</h2>
        <p className="mt-1 mb-4 text-sm text-zinc-500">The amount is added to the workspace's available balance and written to its ledger.</p>
        <OpsCreditForm
          workspaces={workspaces.map((w, i) => ({ id: w.id, name: w.name, available_usd: presentCredits(balances[i]!).available_usd }))}
        />
      </section>

      <section className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm">
        <h2 className="border-b border-zinc-200 px-5 py-3 text-base font-semibold text-zinc-900">Latest runs</h2>
        {overview.runs.length === 0 ? (
          <p className="px-5 py-8 text-center text-sm text-zinc-500">No runs yet.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full text-left text-sm">
              <thead className="bg-zinc-50 text-xs font-medium tracking-wide text-zinc-500 uppercase">
                <tr>
                  <th className="px-5 py-2">Run</th>
                  <th className="px-5 py-2">Workspace</th>
                  <th className="px-5 py-2">Model</th>
                  <th className="px-5 py-2">Status</th>
                  <th className="px-5 py-2">Error</th>
                  <th className="px-5 py-2">Created</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {overview.runs.map((run) => (
                  <tr key={run.id} data-testid="ops-run">
                    <td className="px-5 py-2 font-mono text-xs text-zinc-600">{run.id}</td>
                    <td className="px-5 py-2 text-zinc-900">{run.workspace_name}</td>
                    <td className="px-5 py-2 font-mono text-xs text-zinc-700">{run.model}</td>
                    <td className="px-5 py-2">
                      <RunStatusPill status={run.status} />
                    </td>
                    <td className="max-w-xs truncate px-5 py-2 text-red-700" title={run.error_message ?? undefined}>
                      {run.error_message ?? <span className="text-zinc-300">—</span>}
                    </td>
                    <td className="px-5 py-2 whitespace-nowrap text-zinc-500" title={run.created_at}>
                      {relativeTime(run.created_at, now)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
