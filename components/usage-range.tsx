// A range of days for the Usage and ops Margins pages: presets as links, a custom range and (for
// ops on Usage) a workspace as a plain GET form, so the choice lives in the address and needs no
// JavaScript. `askedRange` reads that address back.
import Link from "next/link";

export const PRESETS = [7, 30, 90] as const;

type Search = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
const DAY_MS = 86_400_000;

/**
 * The range asked for: a preset (`days`), else `from`/`to` as typed (the core checks them, as
 * usage's query: lib/core/usage/usage-query.ts), else the last 30 days.
 */
export function askedRange(
  sp: Search,
  now: Date,
): { preset: number | null; from: string | undefined; to: string | undefined } | { error: string } {
  const days = one(sp.days);
  if (days !== undefined || (one(sp.from) === undefined && one(sp.to) === undefined)) {
    const preset = PRESETS.find((p) => String(p) === (days ?? "30"));
    if (preset === undefined) return { error: `days is one of ${PRESETS.join(", ")}.` };
    const to = now.toISOString().slice(0, 10);
    const from = new Date(Date.parse(to) - (preset - 1) * DAY_MS).toISOString().slice(0, 10);
    return { preset, from, to };
  }
  return { preset: null, from: one(sp.from), to: one(sp.to) };
}

export function UsageRange({
  preset,
  from,
  to,
  workspace,
  workspaces,
  path = "/usage",
}: {
  preset: number | null;
  from: string;
  to: string;
  workspace: string;
  workspaces: { id: string; name: string }[] | null;
  /** The page the links and the form go to. */
  path?: string;
}) {
  const keep = workspace ? `&workspace=${encodeURIComponent(workspace)}` : "";
  const field = "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900";
  return (
    <div className="mb-6 flex flex-wrap items-end gap-x-6 gap-y-3">
      <nav aria-label="Range" className="flex overflow-hidden rounded-md border border-zinc-300 bg-white text-sm">
        {PRESETS.map((days) => (
          <Link
            key={days}
            href={`${path}?days=${days}${keep}`}
            aria-current={preset === days ? "page" : undefined}
            className={`border-r border-zinc-300 px-3 py-1.5 last:border-r-0 ${preset === days ? "bg-zinc-900 font-medium text-white" : "text-zinc-700 hover:bg-zinc-100"}`}
          >
            {days} days
          </Link>
        ))}
      </nav>
      <form action={path} className="flex flex-wrap items-end gap-3 text-sm">
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

/** A range the reader's core refused (its message), with the way back to the default range. */
export function RangeRefusal({ message, path }: { message: string | null; path: string }) {
  return (
    <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
      {message}{" "}
      <Link href={path} className="font-medium underline">
        Show the last 30 days
      </Link>
    </p>
  );
}
