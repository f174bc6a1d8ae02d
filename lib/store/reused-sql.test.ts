import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createWorkspace } from "../core/workspaces/workspaces";
import { newId } from "../primitives/ids";
import { insertRow, reusedQuery } from "./reused-sql";
import { testDialect, useTestStore } from "./testing/test-store";

describe(`statements compiled once (${testDialect()})`, () => {
  const store = useTestStore();
  const batch = (workspaceId: string, createdAt: string) => ({
    id: newId("batch"),
    workspace_id: workspaceId,
    source: "api" as const,
    created_at: createdAt,
  });

  it("an insert sends Kysely's own SQL with each row's values, and every row lands as given", async () => {
    const db = store.db;
    const ws = await createWorkspace({ db }, { name: "reused inserts", creditMicros: 0 });
    const rows = [
      batch(ws.id, "2026-01-01T00:00:00.000Z"),
      batch(ws.id, "2026-01-02T00:00:00.000Z"),
      batch(ws.id, "2026-01-03T00:00:00.000Z"),
    ];
    for (const row of rows) {
      const ours = insertRow(db, "batches", row).compile();
      const kysely = db.insertInto("batches").values(row).compile();
      expect(ours.sql).toBe(kysely.sql);
      expect(ours.parameters).toEqual(kysely.parameters);
      await db.executeQuery(ours);
    }
    const stored = await db
      .selectFrom("batches")
      .selectAll()
      .where("workspace_id", "=", ws.id)
      .orderBy("created_at")
      .execute();
    expect(stored).toEqual(rows);
  });

  it("the same columns in another order are another statement, still right", async () => {
    const db = store.db;
    const ws = await createWorkspace({ db }, { name: "reordered", creditMicros: 0 });
    const row = batch(ws.id, "2026-02-01T00:00:00.000Z");
    const reordered = { created_at: row.created_at, source: row.source, workspace_id: row.workspace_id, id: row.id };
    const compiled = insertRow(db, "batches", reordered).compile();
    expect(compiled.sql).toBe(db.insertInto("batches").values(reordered).compile().sql);
    await db.executeQuery(compiled);
    expect(await db.selectFrom("batches").selectAll().where("id", "=", row.id).executeTakeFirst()).toEqual(row);
  });

  it("a value that is an expression is compiled as usual, every time", async () => {
    const db = store.db;
    const ws = await createWorkspace({ db }, { name: "expressions", creditMicros: 0 });
    const plain = batch(ws.id, "2026-03-01T00:00:00.000Z");
    await db.executeQuery(insertRow(db, "batches", plain).compile());
    // The same shape, but one value is SQL: it must not be sent as a parameter.
    const id = newId("batch");
    const withExpression = {
      id,
      workspace_id: ws.id,
      source: "api" as const,
      created_at: sql<string>`${"2026-03-02T00:00:00.000Z"}`,
    };
    const compiled = insertRow(db, "batches", withExpression as never).compile();
    expect(compiled.sql).toBe(db.insertInto("batches").values(withExpression).compile().sql);
    await db.executeQuery(compiled);
    expect(
      (await db.selectFrom("batches").select("created_at").where("id", "=", id).executeTakeFirstOrThrow()).created_at,
    ).toBe("2026-03-02T00:00:00.000Z");
  });

  it("a shape whose parameters are not the given values, in order, is never reused", async () => {
    const db = store.db;
    const ws = await createWorkspace({ db }, { name: "unreusable", creditMicros: 0 });
    // Kysely's parameters here are [workspace, limit], given as [limit, workspace]: a wrong declaration.
    const query = (limit: number) =>
      reusedQuery(db, "unreusable test query", [limit, ws.id], () =>
        db.selectFrom("batches").select("id").where("workspace_id", "=", ws.id).limit(limit),
      );
    for (const limit of [1, 2, 3]) {
      const compiled = query(limit).compile();
      expect(compiled.parameters).toEqual([ws.id, limit]);
    }
  });
});
