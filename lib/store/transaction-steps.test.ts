import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createWorkspace } from "../core/workspaces/workspaces";
import { planOnce } from "./dialects";
import { withTransaction } from "./writes";
import { testDialect, useTestStore } from "./testing/test-store";
import { inOneStep, inTransactionSteps } from "./transaction-steps";

describe(`transaction steps (${testDialect()})`, () => {
  const store = useTestStore();

  const newWorkspace = async () =>
    (await createWorkspace({ db: store.db }, { name: `steps-${randomBytes(4).toString("hex")}`, creditMicros: 0 })).id;
  const rename = (id: string, name: string) =>
    store.db.updateTable("workspaces").set({ name }).where("id", "=", id).returning("name").compile();
  const nameOf = async (id: string) =>
    (await store.db.selectFrom("workspaces").select("name").where("id", "=", id).executeTakeFirstOrThrow()).name;

  it("gives each query's rows, makes the next step from them, and commits with the last step", async () => {
    const id = await newWorkspace();
    const result = await inTransactionSteps(store.db, async (steps) => {
      const [renamed, read] = await steps.send([
        rename(id, "first"),
        store.db.selectFrom("workspaces").select("name").where("id", "=", id).compile(),
      ]);
      expect(renamed).toEqual([{ name: "first" }]);
      // The second query saw the first's write: the step's statements ran in order, in one transaction.
      expect(read).toEqual([{ name: "first" }]);
      const [again] = await steps.sendAndCommit([rename(id, `${(renamed![0] as { name: string }).name} then second`)]);
      return again;
    });
    expect(result).toEqual([{ name: "first then second" }]);
    expect(await nameOf(id)).toBe("first then second");
  });

  it("rolls everything back when fn returns without the commit, throws between steps, or a statement fails", async () => {
    const id = await newWorkspace();
    const before = await nameOf(id);
    expect(
      await inTransactionSteps(store.db, async (steps) => (await steps.send([rename(id, "not kept")]))[0]),
    ).toEqual([{ name: "not kept" }]);
    expect(await nameOf(id)).toBe(before);

    await expect(
      inTransactionSteps(store.db, async (steps) => {
        await steps.send([rename(id, "not kept either")]);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await nameOf(id)).toBe(before);

    // The failing statement is the last of the commit's step: the writes before it in the same step are not kept.
    const failing = sql`select * from no_such_table`.compile(store.db);
    await expect(
      inTransactionSteps(store.db, async (steps) => steps.sendAndCommit([rename(id, "not kept at all"), failing])),
    ).rejects.toThrow(/no_such_table/);
    expect(await nameOf(id)).toBe(before);
    // The connection is usable afterwards (every pooled connection: PostgreSQL's pool holds several).
    await Promise.all(
      Array.from({ length: 12 }, () =>
        inTransactionSteps(store.db, (steps) => steps.sendAndCommit([rename(id, "kept")])),
      ),
    );
    expect(await nameOf(id)).toBe("kept");
  });

  it("inOneStep: the writes and commit, then reads that see them; a failing write keeps none", async () => {
    const id = await newWorkspace();
    const before = await nameOf(id);
    const read = store.db.selectFrom("workspaces").select("name").where("id", "=", id).compile();
    expect(await inOneStep(store.db, [rename(id, "one"), rename(id, "two")], [read])).toEqual([[{ name: "two" }]]);
    const failing = sql`select * from no_such_table`.compile(store.db);
    await expect(inOneStep(store.db, [rename(id, "not kept"), failing], [read])).rejects.toThrow(/no_such_table/);
    expect(await nameOf(id)).toBe("two");
    expect(before).not.toBe("two");
  });

  it("refuses a step after the commit", async () => {
    const id = await newWorkspace();
    await expect(
      inTransactionSteps(store.db, async (steps) => {
        await steps.sendAndCommit([rename(id, "kept")]);
        await steps.send([rename(id, "too late")]);
      }),
    ).rejects.toThrow(/already committed/);
    expect(await nameOf(id)).toBe("kept");
  });

  it("joins a caller's transaction, which decides", async () => {
    const id = await newWorkspace();
    const before = await nameOf(id);
    await expect(
      withTransaction(store.db, async (trx) => {
        await inTransactionSteps(trx, (steps) => steps.sendAndCommit([rename(id, "in the caller's")]));
        expect(
          (await trx.selectFrom("workspaces").select("name").where("id", "=", id).executeTakeFirstOrThrow()).name,
        ).toBe("in the caller's");
        throw new Error("the caller rolls back");
      }),
    ).rejects.toThrow("the caller rolls back");
    expect(await nameOf(id)).toBe(before);
  });

  it("planOnce: a marked statement is kept prepared (PostgreSQL), not one reading `*` nor an insert of several rows, and all keep working after their table gains a column", async () => {
    const id = await newWorkspace();
    const marked = (name: string) =>
      planOnce(
        store.db.updateTable("workspaces").set({ name }).where("id", "=", id).returning(["id", "name"]).compile(),
      );
    const star = (name: string) =>
      planOnce(store.db.updateTable("workspaces").set({ name }).where("id", "=", id).returningAll().compile());
    const twoRows = () =>
      planOnce(
        store.db
          .insertInto("ledger_entries")
          .values(
            [0, 1].map((i) => ({
              id: `le_${randomBytes(8).toString("hex")}`,
              workspace_id: id,
              kind: "grant" as const,
              amount_micros: i + 1,
              hold_id: null,
              note: "plan once",
              created_at: "2026-01-01T00:00:00.000Z",
            })),
          )
          .compile(),
      );
    const kept = async () =>
      testDialect() === "postgres"
        ? await inTransactionSteps(store.db, async (steps) => {
            // Each of the three on this one connection, then what it keeps prepared.
            const [, , , prepared] = await steps.send([
              marked("a"),
              star("b"),
              twoRows(),
              sql<{ statement: string }>`select statement from pg_prepared_statements`.compile(store.db),
            ]);
            return (prepared as { statement: string }[]).map((p) => p.statement);
          })
        : null;
    const statements = await kept();
    if (statements) {
      expect(statements).toContain(marked("a").sql);
      expect(statements).not.toContain(star("b").sql);
      expect(statements).not.toContain(twoRows().sql);
    }
    await sql`alter table workspaces add column note_for_test text`.execute(store.db);
    try {
      // On every pooled connection, the kept statement still answers, with the columns it names.
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          inTransactionSteps(store.db, (steps) => steps.sendAndCommit([marked(`after-${i}`), star(`star-${i}`)])),
        ),
      );
      for (const [i, [named, all]] of answers.entries()) {
        expect(named).toEqual([{ id, name: `after-${i}` }]);
        expect(all![0]).toMatchObject({ id, name: `star-${i}`, note_for_test: null });
      }
    } finally {
      await sql`alter table workspaces drop column note_for_test`.execute(store.db);
    }
  });
});
