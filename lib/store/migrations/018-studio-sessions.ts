import type { Kysely } from "kysely";

// Studio sign-ins the server can end: the session cookie names a row here, and a request is
// signed in only while the row lives. Sign-out deletes one row; a password or role change, or a
// removed user, deletes all of that user's rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("studio_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("studio_sessions_user").on("studio_sessions").columns(["user_id"]).execute();
}
