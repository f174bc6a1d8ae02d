import { FilterActions } from "@/components/filter-actions";
import Link from "next/link";
import { OpsQueueShares } from "@/components/ops-queue-shares";
import { opsQueueShares } from "@/lib/core/ops/queue-shares";
import { OpsRunLink } from "@/components/ops-run-link";
import { listCatalog } from "@/lib/core/catalog/catalog";
import { presentCredits } from "@/lib/core/credits/credits";
import { formatUsd } from "@/lib/primitives/money";
import {
  FAILURE_WINDOW_MS,
  opsFailureReasons,
  opsModels,
  opsOverview,
  opsWorkspaces,
  type FailureReason,
  type OpsRun,
  type OpsRunFilter,
} from "@/lib/core/ops/ops";
import { GENERATION_STATUSES } from "@/lib/core/runs/run-states";
import { OpsCreditForm } from "@/components/ops-credit-form";
import { OpsWorkspaceForm } from "@/components/ops-workspace-form";
import { OpsShares } from "@/components/ops-shares";
import { OpsModels } from "@/components/ops-models";
import { OpsLatestRuns, type OpsLatestRun } from "@/components/ops-latest-runs";
import { formatDuration, relativeTime } from "@/components/run-status";
import { requireOps } from "@/app/_studio/studio-ctx";

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

const SELECT =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-500";

