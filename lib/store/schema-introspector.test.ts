import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testDatabaseUrl, type TestStore } from "./testing/test-store";

// PostgreSQL only: SQLite has no schemas another client could drop.
describe.skipIf(!testDatabaseUrl())("introspection beside a schema being dropped (postgres)", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(() => t.cleanup());

  it("lists this store's tables, and only them, while another client creates and drops schemas", async () => {
    const churner = new pg.Client({ connectionString: testDatabaseUrl()! });
    await churner.connect();
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const schema = `t_gone_${randomBytes(6).toString("hex")}`;
        await churner.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".x (a int, b text, c int, d text)`);
        await churner.query(`DROP SCHEMA "${schema}" CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 150; i++) {
        const tables = await t.store.db.introspection.getTables({ withInternalKyselyTables: true });
        const names = tables.map((table) => table.name);
        expect(names).toContain("generations");
        expect(names).toContain("kysely_migration");
        expect(new Set(tables.map((table) => table.schema)).size).toBe(1);
      }
      // As Kysely's: its own tables only when asked for.
      const plain = (await t.store.db.introspection.getTables()).map((table) => table.name);
      expect(plain).toContain("generations");
      expect(plain).not.toContain("kysely_migration");
    } finally {
      churning = false;
      await churn;
      await churner.end();
    }
  });
});
