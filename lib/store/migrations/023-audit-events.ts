import type { Kysely } from "kysely";

// The audit log (lib/core/audit/): one row per change to members, roles, invitations, keys,
// webhooks, credit grants, model pauses and share links, written in the change's own transaction.
// Append-only: the code has no update of it, and the retention purge is its only delete.
// `workspace_id` is null only for what belongs to the install rather than a workspace (a model
// pause, a user's password or ops flag); no foreign key, so an event outlives what it names.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    // user | key | cli; the actor's ID (usr_…, key_…, or "cli"), and a user's email as it was then.
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("actor_email", "text")
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    // What changed, as a small JSON object; never a secret.
    .addColumn("changes_json", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  // A workspace's page, newest first, and the same narrowed to actions or to one actor: each a
  // (workspace, filter, created_at, id) index, so a page at any depth is a seek.
  await db.schema
    .createIndex("audit_events_workspace")
    .on("audit_events")
    .columns(["workspace_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("audit_events_workspace_action")
    .on("audit_events")
    .columns(["workspace_id", "action", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("audit_events_workspace_actor")
    .on("audit_events")
    .columns(["workspace_id", "actor_id", "created_at", "id"])
    .execute();
  // Every workspace at once (ops) and the retention purge.
  await db.schema.createIndex("audit_events_time").on("audit_events").columns(["created_at", "id"]).execute();
}
