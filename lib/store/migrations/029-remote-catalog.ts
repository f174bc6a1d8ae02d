import { sql, type Kysely } from "kysely";

// The remote catalog in the store (lib/core/catalog/remote-store.ts, lib/providers/stored-catalog/):
// providers and the entries they serve, each as the JSON the providers file would hold for it
// (a provider's settings without `entries`; an entry with a ComfyUI `workflow` inline), validated
// by the file's own parser before it is written. `file_json` is what the providers file said the
// last time it was applied (null: never in the file), so an apply can tell a file edit from a
// store edit. `secret_ciphertext` is a pasted key, AES-256-GCM under a key derived from
// SECRET_KEY (lib/primitives/secret-box.ts); never read back by any listing. A published entry's
// earlier revisions stay in `remote_entry_revisions`, so a run queued before an edit runs as it
// was created. `catalog_version` is one row bumped by every change: the processes' fallback poll.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("remote_providers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("settings_json", "text", (c) => c.notNull())
    .addColumn("secret_ciphertext", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("file_json", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addCheckConstraint("remote_providers_source", sql`source in ('file', 'ops')`)
    .execute();
  await db.schema
    .createTable("remote_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull().references("remote_providers.id"))
    .addColumn("document_json", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("revision", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("file_json", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addCheckConstraint("remote_entries_state", sql`state in ('draft', 'published')`)
    .addCheckConstraint("remote_entries_source", sql`source in ('file', 'ops')`)
    .execute();
  await db.schema.createIndex("remote_entries_by_provider").on("remote_entries").column("provider_id").execute();
  await db.schema
    .createTable("remote_entry_revisions")
    .addColumn("entry_id", "text", (c) => c.notNull())
    .addColumn("revision", "text", (c) => c.notNull())
    .addColumn("document_json", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_entry_revisions_pk", ["entry_id", "revision"])
    .execute();
  await db.schema
    .createTable("catalog_version")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addCheckConstraint("catalog_version_one_row", sql`id = 1`)
    .execute();
  await db
    .insertInto("catalog_version" as never)
    .values({ id: 1, version: 0 } as never)
    .execute();
}
