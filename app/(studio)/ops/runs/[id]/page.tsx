// An operator's read-only look at any workspace's run: what the ops lists link to. It asks for
// the ops principal itself: the layout's 404 sets the status but does not stop this page's render.
import Link from "next/link";
import { notFound } from "next/navigation";
import { inputFieldHints } from "@/lib/core/catalog/catalog";
import { opsRun } from "@/lib/core/ops/ops";
import { RunRecord } from "@/components/run-details";
import { RunAttempts } from "@/components/run-attempts";
import { modelHref } from "@/components/catalog-price";
import { requireOps } from "@/app/_studio/studio-ctx";
import { Breadcrumb } from "@/components/breadcrumb";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return { title: `${(await params).id} · Ops · Atelier` };
}

export default async function OpsRunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { ctx, ops } = await requireOps();
  const found = await opsRun(ops, ctx.services, id);
  if (!found) notFound();
  const { generation: run, workspace, attempts } = found;
  const own = workspace.id === ctx.workspaceId;
  return (
    <div className="mx-auto max-w-6xl">
      <Breadcrumb parent={{ href: "/ops", label: "Ops" }}>
        <span className="font-mono text-xs">{run.id}</span>
      </Breadcrumb>
      <h1 className="mb-2 text-2xl font-semibold tracking-tight text-zinc-900">
        Run of{" "}
        <Link href={modelHref(run.model)} className="hover:text-indigo-600">
          {run.model}
        </Link>
      </h1>
      <p className="mb-6 text-sm text-zinc-600" data-testid="ops-run-workspace">
        In workspace{" "}
        <Link
          href={`/ops?workspace=${encodeURIComponent(workspace.id)}`}
          className="font-medium text-indigo-600 hover:text-indigo-700"
        >
          {workspace.name}
        </Link>
        {own ? (
          <>
            {" "}
            (yours:{" "}
            <Link href={`/runs/${run.id}`} className="font-medium text-indigo-600 hover:text-indigo-700">
              open its run page
            </Link>{" "}
            to act on it)
          </>
        ) : (
          ". Read-only: only that workspace can cancel, keep, share or run it again."
        )}
      </p>
      <RunRecord run={run} schema={inputFieldHints(run.model)} />
      {attempts ? <RunAttempts attempts={attempts} /> : null}
    </div>
  );
}
