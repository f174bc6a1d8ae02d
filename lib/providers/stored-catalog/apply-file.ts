// The providers file as a declarative import into the store: each provider and entry it names is
// created or updated in one transaction. Who wins: when the file's JSON for an item is what it was
// at the last apply, the store's version stays (an edit made in the store, by the CLI or the
// studio, wins); when the file changed it since, the file's wins. Items the file no longer names
// stay in the store (removing one is `admin provider remove`). Applies run one at a time
// (lockCatalog), so two processes starting at once neither fail nor duplicate.
import { withTransaction } from "../../store/writes";
import { nowIso } from "../../core/context";
import { recordAudit } from "../../core/audit/audit-writer";
import {
  insertEntryRow,
  insertProviderRow,
  lockCatalog,
  readRemoteEntries,
  readRemoteEntry,
  readRemoteProvider,
  readRemoteProviders,
  remoteCatalogChanged,
  updateEntryRow,
  updateProviderRow,
} from "../../core/catalog/remote-store";
import type { ProviderDocuments } from "../providers-file";
import { catalogAuditBy, type CatalogCtx, providerEdit } from "./catalog-verbs";
import { entryEdit } from "./entry-verbs";
import { providerAudit } from "./catalog-audit";
import { checkEntryDocument, routeProviders, stableJson } from "./documents";

export interface AppliedProvider {
  id: string;
  provider: "added" | "updated" | "kept" | "unchanged";
  added: string[];
  updated: string[];
  /** Changed in the store since the file last gave them, and unchanged in the file: the store's stays. */
  kept: string[];
}

/** Applies the providers file's documents (providersFileDocuments) to the store. */
export async function applyProvidersFile(
  ctx: CatalogCtx,
  providers: readonly ProviderDocuments[],
): Promise<AppliedProvider[]> {
  const report = await withTransaction(ctx.db, async (trx) => {
    await lockCatalog(trx);
    const applied: AppliedProvider[] = [];
    // An entry's routes may name a provider the file adds further on: the file's and the store's.
    const routable = routeProviders([...(await readRemoteProviders(trx)), ...providers]);
    for (const file of providers) {
      const result: AppliedProvider = { id: file.id, provider: "unchanged", added: [], updated: [], kept: [] };
      const fileJson = stableJson(file.settings);
      let row = await readRemoteProvider(trx, file.id);
      const now = nowIso();
      if (!row) {
        row = {
          id: file.id,
          kind: file.kind,
          settings_json: JSON.stringify(file.settings),
          secret_ciphertext: null,
          source: "file",
          file_json: fileJson,
          created_at: now,
          updated_at: now,
        };
        await insertProviderRow(trx, row);
        result.provider = "added";
      } else if (row.file_json !== fileJson) {
        // The file changed it since it was last applied (or never named it): the file wins.
        const next = await providerEdit(ctx, row, file.settings, undefined, { fileJson });
        await updateProviderRow(trx, row.id, { ...next, kind: file.kind });
        row = { ...row, ...next };
        result.provider = "updated";
      } else if (row.settings_json !== JSON.stringify(file.settings) || row.secret_ciphertext !== null) {
        result.provider = "kept";
      }
      for (const entry of file.entries) {
        const entryJson = stableJson(entry.document);
        const before = await readRemoteEntry(trx, entry.id);
        if (!before) {
          const { parsed } = checkEntryDocument(entry.document, row, {
            baseDir: ctx.baseDir ?? process.cwd(),
            env: ctx.env,
            providers: routable,
          });
          await insertEntryRow(trx, {
            id: entry.id,
            provider_id: row.id,
            document_json: JSON.stringify(entry.document),
            state: "published",
            revision: parsed.revision,
            source: "file",
            file_json: entryJson,
            created_at: now,
            updated_at: now,
          });
          result.added.push(entry.id);
        } else if (before.file_json !== entryJson || before.provider_id !== row.id) {
          const next = await entryEdit(ctx, trx, before, row, entry.document, routable);
          await updateEntryRow(trx, before.id, { ...next, file_json: entryJson });
          result.updated.push(entry.id);
        } else if (stableJson(JSON.parse(before.document_json)) !== entryJson) {
          result.kept.push(entry.id);
        }
      }
      // An apply that changed nothing (store edits kept included) records nothing.
      if (result.provider === "added" || result.provider === "updated" || result.added.length || result.updated.length)
        await recordAudit(
          trx,
          catalogAuditBy(ctx),
          providerAudit("provider.applied", row.id, null, row, {
            provider: result.provider,
            entries_added: result.added,
            entries_updated: result.updated,
            entries_kept: result.kept,
          }),
        );
      applied.push(result);
    }
    return applied;
  });
  if (report.some((r) => r.provider === "added" || r.provider === "updated" || r.added.length || r.updated.length))
    remoteCatalogChanged(ctx.db);
  return report;
}

/**
 * What the providers file once gave (applied from it) and no longer names: it stays in the store,
 * served as it is, until removed there (`admin provider remove`, `admin entry retire`). Said at
 * start and by `admin provider apply`, so a line deleted from the file is not mistaken for a removal.
 */
export async function storedButNotInFile(
  db: CatalogCtx["db"],
  providers: readonly ProviderDocuments[],
): Promise<{ providers: string[]; entries: string[] }> {
  const named = new Set(providers.map((p) => p.id));
  const namedEntries = new Set(providers.flatMap((p) => p.entries.map((e) => e.id)));
  const [providerRows, entryRows] = await Promise.all([readRemoteProviders(db), readRemoteEntries(db)]);
  return {
    providers: providerRows.filter((r) => r.file_json !== null && !named.has(r.id)).map((r) => r.id),
    entries: entryRows.filter((r) => r.file_json !== null && !namedEntries.has(r.id)).map((r) => r.id),
  };
}
