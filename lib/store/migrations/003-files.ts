import type { Kysely } from "kysely";

// Workspace files (uploaded images, kept outputs, completed direct uploads) and direct uploads
// of video and sound (opened, bytes PUT to a signed URL, then completed).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("files")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("blob", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("bytes", "bigint", (c) => c.notNull())
    .addColumn("width", "integer")
    .addColumn("height", "integer")
    .addColumn("duration", "real")
    .addColumn("filename", "text")
    // Set when the file is a kept output, so keeping it again returns the same file.
    .addColumn("generation_id", "text", (c) => c.references("generations.id"))
    .addColumn("output_index", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("files_kept_output", ["generation_id", "output_index"])
    .execute();
  await db.schema
    .createIndex("files_workspace_page")
    .on("files")
    .columns(["workspace_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("uploads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("declared_bytes", "bigint", (c) => c.notNull())
    .addColumn("received_bytes", "bigint")
    .addColumn("blob", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("file_id", "text", (c) => c.references("files.id"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("completed_at", "text")
    .execute();
  await db.schema.createIndex("uploads_workspace_day").on("uploads").columns(["workspace_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("uploads").execute();
  await db.schema.dropTable("files").execute();
}
