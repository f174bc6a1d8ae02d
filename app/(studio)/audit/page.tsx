import Link from "next/link";
import { listAuditEvents, listAuditEventsForOps } from "@/lib/core/audit/audit-events";
import { listApiKeys } from "@/lib/core/keys/api-keys";
import { memberDirectory } from "@/lib/core/workspaces/members";
import { roleAtLeast } from "@/lib/core/workspaces/roles";
import { listWorkspaces } from "@/lib/core/workspaces/workspaces";
import { ApiError } from "@/lib/primitives/errors";
import { AuditFilters } from "@/components/audit-filters";
import { AuditTable, type AuditRow } from "@/components/audit-table";
import { cursorPages, CursorPager, pageHref } from "@/components/cursor-pager";
import { RoleNotice } from "@/components/role-notice";
import { requireStudioCtx, studioOps } from "@/app/_studio/studio-ctx";

export const dynamic = "force-dynamic";
export const metadata = { title: "Audit · Atelier" };

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
const PAGE_SIZES = ["10", "20", "50", "100"];
const PAGE_SIZE = "50";

// Who changed what: owners and admins see their workspace's audit log; ops see every workspace's,
// and the install's own changes (pauses, passwords, the ops flag). Read through the same verbs as
// GET /v1/audit-events, with this page's Ctx: the role is checked where the data is read.
export default async function AuditPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const ctx = await requireStudioCtx();
  const ops = await studioOps(ctx);
  if (!ops && !roleAtLeast(ctx.user.role, "admin"))
    return (
      <RoleNotice title="Audit" role={ctx.user.role} who="Admins and owners see who changed what in this workspace." />
    );
  const filters = {
    action: one(sp.action),
    actor: one(sp.actor),
    from: one(sp.from),
    to: one(sp.to),
    ...(ops && { workspace: one(sp.workspace) }),
  };
  const limit = PAGE_SIZES.includes(one(sp.limit) ?? "") ? one(sp.limit)! : PAGE_SIZE;
  const cursor = one(sp.cursor);
  const back = one(sp.back)?.split(",") ?? [];
  let page: { data: AuditRow[]; next_cursor: string | null } | null = null;
  let error: string | null = null;
  try {
    const query = { ...filters, limit, ...(cursor !== undefined && { cursor }) };
    page = ops ? await listAuditEventsForOps(ops, ctx.services, query) : await listAuditEvents(ctx, query);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    error = err.message;
  }
  // Suggestions for the actor field and names for this workspace's keys; ops also pick a workspace.
  const [members, keys, workspaces] = await Promise.all([
    memberDirectory(ctx),
    listApiKeys(ctx, { workspaceId: ctx.workspaceId }),
    ops ? listWorkspaces(ops) : null,
  ]);
  const actors = [
    ...members.map((m) => ({ id: m.id, label: m.email })),
    ...keys.map((k) => ({ id: k.id, label: `Key “${k.name}” (${k.hint})` })),
    { id: "cli", label: "The admin CLI" },
  ];
  const href = pageHref("/audit", { ...filters, limit: limit === PAGE_SIZE ? undefined : limit });
  const pages = cursorPages({ back, cursor, nextCursor: page?.next_cursor, href });
  const filtered = Object.values(filters).some(Boolean);

  return (
    <div className="mx-auto max-w-6xl">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Audit</h1>
        <p className="mt-1 text-sm text-zinc-500">
          {ops ? "Every workspace's" : "This workspace's"} changes to members, roles, invitations, API keys, webhooks,
          credit and share links{ops ? ", and the install's own (model pauses, passwords, operators)" : ""}, newest
          first. Kept a year unless the operators set otherwise; never a secret.
        </p>
      </div>
      <AuditFilters
        key={JSON.stringify(filters)}
        current={filters}
        limit={limit === PAGE_SIZE ? null : limit}
        actors={actors}
        workspaces={workspaces && workspaces.map((w) => ({ id: w.id, name: w.name }))}
      />
      {error ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          {error}{" "}
          <Link href="/audit" className="font-medium underline">
            Clear the filters
          </Link>
        </p>
      ) : page && page.data.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-500">
          {filtered ? "No change matches these filters." : "No changes recorded yet."}
        </div>
      ) : page ? (
        <>
          <AuditTable
            events={page.data}
            showWorkspace={ops !== null}
            keyNames={Object.fromEntries(keys.map((k) => [k.id, k.name]))}
            now={Date.now()}
          />
          <CursorPager pages={pages} count={page.data.length} noun={["change", "changes"]} />
        </>
      ) : null}
    </div>
  );
}
