// The catalog's remote entries from the store: every published entry of every stored provider,
// built as the providers file's entries are (remoteModels), replacing the remote part of this
// process's catalog. One adapter per provider is kept across reloads while the provider's
// settings (and key) stay the same, so its health record survives an unrelated edit. A provider
// or entry this process cannot build (its key's variable unset here, a key sealed under another
// SECRET_KEY) is left out with a warning rather than stopping the others.
import { openSecret } from "../../primitives/secret-box";
import type { Db } from "../../store/database";
import {
  catalogVersion,
  readEntryRevision,
  readRemoteEntries,
  readRemoteEntry,
  readRemoteProvider,
  readRemoteProviders,
  type RemoteProviderRow,
} from "../../core/catalog/remote-store";
import { isBuiltInModel, registerRemoteModels, setRevisionResolver } from "../../core/catalog/catalog";
import { shareProviderHealth } from "../../core/catalog/model-availability";
import { markUp } from "../common/health";
import type { ModelDefinition } from "../../core/catalog/model-definition";
import type { ProviderAdapter, ProviderConfig } from "../common/types";
import { newAdapter, remoteDefinition, remoteModels } from "../index";
import { parseEntryDocument, parseProviderDocument } from "../providers-file";
import { providerSecretPurpose } from "./catalog-verbs";
import { routeProviders, storedRouteProviders } from "./documents";

export interface LoadCtx {
  db: Db;
  secretKey: string;
  env: Record<string, string | undefined>;
  warn?: (message: string) => void;
}

const adapters = new Map<string, { key: string; adapter: ProviderAdapter }>();

/** The provider's adapter: the one kept when its settings and key are what they were. */
function adapterOf(provider: ProviderConfig): ProviderAdapter {
  const key = JSON.stringify({ ...provider, entries: undefined });
  const kept = adapters.get(provider.id);
  if (kept && kept.key === key) return kept.adapter;
  const adapter = newAdapter(provider);
  adapters.set(provider.id, { key, adapter });
  return adapter;
}

/**
 * An operator's connection test passed: the provider answers and takes its key, so an outage a
 * failed run recorded ends now, in this process's serving adapter and in the store (every
 * process), rather than when it lapses. A failed test changes nothing (it is not a run).
 */
export async function providerPassedCheck(db: Db, providerId: string): Promise<void> {
  const kept = adapters.get(providerId);
  if (kept) markUp(kept.adapter.health);
  await shareProviderHealth(db, providerId, null);
}

function providerConfig(ctx: LoadCtx, row: RemoteProviderRow): Omit<ProviderConfig, "entries"> | null {
  try {
    const storedKey =
      row.secret_ciphertext === null
        ? null
        : openSecret(ctx.secretKey, providerSecretPurpose(row.id), row.secret_ciphertext);
    return parseProviderDocument(
      JSON.parse(row.settings_json),
      { baseDir: process.cwd(), env: ctx.env },
      {
        storedKey,
        path: `provider ${row.id}:`,
      },
    );
  } catch (err) {
    ctx.warn?.(`stored provider ${row.id} is left out of the catalog: ${(err as Error).message}`);
    return null;
  }
}

/** Every stored provider this process can build, with its published entries. */
export async function storedProviders(ctx: LoadCtx): Promise<ProviderConfig[]> {
  const [rows, entries] = await Promise.all([
    readRemoteProviders(ctx.db),
    readRemoteEntries(ctx.db, { state: "published" }),
  ]);
  const providers: ProviderConfig[] = [];
  const routable = routeProviders(rows);
  for (const row of rows) {
    const settings = providerConfig(ctx, row);
    if (!settings) continue;
    const built = entries
      .filter((e) => e.provider_id === row.id && !isBuiltInModel(e.id))
      .flatMap((e) => {
        try {
          const entry = parseEntryDocument(JSON.parse(e.document_json), row, {
            baseDir: process.cwd(),
            env: ctx.env,
            providers: routable,
          });
          return [{ ...entry, revision: e.revision }];
        } catch (err) {
          ctx.warn?.(`stored entry ${e.id} is left out of the catalog: ${(err as Error).message}`);
          return [];
        }
      });
    providers.push({ ...settings, entries: built });
  }
  return providers;
}

/** A remote entry as it was at `revision` (kept when it was replaced), built with its provider's adapter now. */
async function definitionAt(ctx: LoadCtx, db: Db, id: string, revision: string): Promise<ModelDefinition | null> {
  const row = await readRemoteEntry(db, id);
  if (!row) return null;
  const document = row.revision === revision ? row.document_json : await readEntryRevision(db, id, revision);
  const providerRow = await readRemoteProvider(db, row.provider_id);
  if (document === undefined || !providerRow) return null;
  const provider = providerConfig(ctx, providerRow);
  if (!provider) return null;
  const entry = parseEntryDocument(JSON.parse(document), providerRow, {
    baseDir: process.cwd(),
    env: ctx.env,
    providers: await storedRouteProviders(db),
  });
  const config = { ...provider, entries: [] };
  // A routed entry's targets as this process builds them now (rare: a run queued before an edit).
  const others = entry.routes ? await storedProviders(ctx) : [];
  return remoteDefinition(config, { ...entry, revision }, others, adapterOf);
}

/** Makes the store's published entries this process's remote catalog; answers the version it read. */
export async function loadStoredCatalog(ctx: LoadCtx): Promise<number> {
  // The version first: a change committed while reading is read again at the next look.
  const version = await catalogVersion(ctx.db);
  registerRemoteModels(remoteModels(await storedProviders(ctx), adapterOf));
  setRevisionResolver((db, id, revision) => definitionAt(ctx, db, id, revision));
  return version;
}
