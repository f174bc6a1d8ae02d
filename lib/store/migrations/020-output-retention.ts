import type { Kysely } from "kysely";

// Output retention (OUTPUT_RETENTION_DAYS, lib/core/runs/output-retention.ts): a run past the
// retention keeps its row, loses its outputs, and says when (`outputs_purged_at`; a nullable column
// without a default, so PostgreSQL adds it without rewriting the table). The blobs it pointed at
// are queued in `blob_deletions` in the same transaction and deleted after the commit, so a failed
// delete is retried on the next turn and no row ever points at a deleted blob. The purge walks
// finished runs by `completed_at` from where its last batch stopped (`retention_marks`), so a turn
// never re-reads runs purged before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("generations").addColumn("outputs_purged_at", "text").execute();
  await db.schema
    .createTable("blob_deletions")
    .addColumn("blob", "text", (c) => c.primaryKey())
    // The run the blob was an output of: a file kept from it since (files.generation_id) keeps the blob.
    .addColumn("generation_id", "text", (c) => c.notNull())
    .addColumn("queued_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("retention_marks")
    .addColumn("name", "text", (c) => c.primaryKey())
    // The last run a purge batch went past, in (completed_at, id) order.
    .addColumn("completed_at", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .execute();
}
