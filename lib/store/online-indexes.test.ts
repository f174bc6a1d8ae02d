// The indexes built after the migrations: all there after migrateStore, the ones they replace
// gone, a missing one built again on the next start, and (PostgreSQL) an invalid one — what a
// CREATE INDEX CONCURRENTLY cut short leaves — dropped and built again.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateStore } from "./store";
import { buildOnlineIndexes, ONLINE_INDEXES } from "./online-indexes";
import { openTestStore, testDialect, type TestStore } from "./testing/test-store";

describe(`online indexes (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  /** Index name → valid, for the runs table's indexes. */
  async function indexes(): Promise<Map<string, boolean>> {
    const db = t.store.db;
    if (testDialect() === "postgres") {
      const { rows } = await sql<{ name: string; valid: boolean }>`
        select c.relname as name, i.indisvalid as valid from pg_index i
        join pg_class c on c.oid = i.indexrelid join pg_class r on r.oid = i.indrelid
        where r.relname = 'generations' and c.relnamespace = current_schema()::regnamespace`.execute(db);
      return new Map(rows.map((r) => [r.name, r.valid]));
    }
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'index' and tbl_name = 'generations'`.execute(db);
    return new Map(rows.map((r) => [r.name, true]));
  }

  it("are all built, valid, and the ones they replace are gone", async () => {
    const present = await indexes();
    for (const index of ONLINE_INDEXES) {
      if (index.table !== "generations") continue;
      // SQLite's prompt search has its FTS5 table instead (migration 019).
      if (index.postgres && testDialect() !== "postgres") continue;
      expect(present.get(index.name), index.name).toBe(true);
      if (index.replaces) expect(present.has(index.replaces), index.replaces).toBe(false);
    }
    // Nothing left to do on the next start.
    expect(await buildOnlineIndexes(t.store.db)).toEqual([]);
  });

  it("a missing one is built again when the store is migrated", async () => {
    await sql`drop index generations_workspace_model`.execute(t.store.db);
    expect((await indexes()).has("generations_workspace_model")).toBe(false);
    await migrateStore(t.store);
    expect((await indexes()).get("generations_workspace_model")).toBe(true);
  });

  it.runIf(testDialect() === "postgres")(
    "an invalid one (a concurrent build cut short) is dropped and built again",
    async () => {
      const db = t.store.db;
      await sql`update pg_index set indisvalid = false where indexrelid = 'generations_workspace_status'::regclass`.execute(
        db,
      );
      expect((await indexes()).get("generations_workspace_status")).toBe(false);
      expect(await buildOnlineIndexes(db)).toEqual(["generations_workspace_status"]);
      expect((await indexes()).get("generations_workspace_status")).toBe(true);
    },
  );
});
