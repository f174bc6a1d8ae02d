import type { Kysely } from "kysely";

// Share links (lib/core/shares/share-links.ts): a public link to one succeeded run. Only a hash of the
// link's token is kept; the link reads as not found once revoked or past its expiry.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("share_links")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("generation_id", "text", (c) => c.notNull().references("generations.id"))
    // SHA-256 (hex) of the whole token; the token itself is shown once, when the link is made.
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    // The token's last four characters, to tell links apart in a list.
    .addColumn("token_hint", "text", (c) => c.notNull())
    // 1 or 0: whether the public page shows the run's input.
    .addColumn("show_input", "integer", (c) => c.notNull())
    // The actor that made it: a studio user's ID (usr_…) or an API key's (key_…).
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .addColumn("open_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_opened_at", "text")
    .execute();
  await db.schema
    .createIndex("share_links_run")
    .on("share_links")
    .columns(["workspace_id", "generation_id", "created_at"])
    .execute();
  await db.schema.createIndex("share_links_recent").on("share_links").columns(["created_at", "id"]).execute();
}
