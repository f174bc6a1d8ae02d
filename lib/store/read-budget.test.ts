import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { withinBudget } from "./read-budget";
import { testDialect, useTestStore } from "./testing/test-store";

const postgres = testDialect() === "postgres";

describe(`a read within a time budget (${testDialect()})`, () => {
  const s = useTestStore();

  it("answers what the read answers when it is done in time", async () => {
    const answer = await withinBudget(s.t.store.db, 5_000, async (db) => {
      const { rows } = await sql<{ n: number }>`select 41 + 1 as n`.execute(db);
      return Number(rows[0]!.n);
    });
    expect(answer).toBe(42);
  });

  it.runIf(postgres)("answers null when PostgreSQL cancels a read past its budget, and the store goes on", async () => {
    const db = s.t.store.db;
    expect(await withinBudget(db, 30, (trx) => sql`select pg_sleep(2)`.execute(trx))).toBeNull();
    // The budget was the transaction's own: the next statement on the pool has none.
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db);
    expect(rows[0]!.statement_timeout).toBe("0");
  });

  it.runIf(postgres)("lets other errors through", async () => {
    await expect(
      withinBudget(s.t.store.db, 5_000, (db) => sql`select * from no_such_table`.execute(db)),
    ).rejects.toThrow(/no_such_table/);
  });

  it("has no budget inside a caller's transaction (a canceled statement would abort it)", async () => {
    const answer = await s.t.store.db.transaction().execute((trx) =>
      withinBudget(trx, 1, async (db) => {
        const { rows } = await sql<{ n: number }>`select 7 as n`.execute(db);
        return Number(rows[0]!.n);
      }),
    );
    expect(answer).toBe(7);
  });
});
