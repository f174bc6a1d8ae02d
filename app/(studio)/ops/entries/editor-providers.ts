// The stored providers as the entry editor knows them (both entry pages): each one's id and kind,
// and its kind's own entry fields (what a route target's JSON may hold); never its settings or key.
import type { EditorProvider } from "@/components/ops-entry-editor";
import { PROVIDER_KINDS } from "@/lib/providers/kinds";

export function editorProviders(rows: ReadonlyArray<{ id: string; kind: string }>): EditorProvider[] {
  return rows.map((p) => {
    const kind = Object.hasOwn(PROVIDER_KINDS, p.kind) ? PROVIDER_KINDS[p.kind] : undefined;
    return { id: p.id, kind: p.kind, entryFields: kind ? [...kind.entryFields] : [] };
  });
}
