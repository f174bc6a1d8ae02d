import { getUsage, type Usage } from "@/lib/core/usage/usage";
import { getDailyUsage } from "@/lib/core/usage/usage-daily";
import { getDailyUsageForOps, getUsageForOps } from "@/lib/core/usage/usage-ops";
import { roleAtLeast } from "@/lib/core/workspaces/roles";
import { listWorkspaces } from "@/lib/core/workspaces/workspaces";
import { ApiError } from "@/lib/primitives/errors";
import { formatUsd, parseUsd } from "@/lib/primitives/money";
import { RoleNotice } from "@/components/role-notice";
import { RunsChart, SpendChart } from "@/components/usage-charts";
import { askedRange, RangeRefusal, UsageRange } from "@/components/usage-range";
import { UsageTop, type TopRow } from "@/components/usage-top";
import { requireStudioCtx, studioOps } from "@/app/_studio/studio-ctx";
import { chartData } from "./chart-data";

export const dynamic = "force-dynamic";
export const metadata = { title: "Usage · Atelier" };

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
const TOP = 10;
const usd = (micros: number) => `$${formatUsd(micros)}`;
const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${Math.round((100 * part) / whole)}%`);

// Runs and spend over a range: owners and admins see their workspace's, ops every workspace's or
// any one's. Read through the same verbs as GET /v1/usage with this page's Ctx (or the ops
// principal): the role is checked where the data is read. Bad input is a message, never a 500.
export default async function UsagePage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const ctx = await requireStudioCtx();
  const ops = await studioOps(ctx);
  if (!ops && !roleAtLeast(ctx.user.role, "admin"))
    return (
      <RoleNotice title="Usage" role={ctx.user.role} who="Admins and owners see this workspace's runs and spend." />
    );
  const workspace = ops ? (one(sp.workspace) ?? "") : "";
  const asked = askedRange(sp, new Date());
  let error = "error" in asked ? asked.error : null;
  let read = null;
  if (!("error" in asked)) {
    const range = { from: asked.from, to: asked.to };
    const grouped = (group_by: "member" | "key"): Promise<Usage> =>
      ops ? getUsageForOps(ops, { ...range, group_by, workspace }) : getUsage(ctx, { ...range, group_by });
    try {
      const [daily, members, keys] = await Promise.all([
        ops ? getDailyUsageForOps(ops, { ...range, workspace }) : getDailyUsage(ctx, range),
        grouped("member"),
        grouped("key"),
      ]);
      read = { daily, members, keys };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error = err.message;
    }
  }
  const workspaces = ops ? (await listWorkspaces(ops)).map((w) => ({ id: w.id, name: w.name })) : null;
  const preset = "error" in asked ? null : asked.preset;
  const shown = read ? { from: read.daily.from, to: read.daily.to } : { from: "", to: "" };

  return (
    <div className="mx-auto max-w-6xl">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Usage</h1>
        <p className="mt-1 text-sm text-zinc-500">
          {ops ? (workspace ? "This workspace's" : "Every workspace's") : "This workspace's"} runs and what they were
          charged, by the day they started (UTC). The same figures as <code className="text-xs">GET /v1/usage</code>.
        </p>
      </div>
      <UsageRange preset={preset} {...shown} workspace={workspace} workspaces={workspaces} />
      {error || !read ? <RangeRefusal message={error} path="/usage" /> : <UsageBody {...read} workspace={workspace} />}
    </div>
  );
}

function UsageBody({
  daily,
  members,
  keys,
  workspace,
}: {
  daily: Awaited<ReturnType<typeof getDailyUsage>>;
  members: Usage;
  keys: Usage;
  workspace: string;
}) {
  const { days, series, runs, perDay, models } = chartData(daily);
  const failed = perDay.reduce((n, d) => n + d.failed, 0);
  const ended = perDay.reduce((n, d) => n + d.succeeded + d.failed, 0);
  const busiest = perDay.reduce((a, b) => (b.costMicros > a.costMicros ? b : a), perDay[0]!);
  const csv = (group_by: string) =>
    `/api/usage/csv?${new URLSearchParams({ from: daily.from, to: daily.to, group_by, ...(workspace && { workspace }) })}`;
  const top = (usage: Usage, row: (r: Usage["data"][number]) => Pick<TopRow, "label" | "detail">): TopRow[] =>
    usage.data
      .slice(0, TOP)
      .map((r) => ({ ...row(r), runs: r.runs, failed: r.failed, costMicros: parseUsd(r.cost_usd) ?? 0 }));
  const card = "rounded-lg border border-zinc-200 bg-white p-4";
  return (
    <>
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-4" data-testid="usage-totals">
        {[
          ["Spend", usd(daily.total.costMicros), "usage-spend"],
          ["Runs", String(daily.total.runs), "usage-runs"],
          ["Failed", `${failed} (${percent(failed, ended)})`, "usage-failed"],
          ["Days", `${days.length}`, "usage-days", `${daily.from} to ${daily.to}`],
        ].map(([label, value, id, note]) => (
          <div key={id} className={card}>
            <dt className="text-xs text-zinc-500">{label}</dt>
            <dd data-testid={id} className="mt-1 text-lg font-semibold text-zinc-900 tabular-nums">
              {value}
            </dd>
            {note && <dd className="text-xs text-zinc-500 tabular-nums">{note}</dd>}
          </div>
        ))}
      </dl>

      <section aria-labelledby="spend-heading" className={`${card} mb-6`}>
        <h2 id="spend-heading" className="text-sm font-semibold text-zinc-900">
          Spend per day, by model
        </h2>
        <p className="mt-1 mb-3 text-sm text-zinc-500">
          {daily.total.costMicros === 0
            ? "Nothing was charged in this range."
            : `${usd(daily.total.costMicros)} over ${days.length} days; the most on ${busiest.day} (${usd(busiest.costMicros)}).`}
        </p>
        <SpendChart days={days} series={series} />
        <ul className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600">
          {series.map((s) => (
            <li key={s.name} className="flex items-center gap-1.5">
              <span className="inline-block size-2.5 rounded-sm" style={{ background: s.color }} aria-hidden="true" />
              {s.name} {usd(s.micros.reduce((a, b) => a + b, 0))}
            </li>
          ))}
        </ul>
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer text-zinc-600">Spend by model as a table</summary>
          <table className="mt-2 w-full text-sm">
            <thead className="text-left text-xs text-zinc-500">
              <tr>
                <th className="py-1 font-medium">Model</th>
                <th className="py-1 text-right font-medium">Runs</th>
                <th className="py-1 text-right font-medium">Spend</th>
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr key={m.model} className="border-t border-zinc-100">
                  <td className="py-1 font-mono text-xs text-zinc-800">{m.model}</td>
                  <td className="py-1 text-right tabular-nums">{m.runs}</td>
                  <td className="py-1 text-right tabular-nums">{usd(m.costMicros)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </section>

      <section aria-labelledby="runs-heading" className={`${card} mb-6`}>
        <h2 id="runs-heading" className="text-sm font-semibold text-zinc-900">
          Runs and failure rate per day
        </h2>
        <p className="mt-1 mb-3 text-sm text-zinc-500">
          {daily.total.runs} runs; {failed} failed, {percent(failed, ended)} of those that ended. Bars: runs by outcome
          (green succeeded, red failed, grey canceled or unfinished); line: the day&apos;s failure rate (right axis).
        </p>
        <RunsChart days={days} runs={runs} />
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer text-zinc-600">Each day as a table</summary>
          <table className="mt-2 w-full text-sm">
            <thead className="text-left text-xs text-zinc-500">
              <tr>
                <th className="py-1 font-medium">Day</th>
                <th className="py-1 text-right font-medium">Runs</th>
                <th className="py-1 text-right font-medium">Failed</th>
                <th className="py-1 text-right font-medium">Failure rate</th>
                <th className="py-1 text-right font-medium">Spend</th>
              </tr>
            </thead>
            <tbody>
              {perDay
                .filter((d) => d.runs > 0)
                .map((d) => (
                  <tr key={d.day} className="border-t border-zinc-100">
                    <td className="py-1 tabular-nums">{d.day}</td>
                    <td className="py-1 text-right tabular-nums">{d.runs}</td>
                    <td className="py-1 text-right tabular-nums">{d.failed}</td>
                    <td className="py-1 text-right tabular-nums">{percent(d.failed, d.succeeded + d.failed)}</td>
                    <td className="py-1 text-right tabular-nums">{usd(d.costMicros)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </details>
      </section>

      <div className="mb-6 grid gap-6 md:grid-cols-2">
        <UsageTop
          title="Top members"
          empty="No runs in this range."
          rows={top(members, (r) =>
            "member" in r && r.member !== null
              ? { label: r.email ?? r.member }
              : { label: "No member", detail: "keys the admin CLI made" },
          )}
        />
        <UsageTop
          title="Top keys"
          empty="No runs in this range."
          rows={top(keys, (r) =>
            "key" in r && r.key !== null
              ? { label: r.name ?? "(deleted key)", detail: r.key }
              : { label: "The studio", detail: "runs started without a key" },
          )}
        />
      </div>

      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-zinc-600">
        <a href={csv("day")} download className="font-medium text-indigo-700 underline" data-testid="usage-csv">
          Download CSV
        </a>
        <span>
          per day; or per{" "}
          {(["model", "member", "key"] as const).map((g, i) => (
            <span key={g}>
              {i > 0 && ", "}
              <a href={csv(g)} download className="text-indigo-700 underline">
                {g}
              </a>
            </span>
          ))}
        </span>
      </p>
    </>
  );
}
