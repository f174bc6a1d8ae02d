import { randomBytes } from "node:crypto";
import { sql, type Compilable } from "kysely";
import { describe, expect, it } from "vitest";
import { holdWrites, moveHeldFromAvailable, readBalance, sumLedger } from "../core/credits/credits";
import { createWorkspace } from "../core/workspaces/workspaces";
import { METRICS } from "../primitives/metrics";
import type { Db } from "./database";
import { isUniqueViolation } from "./dialects";
import { withTransaction, writeList } from "./writes";
import { testDialect, useTestStore } from "./testing/test-store";
import { MAX_WRITE_GROUP, writeLists } from "./write-groups";
import { addingFirstParameter } from "./merged-inserts";

/** The group sizes observed so far: how many transactions, how many lists, the largest bucket used. */
async function groupSizes(): Promise<{ transactions: number; lists: number; atMost: (size: number) => number }> {
  const { values } = await METRICS.writeGroupSize.get();
  const count = values.find((v) => v.metricName === "atelier_store_write_group_size_count")?.value ?? 0;
  const sum = values.find((v) => v.metricName === "atelier_store_write_group_size_sum")?.value ?? 0;
  const buckets = values.filter((v) => v.metricName === "atelier_store_write_group_size_bucket");
  return {
    transactions: count,
    lists: sum,
    atMost: (size) => buckets.find((b) => b.labels.le === size)?.value ?? Number.NaN,
  };
}

