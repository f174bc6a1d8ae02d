import { sql, type Kysely } from "kysely";

// Organisations: a user belongs to any number of workspaces, with one role in each (owner, admin,
// creator, viewer); operating the install is a flag on the user, not a role in a workspace. Today's
// users become members of their workspace: a creator stays a creator, an ops user becomes its owner
// and keeps operating the install. `users.workspace_id` stays as the workspace a new sign-in opens
// (the last one the user switched to); a session names the workspace it is in (`workspace_id`,
// filled here for the sessions already open). Keys made before carry no maker and keep their scopes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("memberships")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text")
    .addPrimaryKeyConstraint("memberships_pk", ["workspace_id", "user_id"])
    .execute();
  await db.schema.createIndex("memberships_user").on("memberships").columns(["user_id"]).execute();
  await sql`insert into memberships (workspace_id, user_id, role, created_at)
    select workspace_id, id, case when role = 'ops' then 'owner' else 'creator' end, created_at from users`.execute(db);

  await db.schema
    .alterTable("users")
    .addColumn("is_ops", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set is_ops = 1 where role = 'ops'`.execute(db);
  await db.schema.alterTable("users").dropColumn("role").execute();

  // Who made a key in the studio: it acts with at most that member's role, and ends with their membership.
  await db.schema.alterTable("api_keys").addColumn("created_by", "text").execute();

  // Whether creators may make API keys of their own (admins and owners always may). Off for new
  // workspaces; on for those already here, whose creators made keys until now.
  await db.schema
    .alterTable("workspaces")
    .addColumn("creator_keys", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update workspaces set creator_keys = 1`.execute(db);

  await db.schema.alterTable("studio_sessions").addColumn("workspace_id", "text").execute();
  await sql`update studio_sessions set workspace_id =
    (select users.workspace_id from users where users.id = studio_sessions.user_id)`.execute(db);
}
