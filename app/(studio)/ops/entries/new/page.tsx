// Operators only: a new catalog entry, imported from a provider's own schema or from scratch.
// Only each stored provider's id and kind reach the browser, never its settings or key.
import { requireOps } from "@/app/_studio/studio-ctx";
import { EntryEditor } from "@/components/ops-entry-editor";
import { editorProviders } from "../editor-providers";
import { listStoredProviders } from "@/lib/providers/stored-catalog/catalog-verbs";

export const dynamic = "force-dynamic";
export const metadata = { title: "Add a model · Ops · Atelier" };

export default async function NewEntryPage() {
  const { ops } = await requireOps();
  const providers = await listStoredProviders({ db: ops.db, actingAs: ops });
  return (
    <div className="mx-auto max-w-6xl">
      <EntryEditor providers={editorProviders(providers)} entry={null} />
    </div>
  );
}
