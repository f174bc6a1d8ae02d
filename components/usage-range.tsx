// The Usage page's range: presets as links, a custom range and (for ops) a workspace as a plain
// GET form, so the choice lives in the address and needs no JavaScript.
import Link from "next/link";

export const PRESETS = [7, 30, 90] as const;

export function UsageRange({
  preset,
  from,
  to,
  workspace,
  workspaces,
}: {
  preset: number | null;
  from: string;
  to: string;
  workspace: string;
  workspaces: { id: string; name: string }[] | null;
}) {
  const keep = workspace ? `&workspace=${encodeURIComponent(workspace)}` : "";
  const field = "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900";
  return (
    <div className="mb-6 flex flex-wrap items-end gap-x-6 gap-y-3">
      <nav aria-label="Range" className="flex overflow-hidden rounded-md border border-zinc-300 bg-white text-sm">
        {PRESETS.map((days) => (
          <Link
            key={days}
            href={`/usage?days=${days}${keep}`}
            aria-current={preset === days ? "page" : undefined}
            className={`border-r border-zinc-300 px-3 py-1.5 last:border-r-0 ${preset === days ? "bg-zinc-900 font-medium text-white" : "text-zinc-700 hover:bg-zinc-100"}`}
          >
            {days} days
          </Link>
        ))}
      </nav>
      <form action="/usage" className="flex flex-wrap items-end gap-3 text-sm">
        <label className="flex flex-col gap-1 text-zinc-600">
          From
          <input type="date" name="from" defaultValue={from} className={field} />
        </label>
        <label className="flex flex-col gap-1 text-zinc-600">
          To
          <input type="date" name="to" defaultValue={to} className={field} />
        </label>
        {workspaces && (
          <label className="flex flex-col gap-1 text-zinc-600">
            Workspace
            <select name="workspace" defaultValue={workspace} className={field}>
              <option value="">All workspaces</option>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button
          type="submit"
          className="rounded-md bg-indigo-600 px-3 py-1.5 font-medium text-white hover:bg-indigo-500"
        >
          Show
        </button>
      </form>
    </div>
  );
}
