import type { Kysely } from "kysely";

// Invitations to a workspace (lib/core/workspaces/invitations.ts): an email, a role, and a token
// kept only as its SHA-256 hash; single-use (accepted_at), revocable (revoked_at), expiring. A
// person who accepts one as a new user gives a name, kept on the user.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("invitations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    // The member who invited (null: the admin CLI, or ops creating the workspace).
    .addColumn("invited_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text")
    .addColumn("accepted_by", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("invitations_workspace")
    .on("invitations")
    .columns(["workspace_id", "created_at"])
    .execute();
  await db.schema.alterTable("users").addColumn("name", "text").execute();
}
