import { CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import { planOnce } from "./dialects";
import { addingFirstParameter, mergeSameShapeLists } from "./merged-inserts";

const q = (sql: string, ...parameters: unknown[]) => CompiledQuery.raw(sql, parameters);
const pgInsert = (table: string, ...values: unknown[]) =>
  q(`insert into "${table}" ("a", "b") values ($1, $2)`, ...values);
const liteInsert = (table: string, ...values: unknown[]) =>
  q(`insert into "${table}" ("a", "b") values (?, ?)`, ...values);
const view = (queries: CompiledQuery[]) => queries.map((c) => [c.sql, c.parameters]);

describe("merged inserts", () => {
  it("lists of one shape become one insert of many rows per statement, in the lists' order (PostgreSQL placeholders renumbered)", () => {
    const lock = q("select pg_advisory_xact_lock(1)");
    const list = (n: number) => [lock, pgInsert("holds", `h${n}`, n), pgInsert("runs", `r${n}`, `h${n}`)];
    expect(view(mergeSameShapeLists([list(1), list(2), list(3)], true))).toEqual([
      ["select pg_advisory_xact_lock(1)", []],
      ["select pg_advisory_xact_lock(1)", []],
      ["select pg_advisory_xact_lock(1)", []],
      ['insert into "holds" ("a", "b") values ($1, $2), ($3, $4), ($5, $6)', ["h1", 1, "h2", 2, "h3", 3]],
      ['insert into "runs" ("a", "b") values ($1, $2), ($3, $4), ($5, $6)', ["r1", "h1", "r2", "h2", "r3", "h3"]],
    ]);
  });

  it("SQLite placeholders are repeated", () => {
    const list = (n: number) => [liteInsert("holds", `h${n}`, n)];
    expect(view(mergeSameShapeLists([list(1), list(2)], false))).toEqual([
      ['insert into "holds" ("a", "b") values (?, ?), (?, ?)', ["h1", 1, "h2", 2]],
    ]);
  });

  it("keeps lists of other shapes apart, each shape where it first appears, and a lone list as it is", () => {
    const keyed = (n: number) => [pgInsert("keys", `k${n}`, n), pgInsert("runs", `r${n}`, n)];
    const plain = (n: number) => [pgInsert("runs", `r${n}`, n)];
    expect(view(mergeSameShapeLists([plain(1), keyed(2), plain(3), [q("update x set n = n + 1")]], true))).toEqual([
      ['insert into "runs" ("a", "b") values ($1, $2), ($3, $4)', ["r1", 1, "r3", 3]],
      ['insert into "keys" ("a", "b") values ($1, $2)', ["k2", 2]],
      ['insert into "runs" ("a", "b") values ($1, $2)', ["r2", 2]],
      ["update x set n = n + 1", []],
    ]);
  });

  it("sends a statement that is not a plain one-row insert once per list", () => {
    const upsert = (n: number) => [q(`insert into "c" ("a", "b") values ($1, $2) on conflict do nothing`, n, n)];
    const literal = (n: number) => [q(`insert into "c" ("a", "b") values ($1, 'x')`, n)];
    const counter = () => [q("update x set n = n + 1")];
    expect(mergeSameShapeLists([upsert(1), upsert(2)], true)).toHaveLength(2);
    expect(mergeSameShapeLists([literal(1), literal(2)], true)).toHaveLength(2);
    expect(mergeSameShapeLists([counter(), counter(), counter()], true)).toHaveLength(3);
  });

  it("sends an adding statement once per distinct other parameters, with the lists' amounts added", () => {
    const adds = (amount: number, key: string) =>
      planOnce(
        addingFirstParameter(
          q("insert into c (n, k) select $1, $2 on conflict (k) do update set n = c.n + excluded.n", amount, key),
        ),
      );
    const list = (amount: number, key: string) => [pgInsert("runs", `r${amount}`, key), adds(amount, key)];
    const statements = mergeSameShapeLists([list(1, "a"), list(2, "b"), list(4, "a"), list(8, "a")], true);
    const merged = view(statements);
    expect(merged).toHaveLength(3);
    // Still marked to be planned once per connection.
    expect(Object.getOwnPropertySymbols(statements[1]!)).toEqual(Object.getOwnPropertySymbols(adds(1, "a")));
    expect(Object.getOwnPropertySymbols(statements[1]!)).toHaveLength(1);
    expect(merged[1]).toEqual([adds(13, "a").sql, [13, "a"]]);
    expect(merged[2]).toEqual([adds(2, "b").sql, [2, "b"]]);
    expect(merged[1]![0]).toMatch(/^\/\* adds its first parameter \*\/ insert into c/);
  });
});
