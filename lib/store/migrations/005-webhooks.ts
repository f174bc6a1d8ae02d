import type { Kysely } from "kysely";

// Webhooks: the workspace's signing secret (and the previous one during a rotation), endpoints,
// and deliveries of events (one row per event and destination, with its attempts): deliveries
// are rows, so they survive restarts and never block the API or the run workers.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_secrets")
    .addColumn("workspace_id", "text", (c) => c.primaryKey().references("workspaces.id"))
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("previous_secret", "text")
    .addColumn("previous_expires_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("event_types_json", "text", (c) => c.notNull())
    // 1 or 0: the same column type on SQLite and PostgreSQL.
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    // When its deliveries started failing without a success since; null while healthy.
    .addColumn("failing_since", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_endpoints_workspace_page")
    .on("webhook_endpoints")
    .columns(["workspace_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("event_id", "text", (c) => c.notNull().references("events.id"))
    // Null for a run's own `webhook` URL.
    .addColumn("webhook_id", "text")
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempt_count", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text")
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_event")
    .on("webhook_deliveries")
    .columns(["event_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_webhook")
    .on("webhook_deliveries")
    .columns(["webhook_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id"))
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("latency_ms", "integer", (c) => c.notNull())
    .addColumn("response_body", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addPrimaryKeyConstraint("webhook_attempts_pk", ["delivery_id", "attempt"])
    .execute();

  await db.schema.createIndex("events_age").on("events").column("created_at").execute();
}
