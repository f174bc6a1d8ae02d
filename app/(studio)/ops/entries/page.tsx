// Operators only: every entry of the catalog kept in the store, drafts too, with its provider,
// state, revision, lifecycle and where it came from (the providers file or ops), each opening the
// editor. It asks for the ops principal itself before it reads (the layout's 404 does not stop
// this page's render).
import Link from "next/link";
import { requireOps } from "@/app/_studio/studio-ctx";
import { Breadcrumb } from "@/components/breadcrumb";
import { listStoredEntries } from "@/lib/providers/stored-catalog/catalog-verbs";
import { lifecycleText } from "@/components/ops-entry-lifecycle";

export const dynamic = "force-dynamic";
export const metadata = { title: "Entries · Ops · Atelier" };

export default async function OpsEntriesPage() {
  const { ops } = await requireOps();
  const entries = await listStoredEntries({ db: ops.db, actingAs: ops });
  const now = Date.now();
  return (
    <div className="mx-auto max-w-6xl">
      <Breadcrumb parent={{ href: "/ops", label: "Ops" }}>
        <span>Entries</span>
      </Breadcrumb>
      <div className="mb-6 flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Entries</h1>
          <p className="mt-1 max-w-3xl text-sm text-zinc-500">
            The catalog entries kept in the store: drafts are not served until published; a published entry&apos;s
            change to what its runs do or cost makes a new revision.
          </p>
        </div>
        <Link
          href="/ops/entries/new"
          className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-700"
        >
          Add a model
        </Link>
      </div>
      <section className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-sm">
        {entries.length === 0 ? (
          <p className="px-5 py-8 text-center text-sm text-zinc-500">
            No stored entries yet.{" "}
            <Link href="/ops/entries/new" className="font-medium text-indigo-600">
              Add a model
            </Link>{" "}
            from a provider&apos;s schema or from scratch.
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full text-left text-sm">
              <thead className="bg-zinc-50 text-xs font-medium tracking-wide whitespace-nowrap text-zinc-500 uppercase">
                <tr>
                  <th className="px-5 py-2">Entry</th>
                  <th className="px-5 py-2">Provider</th>
                  <th className="px-5 py-2">State</th>
                  <th className="px-5 py-2">Revision</th>
                  <th className="px-5 py-2">Lifecycle</th>
                  <th className="px-5 py-2">Source</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {entries.map((e) => (
                  <tr key={e.id} data-testid="stored-entry">
                    <td className="px-5 py-2 whitespace-nowrap">
                      <Link
                        href={`/ops/entries/${encodeURIComponent(e.id)}`}
                        className="font-medium text-indigo-600 hover:text-indigo-700"
                      >
                        {e.id}
                      </Link>
                      <div className="text-xs text-zinc-500">{String(e.document.name ?? "")}</div>
                    </td>
                    <td className="px-5 py-2 text-zinc-700">{e.provider}</td>
                    <td className="px-5 py-2">
                      <span
                        className={
                          e.state === "published"
                            ? "rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-700"
                            : "rounded bg-zinc-100 px-1.5 py-0.5 text-xs font-medium text-zinc-600"
                        }
                      >
                        {e.state}
                      </span>
                    </td>
                    <td className="px-5 py-2 font-mono text-xs whitespace-nowrap text-zinc-700">{e.revision}</td>
                    <td className="px-5 py-2 text-zinc-600">{lifecycleText(e.document.lifecycle, now) ?? "current"}</td>
                    <td className="px-5 py-2 text-zinc-600">{e.source === "file" ? "providers file" : "ops"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
