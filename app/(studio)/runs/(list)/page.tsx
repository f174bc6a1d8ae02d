import Link from "next/link";
import { listCatalog } from "@/lib/core/catalog/catalog";
import { ApiError } from "@/lib/primitives/errors";
import { countBatchRuns, listGenerations, type GenerationList } from "@/lib/core/runs/generations";
import { cursorPages, CursorPager, pageHref } from "@/components/cursor-pager";
import { QueryProvider } from "@/components/query-provider";
import { RunsFilters } from "@/components/runs-filters";
import { RunsTable } from "@/components/runs-table";
import { memberDirectory } from "@/lib/core/workspaces/members";
import { listApiKeys } from "@/lib/core/keys/api-keys";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const dynamic = "force-dynamic";
export const metadata = { title: "Runs · Atelier" };

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function RunsPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const ctx = await requireStudioCtx();
  // batch comes from a run page's "Batch" link; the selects below keep it until it is cleared.
  // q, from and to are the studio's own filters (prompt words, a range of days in UTC).
  const filters = {
    model: one(sp.model),
    status: one(sp.status),
    source: one(sp.source),
    batch: one(sp.batch),
    q: one(sp.q),
    from: one(sp.from),
    to: one(sp.to),
    by: one(sp.by),
  };
  const limit = ["10", "20", "50", "100"].includes(one(sp.limit) ?? "") ? one(sp.limit)! : "20";
  const cursor = one(sp.cursor);
  const back = one(sp.back)?.split(",") ?? [];
  let page: GenerationList | null = null;
  let batchSizes = new Map<string, number>();
  let error: string | null = null;
  try {
    const { q, from, to, by, ...query } = filters;
    page = await listGenerations(ctx, { ...query, limit, cursor }, { prompt: q, from, to, createdBy: by });
    // Runs of one batch show as one group (unless the list is that batch), with the batch's size.
    if (!filters.batch)
      batchSizes = await countBatchRuns(
        ctx,
        page.data.flatMap((r) => (r.batch_id ? [r.batch_id] : [])),
      );
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    error = err.message;
  }
  const [{ data: models }, members, keys] = await Promise.all([
    listCatalog(ctx.db),
    memberDirectory(ctx),
    listApiKeys(ctx, { workspaceId: ctx.workspaceId }),
  ]);
  // Who may have started a run: members (their studio runs) and API keys (their API and MCP runs).
  const starters = [
    ...members.map((m) => ({ id: m.id, label: m.email })),
    ...keys.map((k) => ({ id: k.id, label: `Key “${k.name}” (${k.hint})` })),
  ];
  const href = pageHref("/runs", { ...filters, limit: limit === "20" ? undefined : limit });
  const pages = cursorPages({ back, cursor, nextCursor: page?.next_cursor, href });
  const filtered = Object.values(filters).some(Boolean);

  return (
    <div className="mx-auto max-w-6xl">
      <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Runs</h1>
          <p className="mt-1 text-sm text-zinc-500">
            Every run of this workspace, newest first, from the API, MCP and the studio. Runs of one batch show as one
            group.
          </p>
        </div>
      </div>
      <RunsFilters models={[...new Set(models.map((m) => m.id))]} starters={starters} current={{ ...filters, limit }} />
      {filters.batch ? (
        <p className="mb-4 flex flex-wrap items-center gap-2 text-sm text-zinc-600" data-testid="batch-filter">
          Runs of batch
          <span className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-0.5 pr-1 pl-2.5 font-mono text-xs text-indigo-700 ring-1 ring-indigo-200 ring-inset">
            {filters.batch}
            <Link
              href={href({ batch: undefined })}
              aria-label="Clear the batch filter"
              className="rounded-full px-1.5 text-indigo-500 hover:bg-indigo-100 hover:text-indigo-800 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              ×
            </Link>
          </span>
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          {error}{" "}
          <Link href="/runs" className="font-medium underline">
            Clear the filters
          </Link>
        </p>
      ) : page && page.data.length === 0 && page.next_cursor ? (
        // A page reads a bounded stretch of the history (lib/core/runs/history-query.ts): none of
        // these runs matched, but older ones may.
        <>
          <div
            className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-500"
            data-testid="stretch-without-match"
          >
            No run in this stretch of the history matches these filters. Older runs may:{" "}
            <Link href={pages.nextHref ?? "/runs"} className="font-medium text-indigo-600">
              look further back
            </Link>
            .
          </div>
          <CursorPager pages={pages} count={0} noun={["run", "runs"]} />
        </>
      ) : page && page.data.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-500">
          {filtered ? (
            <>
              No run matches these filters.{" "}
              <Link href="/runs" className="font-medium text-indigo-600">
                Clear the filters
              </Link>
            </>
          ) : (
            <>
              No runs yet. Open a model in the{" "}
              <Link href="/catalog" className="font-medium text-indigo-600">
                catalog
              </Link>{" "}
              and press Run, or POST /v1/generations.
            </>
          )}
        </div>
      ) : page ? (
        <>
          <QueryProvider>
            <RunsTable runs={page.data} batchSizes={filters.batch ? undefined : Object.fromEntries(batchSizes)} />
          </QueryProvider>
          <CursorPager pages={pages} count={page.data.length} noun={["run", "runs"]} />
        </>
      ) : null}
    </div>
  );
}
