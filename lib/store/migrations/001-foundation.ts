import { sql, type Kysely } from "kysely";

// Workspaces, API keys and the credit ledger. `bigint` is INTEGER affinity on SQLite.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("workspaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_hint", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .addColumn("last_used_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_workspace").on("api_keys").columns(["workspace_id", "created_at"]).execute();

  await db.schema
    .createTable("credit_balances")
    .addColumn("workspace_id", "text", (c) => c.primaryKey().references("workspaces.id"))
    .addColumn("available_micros", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("held_micros", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("granted_micros", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("charged_micros", "bigint", (c) => c.notNull().defaultTo(0))
    .addCheckConstraint("credit_balances_available_nonnegative", sql`available_micros >= 0`)
    .addCheckConstraint("credit_balances_held_nonnegative", sql`held_micros >= 0`)
    .addCheckConstraint(
      "credit_balances_identity",
      sql`granted_micros = available_micros + held_micros + charged_micros`,
    )
    .execute();

  await db.schema
    .createTable("credit_holds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("amount_micros", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("settled_at", "text")
    .addCheckConstraint("credit_holds_amount_positive", sql`amount_micros > 0`)
    .addCheckConstraint("credit_holds_status", sql`status in ('held', 'released', 'charged')`)
    .execute();

  await db.schema
    .createTable("ledger_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("amount_micros", "bigint", (c) => c.notNull())
    .addColumn("hold_id", "text", (c) => c.references("credit_holds.id"))
    .addColumn("note", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addCheckConstraint("ledger_entries_kind", sql`kind in ('grant', 'hold', 'release', 'charge')`)
    .addCheckConstraint("ledger_entries_amount_positive", sql`amount_micros > 0`)
    .execute();
  await db.schema
    .createIndex("ledger_entries_workspace")
    .on("ledger_entries")
    .columns(["workspace_id", "created_at"])
    .execute();

  // Shape expected by rate-limiter-flexible's RateLimiterPostgres (used only on PostgreSQL).
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "varchar(255)", (c) => c.primaryKey())
    .addColumn("points", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expire", "bigint")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["rate_limits", "ledger_entries", "credit_holds", "credit_balances", "api_keys", "workspaces"]) {
    await db.schema.dropTable(table).execute();
  }
}
