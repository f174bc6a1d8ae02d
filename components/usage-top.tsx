// Top members or keys of a range on the Usage page: a table whose spend column carries a bar, so
// it reads as a chart at a glance and as numbers to a screen reader.
import { formatUsd } from "@/lib/primitives/money";

export interface TopRow {
  label: string;
  detail?: string;
  runs: number;
  failed: number;
  costMicros: number;
}

export function UsageTop({ title, rows, empty }: { title: string; rows: TopRow[]; empty: string }) {
  const most = Math.max(1, ...rows.map((r) => r.costMicros));
  // aria-labelledby takes a list of IDs split on spaces: the title's words joined.
  const heading = `top-${title.toLowerCase().replaceAll(" ", "-")}`;
  return (
    <section aria-labelledby={heading} className="rounded-lg border border-zinc-200 bg-white p-4">
      <h2 id={heading} className="mb-3 text-sm font-semibold text-zinc-900">
        {title}
      </h2>
      {rows.length === 0 ? (
        <p className="text-sm text-zinc-500">{empty}</p>
      ) : (
        <table className="w-full table-fixed text-sm">
          <thead className="text-left text-xs text-zinc-500">
            <tr>
              <th className="w-1/2 pb-2 font-medium">Who</th>
              <th className="pb-2 text-right font-medium">Runs</th>
              <th className="pb-2 text-right font-medium">Failed</th>
              <th className="pb-2 text-right font-medium">Spend</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className="border-t border-zinc-100 align-top">
                <td className="py-2 pr-2">
                  <div className="truncate text-zinc-900" title={r.label}>
                    {r.label}
                  </div>
                  {r.detail && <div className="truncate font-mono text-xs text-zinc-500">{r.detail}</div>}
                  <div className="mt-1 h-1.5 rounded-full bg-zinc-100" aria-hidden="true">
                    <div
                      className="h-1.5 rounded-full"
                      style={{ width: `${(100 * r.costMicros) / most}%`, background: "var(--chart-1)" }}
                    />
                  </div>
                </td>
                <td className="py-2 text-right text-zinc-700 tabular-nums">{r.runs}</td>
                <td className="py-2 text-right text-zinc-700 tabular-nums">{r.failed}</td>
                <td className="py-2 text-right font-medium text-zinc-900 tabular-nums">${formatUsd(r.costMicros)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
