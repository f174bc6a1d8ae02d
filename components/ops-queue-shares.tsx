// The ops page's queue by workspace (issue 38): who runs what share now, who waits in which lane,
// and each workspace's weight and cap in the fair order. A server component: no interaction.
import type { QueueShare } from "@/lib/core/ops/queue-shares";

const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 0 });

export function OpsQueueShares({ shares }: { shares: QueueShare[] }) {
  return (
    <section aria-labelledby="queue-shares" className="rounded-lg border border-zinc-200 bg-white shadow-sm">
      <div className="border-b border-zinc-100 px-5 py-4">
        <h2 id="queue-shares" className="text-base font-semibold text-zinc-900">
          Queue by workspace
        </h2>
        <p className="mt-1 text-sm text-zinc-500">
          Runs start in a fair order: interactive ones (the studio, agents, a create that waits) before bulk ones
          (batches, plain API creates), and across workspaces by weight, so one workspace&apos;s batch does not hold up
          the rest. Set a weight or a cap with <code className="text-xs">admin workspace queue</code>.
        </p>
      </div>
      {shares.length === 0 ? (
        <p className="px-5 py-6 text-sm text-zinc-500" data-testid="queue-shares-empty">
          Nothing is waiting or running.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="queue-shares">
            <thead className="bg-zinc-50 text-xs text-zinc-500">
              <tr>
                <th className="px-5 py-2 font-medium">Workspace</th>
                <th className="px-3 py-2 text-right font-medium">Weight</th>
                <th className="px-3 py-2 text-right font-medium">Cap</th>
                <th className="px-3 py-2 text-right font-medium">Running (share)</th>
                <th className="px-3 py-2 text-right font-medium">Waiting, interactive</th>
                <th className="px-5 py-2 text-right font-medium">Waiting, bulk</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 tabular-nums">
              {shares.map((s) => (
                <tr key={s.workspace_id} data-testid="queue-share" data-workspace-id={s.workspace_id}>
                  <td className="px-5 py-2 break-all text-zinc-900">{s.workspace_name}</td>
                  <td className="px-3 py-2 text-right">{s.weight}</td>
                  <td className="px-3 py-2 text-right">{s.max_running ?? "none"}</td>
                  <td className="px-3 py-2 text-right">
                    {s.running} ({percent.format(s.share)})
                  </td>
                  <td className="px-3 py-2 text-right">{s.waiting_interactive}</td>
                  <td className="px-5 py-2 text-right">{s.waiting_bulk}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