describe(`write groups (${testDialect()})`, () => {
  const store = useTestStore();

  const newWorkspace = async (creditMicros: number) =>
    (await createWorkspace({ db: store.db }, { name: `wg-${randomBytes(4).toString("hex")}`, creditMicros })).id;

  /** A hold's writes as a create makes them: the hold, its ledger entry, then the balance move. */
  const holdList = (db: Db, workspaceId: string, amountMicros: number) => {
    const { holdId, writes } = holdWrites(db, { workspaceId, amountMicros });
    return { holdId, writes: [...writes, moveHeldFromAvailable(db, { workspaceId, amountMicros })] };
  };

  const holdsOf = async (workspaceId: string) =>
    (await store.db.selectFrom("credit_holds").select("id").where("workspace_id", "=", workspaceId).execute())
      .map((h) => h.id)
      .sort();

  it("lists of one workspace that arrive together share a transaction and a read, and each gets its own rows", async () => {
    const db = store.db;
    const workspaceId = await newWorkspace(1_000_000);
    const before = await groupSizes();
    const reads: number[] = [];
    const readHolds = (db: Db, ids: readonly string[]) => {
      reads.push(ids.length);
      return db.selectFrom("credit_holds").select(["id", "amount_micros"]).where("id", "in", ids).compile();
    };
    const lists = Array.from({ length: 40 }, () => holdList(db, workspaceId, 10_000));
    const answers = await Promise.all(
      lists.map(({ holdId, writes }) =>
        writeList(db, writes, { groupBy: workspaceId, read: { ids: [holdId], query: readHolds } }),
      ),
    );
    answers.forEach((rows, i) => expect(rows).toEqual([{ id: lists[i]!.holdId, amount_micros: 10_000 }]));
    const after = await groupSizes();
    expect(after.lists - before.lists).toBe(40);
    // Fewer transactions than lists: they were committed together; and one read per transaction.
    expect(after.transactions - before.transactions).toBeLessThan(40);
    expect(reads.length).toBe(after.transactions - before.transactions);
    expect(reads.reduce((a, b) => a + b, 0)).toBe(40);
    expect(await holdsOf(workspaceId)).toEqual(lists.map((l) => l.holdId).sort());
    const balance = await readBalance(db, workspaceId);
    expect(balance).toMatchObject({ availableMicros: 600_000, heldMicros: 400_000 });
    expect(await sumLedger(db, workspaceId)).toEqual(balance);
  });

  it("a list that fails fails alone, with its own error; the rest of its group lands", async () => {
    const db = store.db;
    const workspaceId = await newWorkspace(100_000);
    const keyed = (key: string): Compilable =>
      db.insertInto("idempotency_keys").values({
        workspace_id: workspaceId,
        key,
        endpoint: "test",
        request_hash: "h",
        resource_id: "r",
        created_at: new Date().toISOString(),
      });
    // Fifteen holds of $0.01 against $0.10: ten fit. One more list repeats a key another list writes.
    const lists = Array.from({ length: 15 }, () => holdList(db, workspaceId, 10_000));
    const outcomes = await Promise.allSettled([
      ...lists.map(({ writes }) => writeList(db, writes, { groupBy: workspaceId })),
      writeList(db, [keyed("taken")], { groupBy: workspaceId }),
      writeList(db, [keyed("taken")], { groupBy: workspaceId }),
    ]);
    const holds = outcomes.slice(0, 15);
    expect(holds.filter((o) => o.status === "fulfilled")).toHaveLength(10);
    for (const refused of holds.filter((o): o is PromiseRejectedResult => o.status === "rejected")) {
      expect(String((refused.reason as Error).message)).toMatch(
        /credit_balances_available_nonnegative|check constraint/i,
      );
    }
    const keys = outcomes.slice(15);
    expect(keys.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(isUniqueViolation((keys.find((o) => o.status === "rejected") as PromiseRejectedResult).reason)).toBe(true);
    const balance = await readBalance(db, workspaceId);
    expect(balance).toMatchObject({ availableMicros: 0, heldMicros: 100_000 });
    expect(await sumLedger(db, workspaceId)).toEqual(balance);
    expect(await holdsOf(workspaceId)).toHaveLength(10);
  });

  it(`takes at most ${MAX_WRITE_GROUP} lists in one transaction`, async () => {
    const db = store.db;
    const workspaceId = await newWorkspace(1_000_000);
    const before = await groupSizes();
    const n = MAX_WRITE_GROUP * 2 + 10;
    await Promise.all(
      Array.from({ length: n }, () => writeList(db, holdList(db, workspaceId, 1_000).writes, { groupBy: workspaceId })),
    );
    const after = await groupSizes();
    expect(after.lists - before.lists).toBe(n);
    expect(after.transactions - before.transactions).toBeGreaterThanOrEqual(3);
    // Every group so far fits the largest bucket: none was larger.
    expect(after.atMost(MAX_WRITE_GROUP)).toBe(after.transactions);
    expect(await holdsOf(workspaceId)).toHaveLength(n);
    expect((await readBalance(db, workspaceId)).heldMicros).toBe(n * 1_000);
  });

  it("inside a caller's transaction a list joins it and rolls back with it", async () => {
    const workspaceId = await newWorkspace(100_000);
    let holdId = "";
    await expect(
      withTransaction(store.db, async (trx) => {
        const list = holdList(trx, workspaceId, 10_000);
        holdId = list.holdId;
        await writeList(trx, list.writes, { groupBy: workspaceId });
        expect((await readBalance(trx, workspaceId)).heldMicros).toBe(10_000);
        throw new Error("the caller fails after the writes");
      }),
    ).rejects.toThrow("the caller fails");
    expect(holdId).not.toBe("");
    expect(await holdsOf(workspaceId)).toEqual([]);
    expect((await readBalance(store.db, workspaceId)).heldMicros).toBe(0);
  });

  it("a group runs each list's writes in order, and every list's last write after all the others", async () => {
    const db = store.db;
    const workspaceId = await newWorkspace(0);
    // Each key records how many keys of the workspace were there before it: the order they ran in.
    const keyed = (key: string) =>
      db
        .insertInto("idempotency_keys")
        .values({
          workspace_id: workspaceId,
          key,
          endpoint: "order",
          request_hash: sql<string>`(select cast(count(*) as text) from idempotency_keys where workspace_id = ${workspaceId})`,
          resource_id: "r",
          created_at: new Date().toISOString(),
        })
        .compile();
    await writeLists(
      db,
      [[keyed("a1"), keyed("b1"), keyed("last1")], [keyed("a2"), keyed("last2")], [keyed("last3")]],
      [],
    );
    const rows = await db
      .selectFrom("idempotency_keys")
      .select(["key", "request_hash"])
      .where("workspace_id", "=", workspaceId)
      .execute();
    const order = rows.sort((x, y) => Number(x.request_hash) - Number(y.request_hash)).map((r) => r.key);
    expect(order).toEqual(["a1", "b1", "a2", "last1", "last2", "last3"]);
  });

  it("a group's adding last writes move each counter once, by the lists' sum", async () => {
    const db = store.db;
    const workspaceId = await newWorkspace(1_000_000);
    const table = `adds_${randomBytes(4).toString("hex")}`;
    await sql`create table ${sql.table(table)} (k text primary key, n bigint not null, statements integer not null)`.execute(
      db,
    );
    // Like a budget's counter: added to by each list's last write, after its balance move.
    const adds = (amount: number) =>
      addingFirstParameter(
        sql`insert into ${sql.table(table)} (n, k, statements) values (${amount}, ${workspaceId}, 1)
          on conflict (k) do update set n = ${sql.table(table)}.n + excluded.n,
            statements = ${sql.table(table)}.statements + 1`.compile(db),
      );
    const before = await groupSizes();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const { writes } = holdList(db, workspaceId, 1_000);
        return writeList(db, [...writes, adds(i + 1)], { groupBy: workspaceId });
      }),
    );
    const transactions = (await groupSizes()).transactions - before.transactions;
    expect(transactions).toBeLessThan(40);
    const counter = await sql<{
      n: number | string;
      statements: number;
    }>`select n, statements from ${sql.table(table)}`.execute(db);
    expect(counter.rows.map((r) => [Number(r.n), Number(r.statements)])).toEqual([[(40 * 41) / 2, transactions]]);
  });
});
