// Ops: who shared what. The latest share links of every workspace (lib/core/shares/share-links.ts) with
// the workspace, the run, who made the link, when, its expiry and whether it still works. A server
// component for the /ops page; it reads only with the ops principal the page got (requireOps).
import type { OpsCtx } from "@/lib/core/ops/ops-principal";
import { listShareLinksForOps, type OpsShareLink } from "@/lib/core/shares/share-links";
import { OpsRunLink } from "./ops-run-link";
import { relativeTime } from "./run-status";

const TONE: Record<OpsShareLink["state"], string> = {
  active: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  expired: "bg-zinc-100 text-zinc-600 ring-zinc-200",
  revoked: "bg-zinc-100 text-zinc-600 ring-zinc-200",
};

function when(iso: string, now: number): string {
  if (Date.parse(iso) <= now) return relativeTime(iso, now);
  const days = Math.round((Date.parse(iso) - now) / 86_400_000);
  return days >= 1 ? `in ${days} d` : `in ${Math.max(1, Math.round((Date.parse(iso) - now) / 3_600_000))} h`;
}

function State({ link }: { link: OpsShareLink }) {
  const label = link.state === "active" ? "Active" : link.state === "expired" ? "Expired" : "Revoked";
  return (
    <span
      title={link.state === "revoked" && link.revoked_at ? `Revoked ${link.revoked_at}` : undefined}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ${TONE[link.state]}`}
    >
      {label}
    </span>
  );
}

export async function OpsShares({ ops, limit = 50 }: { ops: OpsCtx; limit?: number }) {
  const links = await listShareLinksForOps(ops, { limit });
  const now = Date.now();
  return (
    <section
      aria-labelledby="ops-shares"
      className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-zinc-200 px-5 py-3">
        <h2 id="ops-shares" className="text-base font-semibold text-zinc-900">
          Share links
        </h2>
        <span className="text-xs text-zinc-500">Public links to runs, newest first, across every workspace</span>
      </div>
      {links.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-zinc-500">
          Nobody has shared a run yet. Links made from a run page show up here.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full text-left text-sm">
            <thead className="bg-zinc-50 text-xs font-medium tracking-wide text-zinc-500 uppercase">
              <tr>
                <th scope="col" className="py-2 pr-4 pl-5">
                  Workspace
                </th>
                <th scope="col" className="px-4 py-2">
                  Run
                </th>
                <th scope="col" className="px-4 py-2">
                  Shared by
                </th>
                <th scope="col" className="px-4 py-2">
                  Created · expires
                </th>
                <th scope="col" className="px-4 py-2">
                  State
                </th>
                <th scope="col" className="py-2 pr-5 pl-4 text-right">
                  Opens
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {links.map((link) => (
                <tr key={link.id} data-testid="ops-share" data-share-id={link.id}>
                  <td className="py-2 pr-4 pl-5 whitespace-nowrap text-zinc-900">{link.workspace_name}</td>
                  <td className="px-4 py-2 whitespace-nowrap">
                    <OpsRunLink id={link.run_id} />
                    <span className="block font-mono text-xs text-zinc-500">{link.model}</span>
                  </td>
                  <td
                    className="max-w-[16rem] truncate px-4 py-2 text-zinc-700"
                    title={link.created_by}
                    data-testid="ops-share-by"
                  >
                    {link.created_by}
                  </td>
                  <td className="px-4 py-2 whitespace-nowrap text-zinc-500">
                    <span title={link.created_at}>{relativeTime(link.created_at, now)}</span>
                    <span className="block text-xs" title={link.expires_at ?? undefined}>
                      {link.expires_at
                        ? `${link.state === "expired" ? "expired" : "expires"} ${when(link.expires_at, now)}`
                        : "never expires"}
                    </span>
                  </td>
                  <td className="px-4 py-2" data-testid="ops-share-state">
                    <State link={link} />
                  </td>
                  <td className="py-2 pr-5 pl-4 text-right text-zinc-700 tabular-nums">{link.open_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