function FilterSelect(props: {
  label: string;
  name: string;
  value: string | undefined;
  anyLabel: string;
  options: { value: string; label: string }[];
}) {
  return (
    <label className="block text-xs font-medium text-zinc-600">
      {props.label}
      <select name={props.name} defaultValue={props.value ?? ""} className={SELECT}>
        <option value="">{props.anyLabel}</option>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The time from one moment to another, when both are known. */
function span(from: string | null, to: string | null): string | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? formatDuration(ms) : null;
}

/** What it cost: charged when it succeeded, else what is held while it is unfinished, else nothing. */
function costOf(run: OpsRun): OpsLatestRun["cost"] {
  if (run.charged_micros !== null) return { text: `$${formatUsd(run.charged_micros)}`, tone: "charged" };
  if (run.status === "queued" || run.status === "running")
    return { text: `$${formatUsd(run.price_micros)} held`, tone: "held", title: "Held until it ends" };
  return { text: "$0", tone: "none", title: "Not charged" };
}

/** A row of the latest runs, its text worked out here. */
function latestRun(run: OpsRun, now: number): OpsLatestRun {
  return {
    id: run.id,
    workspace: run.workspace_name,
    model: run.model,
    status: run.status,
    queued: span(run.created_at, run.started_at),
    runTime: span(run.started_at, run.completed_at),
    cost: costOf(run),
    error: run.error_message,
    created: { at: run.created_at, label: relativeTime(run.created_at, now) },
  };
}

/** Failed runs grouped by their error message: what is going wrong, how often, for how many workspaces. */
function FailureReasons({
  reasons,
  filtered,
  failedHref,
  now,
}: {
  reasons: FailureReason[];
  filtered: boolean;
  failedHref: string;
  now: number;
}) {
  const hours = FAILURE_WINDOW_MS / 3_600_000;
  return (
    <section
      aria-labelledby="failure-reasons"
      className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-zinc-200 px-5 py-3">
        <h2 id="failure-reasons" className="text-base font-semibold text-zinc-900">
          Failure reasons
        </h2>
        <span className="text-xs text-zinc-500">
          Failed runs in the last {hours} h{filtered ? ", within the filters" : ""} ·{" "}
          <Link href={failedHref} className="font-medium text-indigo-600 hover:text-indigo-700">
            show failed runs
          </Link>
        </span>
      </div>
      {reasons.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-zinc-500">
          No run failed in the last {hours} hours{filtered ? " within these filters" : ""}.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full text-left text-sm">
            <thead className="bg-zinc-50 text-xs font-medium tracking-wide text-zinc-500 uppercase">
              <tr>
                <th scope="col" className="px-5 py-2">
                  Reason
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  Runs
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  Workspaces
                </th>
                <th scope="col" className="px-5 py-2">
                  Example runs
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  Last failed
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {reasons.map((r) => (
                <tr key={r.message ?? ""} data-testid="failure-reason">
                  <td className="max-w-xl min-w-64 px-5 py-2 text-zinc-800">
                    {r.message ?? <span className="text-zinc-400">No message</span>}
                  </td>
                  <td
                    className="px-5 py-2 text-right font-semibold text-zinc-900 tabular-nums"
                    data-testid="failure-count"
                  >
                    {r.count}
                  </td>
                  <td className="px-5 py-2 text-right text-zinc-600 tabular-nums">{r.workspaces}</td>
                  <td className="px-5 py-2 whitespace-nowrap" data-testid="failure-examples">
                    <span className="flex flex-col gap-0.5">
                      {r.example_run_ids.map((id) => (
                        <OpsRunLink key={id} id={id} />
                      ))}
                    </span>
                  </td>
                  <td className="px-5 py-2 text-right whitespace-nowrap text-zinc-500" title={r.last_failed_at}>
                    {relativeTime(r.last_failed_at, now)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

// Operators only: every workspace's latest runs, the queue, and credit top-ups.
export default async function OpsPage({ searchParams }: { searchParams: Search }) {
  const { ctx, ops } = await requireOps();
  const sp = await searchParams;
  const status = GENERATION_STATUSES.find((s) => s === one(sp.status));
  const filter: OpsRunFilter = { workspaceId: one(sp.workspace), status, model: one(sp.model) };
  const filtered = !!(filter.workspaceId || filter.status || filter.model);
  const [overview, reasons, workspaces, catalog, models, shares] = await Promise.all([
    opsOverview(ops, { filter }),
    opsFailureReasons(ops, { filter }),
    opsWorkspaces(ops),
    listCatalog(ctx.db),
    opsModels(ops),
    opsQueueShares(ops),
  ]);
  const failedQuery = new URLSearchParams({
    ...(filter.workspaceId ? { workspace: filter.workspaceId } : {}),
    status: "failed",
    ...(filter.model ? { model: filter.model } : {}),
  });
  const now = Date.now();
  return (
    <div className="mx-auto max-w-6xl space-y-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Ops</h1>
        <p className="mt-1 text-sm text-zinc-500">
          Every workspace: the queue, the models, why runs fail, the latest runs, and credit.{" "}
          <Link href="/ops/margins" className="font-medium text-indigo-600 hover:text-indigo-700">
            Margins
          </Link>
          : what runs were charged against what they cost at the providers.{" "}
          <Link href="/ops/providers" className="font-medium text-indigo-600 hover:text-indigo-700">
            Providers
          </Link>
          : the remote providers, their keys, health and recent failures.{" "}
          <Link href="/ops/entries" className="font-medium text-indigo-600 hover:text-indigo-700">
            Entries
          </Link>
          : add a model and edit the stored catalog.
        </p>
      </div>

      <section aria-label="Queue" className="grid gap-4 sm:grid-cols-3">
        <Stat label="Queued" value={overview.queued} testId="ops-queued" />
        <Stat label="Running" value={overview.running} testId="ops-running" />
        <Stat label="Runs in the last minute" value={overview.created_last_minute} testId="ops-last-minute" />
      </section>

      <OpsQueueShares shares={shares} />

      <OpsModels models={models} now={now} />

      {/* A plain GET form: the filters narrow both the failure reasons and the runs, and live in the
          URL so a view can be shared. Keyed by the filters: "Clear" is a client navigation, and an
          uncontrolled select kept showing a filter no longer applied unless the form is made anew. */}
      <form
        key={`${filter.workspaceId ?? ""}|${filter.status ?? ""}|${filter.model ?? ""}`}
        method="get"
        aria-label="Run filters"
        className="grid gap-3 rounded-lg border border-zinc-200 bg-white px-5 py-4 shadow-sm sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end"
      >
        <FilterSelect
          label="Workspace filter"
          name="workspace"
          value={filter.workspaceId}
          anyLabel="Every workspace"
          options={workspaces.map((w) => ({ value: w.id, label: w.name }))}
        />
        <FilterSelect
          label="Status filter"
          name="status"
          value={filter.status}
          anyLabel="Any status"
          options={GENERATION_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }))}
        />
        <FilterSelect
          label="Model filter"
          name="model"
          value={filter.model}
          anyLabel="Every model"
          options={catalog.data.map((m) => ({ value: m.id, label: m.id }))}
        />
        <FilterActions filtered={filtered} clearHref="/ops" />
      </form>

      <FailureReasons reasons={reasons} filtered={filtered} failedHref={`/ops?${failedQuery.toString()}`} now={now} />

      <section className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm">
        <h2 className="border-b border-zinc-200 px-5 py-3 text-base font-semibold text-zinc-900">Latest runs</h2>
        {overview.runs.length === 0 ? (
          <p className="px-5 py-8 text-center text-sm text-zinc-500">
            {filtered ? "No runs match these filters." : "No runs yet."}
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full text-left text-sm">
              <thead className="bg-zinc-50 text-xs font-medium tracking-wide whitespace-nowrap text-zinc-500 uppercase">
                <tr>
                  <th className="px-5 py-2">Run</th>
                  <th className="px-5 py-2">Workspace</th>
                  <th className="px-5 py-2">Model</th>
                  <th className="px-5 py-2">Status</th>
                  <th className="px-5 py-2 text-right" title="From created to started">
                    Queued
                  </th>
                  <th className="px-5 py-2 text-right" title="From started to completed">
                    Run time
                  </th>
                  <th className="px-5 py-2 text-right">Cost</th>
                  <th className="px-5 py-2">Error</th>
                  <th className="px-5 py-2">Created</th>
                </tr>
              </thead>
              <OpsLatestRuns runs={overview.runs.map((run) => latestRun(run, now))} />
            </table>
          </div>
        )}
      </section>

      <OpsShares ops={ops} />

      <section className="rounded-lg border border-zinc-200 bg-white p-5 shadow-sm">
        <h2 className="text-base font-semibold text-zinc-900">Add credit</h2>
        <p className="mt-1 mb-4 text-sm text-zinc-500">
          The amount is added to the workspace's available balance and written to its ledger.
        </p>
        <OpsCreditForm
          workspaces={workspaces.map((w) => ({
            id: w.id,
            name: w.name,
            available_usd: presentCredits(w.balance).available_usd,
          }))}
        />
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-5 shadow-sm">
        <h2 className="text-base font-semibold text-zinc-900">New workspace</h2>
        <p className="mt-1 mb-4 text-sm text-zinc-500">
          It starts empty; whoever accepts the invitation becomes its owner and invites the rest.
        </p>
        <OpsWorkspaceForm />
      </section>
    </div>
  );
}
