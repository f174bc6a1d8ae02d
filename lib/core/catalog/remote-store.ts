// The remote catalog's rows (migration 029): providers, their entries, the entries' earlier
// revisions and the one-row catalog version. Plain reads and writes, no validation: the verbs that
// check a document with the providers file's parser and write it live above, in
// lib/providers/stored-catalog/ (the parser is the providers layer's). Every write here bumps the
// version in the caller's transaction, so a process that missed a signal sees the change at its
// next look (catalog-watch.ts).
import { sql } from "kysely";
import type { Db, RemoteEntriesTable, RemoteProvidersTable } from "../../store/database";
import type { RunSignals } from "../run-signals";
import { onPostgres } from "../../store/dialects";

export type RemoteProviderRow = RemoteProvidersTable;
export type RemoteEntryRow = RemoteEntriesTable;

export async function catalogVersion(db: Db): Promise<number> {
  const row = await db.selectFrom("catalog_version").select("version").where("id", "=", 1).executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** In the change's transaction: every process will read the remote catalog again. */
export async function bumpCatalogVersion(trx: Db): Promise<void> {
  await trx
    .updateTable("catalog_version")
    .set({ version: sql<number>`version + 1` })
    .where("id", "=", 1)
    .execute();
}

/**
 * First in every change's transaction: changes to the remote catalog happen one at a time, so two
 * applies of the providers file at once (two processes starting) neither fail nor duplicate. On
 * PostgreSQL a row lock on the version; SQLite's write transactions (BEGIN IMMEDIATE) already are.
 */
export async function lockCatalog(trx: Db): Promise<void> {
  if (!trx.isTransaction) throw new Error("catalog: lockCatalog runs inside the change's transaction.");
  if (onPostgres(trx))
    await trx.selectFrom("catalog_version").select("version").where("id", "=", 1).forUpdate().execute();
}

export function readRemoteProviders(db: Db): Promise<RemoteProviderRow[]> {
  return db.selectFrom("remote_providers").selectAll().orderBy("id").execute();
}

export function readRemoteProvider(db: Db, id: string): Promise<RemoteProviderRow | undefined> {
  return db.selectFrom("remote_providers").selectAll().where("id", "=", id).executeTakeFirst();
}

export function readRemoteEntries(
  db: Db,
  filter: { state?: RemoteEntryRow["state"]; providerId?: string } = {},
): Promise<RemoteEntryRow[]> {
  let query = db.selectFrom("remote_entries").selectAll();
  if (filter.state) query = query.where("state", "=", filter.state);
  if (filter.providerId) query = query.where("provider_id", "=", filter.providerId);
  return query.orderBy("provider_id").orderBy("id").execute();
}

export function readRemoteEntry(db: Db, id: string): Promise<RemoteEntryRow | undefined> {
  return db.selectFrom("remote_entries").selectAll().where("id", "=", id).executeTakeFirst();
}

/** An entry's document at an earlier revision, kept when it was replaced; undefined when none. */
export async function readEntryRevision(db: Db, entryId: string, revision: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("remote_entry_revisions")
    .select("document_json")
    .where("entry_id", "=", entryId)
    .where("revision", "=", revision)
    .executeTakeFirst();
  return row?.document_json;
}

/** Every revision an entry has had (earlier ones and its current one). */
export async function revisionsOf(trx: Db, entryId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom("remote_entry_revisions")
    .select("revision")
    .where("entry_id", "=", entryId)
    .execute();
  const current = await trx.selectFrom("remote_entries").select("revision").where("id", "=", entryId).execute();
  return [...rows, ...current].map((r) => r.revision);
}

export async function insertProviderRow(trx: Db, row: RemoteProviderRow): Promise<void> {
  await trx.insertInto("remote_providers").values(row).execute();
  await bumpCatalogVersion(trx);
}

export async function updateProviderRow(
  trx: Db,
  id: string,
  set: Partial<Omit<RemoteProviderRow, "id" | "created_at">>,
): Promise<void> {
  await trx.updateTable("remote_providers").set(set).where("id", "=", id).execute();
  await bumpCatalogVersion(trx);
}

/** Removes a provider, its entries and their revisions. */
export async function deleteProviderRow(trx: Db, id: string): Promise<void> {
  const entries = await trx.selectFrom("remote_entries").select("id").where("provider_id", "=", id).execute();
  if (entries.length > 0)
    await trx
      .deleteFrom("remote_entry_revisions")
      .where(
        "entry_id",
        "in",
        entries.map((e) => e.id),
      )
      .execute();
  await trx.deleteFrom("remote_entries").where("provider_id", "=", id).execute();
  await trx.deleteFrom("remote_providers").where("id", "=", id).execute();
  await bumpCatalogVersion(trx);
}

export async function insertEntryRow(trx: Db, row: RemoteEntryRow): Promise<void> {
  await trx.insertInto("remote_entries").values(row).execute();
  await bumpCatalogVersion(trx);
}

export async function updateEntryRow(
  trx: Db,
  id: string,
  set: Partial<Omit<RemoteEntryRow, "id" | "created_at">>,
): Promise<void> {
  await trx.updateTable("remote_entries").set(set).where("id", "=", id).execute();
  await bumpCatalogVersion(trx);
}

/** Keeps a replaced revision's document (a run queued with it still runs it); once per revision. */
export async function keepEntryRevision(
  trx: Db,
  row: { entry_id: string; revision: string; document_json: string; created_at: string },
): Promise<void> {
  await trx
    .insertInto("remote_entry_revisions")
    .values(row)
    .onConflict((oc) => oc.columns(["entry_id", "revision"]).doNothing())
    .execute();
}

// Who hears a change made through a store handle: the process's run signals, registered by the
// catalog watch (catalog-watch.ts). Kept on globalThis, as the pause cache is, so a change made
// in Next's copy of the core reaches the watch the host's copy started.
const REGISTRY = Symbol.for("atelier.catalogSignals");
const registry: WeakMap<Db, RunSignals> =
  ((globalThis as Record<symbol, unknown>)[REGISTRY] as WeakMap<Db, RunSignals> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[REGISTRY] = new WeakMap<Db, RunSignals>());

export function announceCatalogChangesOf(db: Db, signals: RunSignals): () => void {
  registry.set(db, signals);
  return () => {
    if (registry.get(db) === signals) registry.delete(db);
  };
}

/**
 * A change to the remote catalog committed through `db`: this process and every other one read
 * it again. A process with no signals of its own (the admin CLI) announces it itself
 * (cross-process.ts, announceToEveryProcess); the version poll covers a lost signal.
 */
export function remoteCatalogChanged(db: Db): void {
  registry.get(db)?.catalogChanged();
}
