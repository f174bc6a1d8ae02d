import { sql, type Kysely } from "kysely";

// Runs (the runs table is also the queue), batches, idempotency records, and event rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("batches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("generations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("model", "text", (c) => c.notNull())
    // The model ID without @version, so a preset filter without version matches every version.
    .addColumn("model_base", "text", (c) => c.notNull())
    .addColumn("modality", "text", (c) => c.notNull())
    .addColumn("revision", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("provider", "text")
    .addColumn("input_json", "text", (c) => c.notNull())
    .addColumn("output_json", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("preview_json", "text")
    .addColumn("error_message", "text")
    .addColumn("price_micros", "bigint", (c) => c.notNull())
    .addColumn("charged_micros", "bigint")
    .addColumn("hold_id", "text", (c) => c.references("credit_holds.id"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("batch_id", "text", (c) => c.references("batches.id"))
    .addColumn("batch_index", "integer")
    .addColumn("webhook", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addCheckConstraint("generations_status", sql`status in ('queued', 'running', 'succeeded', 'failed', 'canceled')`)
    .execute();
  await db.schema
    .createIndex("generations_workspace_page")
    .on("generations")
    .columns(["workspace_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex("generations_queue").on("generations").columns(["status", "created_at"]).execute();
  await db.schema.createIndex("generations_completed").on("generations").columns(["completed_at"]).execute();
  await db.schema.createIndex("generations_batch").on("generations").columns(["batch_id"]).execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("endpoint", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("resource_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["workspace_id", "key"])
    .execute();

  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("generation_id", "text", (c) => c.references("generations.id"))
    .addColumn("payload_json", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("events_workspace_page")
    .on("events")
    .columns(["workspace_id", "created_at", "id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["events", "idempotency_keys", "generations", "batches"]) {
    await db.schema.dropTable(table).execute();
  }
}
