// Operators only: one stored catalog entry in the editor, with its lifecycle. An unknown id is a 404.
import { notFound } from "next/navigation";
import { requireOps } from "@/app/_studio/studio-ctx";
import { EntryEditor } from "@/components/ops-entry-editor";
import { editorProviders } from "../editor-providers";
import { listStoredEntries, listStoredProviders } from "@/lib/providers/stored-catalog/catalog-verbs";

export const dynamic = "force-dynamic";
export const metadata = { title: "Entry · Ops · Atelier" };

export default async function EntryPage({ params }: { params: Promise<{ id: string }> }) {
  const { ops } = await requireOps();
  const id = decodeURIComponent((await params).id);
  const [providers, entries] = await Promise.all([
    listStoredProviders({ db: ops.db, actingAs: ops }),
    listStoredEntries({ db: ops.db, actingAs: ops }),
  ]);
  const entry = entries.find((e) => e.id === id);
  if (!entry) notFound();
  return (
    <div className="mx-auto max-w-6xl">
      <EntryEditor
        providers={editorProviders(providers)}
        entry={{
          id: entry.id,
          provider: entry.provider,
          state: entry.state,
          revision: entry.revision,
          document: entry.document,
        }}
      />
    </div>
  );
}
