// Operators only: what every workspace's runs were charged against what they cost at the
// providers, per model and provider, over a range of days (lib/core/ops/margins.ts). It asks for
// the ops principal itself: the layout's 404 sets the status but does not stop this page's render.
// Bad input is a message, never a 500.
import { opsMargins, type MarginFigures, type Margins } from "@/lib/core/ops/margins";
import { ApiError } from "@/lib/primitives/errors";
import { formatUsd } from "@/lib/primitives/money";
import { askedRange, RangeRefusal, UsageRange } from "@/components/usage-range";
import { requireOps } from "@/app/_studio/studio-ctx";
import { Breadcrumb } from "@/components/breadcrumb";

export const dynamic = "force-dynamic";
export const metadata = { title: "Margins · Ops · Atelier" };

type Search = Promise<Record<string, string | string[] | undefined>>;

/** "$0.0125", "−$0.30": a minus sign before the dollar, as people write a loss. */
const usd = (micros: number) => (micros < 0 ? `−$${formatUsd(-micros)}` : `$${formatUsd(micros)}`);
const percent = (value: number | null) => (value === null ? "—" : `${value < 0 ? "−" : ""}${Math.abs(value).toFixed(1)}%`); // prettier-ignore
const tone = (micros: number | null) =>
  micros === null ? "text-zinc-400" : micros < 0 ? "text-red-700" : "text-emerald-700";

export default async function OpsMarginsPage({ searchParams }: { searchParams: Search }) {
  const { ops } = await requireOps();
  const asked = askedRange(await searchParams, new Date());
  let error = "error" in asked ? asked.error : null;
  let margins: Margins | null = null;
  if (!("error" in asked)) {
    try {
      margins = await opsMargins(ops, { from: asked.from, to: asked.to });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error = err.message;
    }
  }
  const preset = "error" in asked ? null : asked.preset;
  return (
    <div className="mx-auto max-w-6xl">
      <Breadcrumb parent={{ href: "/ops", label: "Ops" }}>
        <span>Margins</span>
      </Breadcrumb>
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Margins</h1>
        <p className="mt-1 max-w-3xl text-sm text-zinc-500">
          Every workspace&apos;s runs by the day they started (UTC): what they were charged, what they cost at the
          provider (the providers file&apos;s <code className="text-xs">cost</code>), and the margin over the runs whose
          cost is known. Built-in models and entries without a cost have none. Only operators see these figures.
        </p>
      </div>
      <UsageRange
        preset={preset}
        from={margins?.from ?? ""}
        to={margins?.to ?? ""}
        workspace=""
        workspaces={null}
        path="/ops/margins"
      />
      {error || !margins ? <RangeRefusal message={error} path="/ops/margins" /> : <MarginsBody margins={margins} />}
    </div>
  );
}

function MarginsBody({ margins }: { margins: Margins }) {
  const { total } = margins;
  const card = "rounded-lg border border-zinc-200 bg-white p-4";
  return (
    <>
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-4" data-testid="margins-totals">
        {[
          [
            "Charged",
            usd(total.chargedMicros),
            "margins-charged",
            `${total.succeeded} succeeded of ${total.runs} runs`,
          ],
          ["Provider cost", usd(total.costMicros), "margins-cost", `known for ${total.costedRuns} runs`],
          [
            "Margin",
            total.marginMicros === null ? "—" : usd(total.marginMicros),
            "margins-margin",
            `on ${usd(total.costedChargedMicros)} charged for them`,
          ],
          ["Margin %", percent(total.marginPercent), "margins-percent", `${margins.from} to ${margins.to}`],
        ].map(([label, value, id, note]) => (
          <div key={id} className={card}>
            <dt className="text-xs text-zinc-500">{label}</dt>
            <dd data-testid={id} className="mt-1 text-lg font-semibold text-zinc-900 tabular-nums">
              {value}
            </dd>
            <dd className="text-xs text-zinc-500 tabular-nums">{note}</dd>
          </div>
        ))}
      </dl>
      <section
        aria-labelledby="margins-heading"
        className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm"
      >
        <h2 id="margins-heading" className="border-b border-zinc-200 px-5 py-3 text-base font-semibold text-zinc-900">
          By model and provider
        </h2>
        {margins.data.length === 0 ? (
          <p className="px-5 py-8 text-center text-sm text-zinc-500">No runs in this range.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full text-left text-sm">
              <thead className="bg-zinc-50 text-xs font-medium tracking-wide whitespace-nowrap text-zinc-500 uppercase">
                <tr>
                  <th scope="col" className="px-4 py-2">
                    Model
                  </th>
                  <th scope="col" className="px-4 py-2">
                    Provider
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Runs
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Succeeded
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Charged
                  </th>
                  <th scope="col" className="px-4 py-2 text-right" title="Succeeded runs whose provider cost is known">
                    Cost known
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Provider cost
                  </th>
                  <th
                    scope="col"
                    className="px-4 py-2 text-right"
                    title="Charged minus cost, over the runs whose cost is known"
                  >
                    Margin
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Margin %
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {margins.data.map((row) => (
                  <tr key={`${row.model} ${row.provider ?? ""}`} data-testid="margins-row">
                    <td className="px-4 py-2 font-mono text-xs text-zinc-800">{row.model}</td>
                    <td className="px-4 py-2 text-zinc-700">
                      {row.provider ?? <span className="text-zinc-400">—</span>}
                    </td>
                    <Figures figures={row} />
                  </tr>
                ))}
              </tbody>
              <tfoot className="border-t-2 border-zinc-200 bg-zinc-50 font-semibold">
                <tr data-testid="margins-total">
                  <th scope="row" colSpan={2} className="px-4 py-2 text-zinc-900">
                    All
                  </th>
                  <Figures figures={total} />
                </tr>
              </tfoot>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function Figures({ figures: f }: { figures: MarginFigures }) {
  const cell = "px-4 py-2 text-right tabular-nums";
  return (
    <>
      <td className={cell}>{f.runs}</td>
      <td className={cell}>{f.succeeded}</td>
      <td className={cell}>{usd(f.chargedMicros)}</td>
      <td className={`${cell} text-zinc-600`}>
        {f.costedRuns} of {f.succeeded}
      </td>
      <td className={cell}>{f.costedRuns === 0 ? <span className="text-zinc-400">—</span> : usd(f.costMicros)}</td>
      <td className={`${cell} ${tone(f.marginMicros)}`}>{f.marginMicros === null ? "—" : usd(f.marginMicros)}</td>
      <td className={`${cell} ${tone(f.marginMicros)}`}>{percent(f.marginPercent)}</td>
    </>
  );
}
