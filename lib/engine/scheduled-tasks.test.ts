import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testDialect, type TestStore } from "../store/testing/test-store";
import { claimScheduledTurn } from "./scheduled-tasks";

describe(`scheduled turns (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("gives one turn per interval to many claimers at once, and the next only when it is due", async () => {
    const db = t.store.db;
    const start = Date.parse("2026-11-24T12:00:00.000Z");
    const claim = (owner: string, now: number) =>
      claimScheduledTurn(db, { name: "events_purge", everyMs: 60_000, owner, now });
    // Twenty processes asking at the same moment (on PostgreSQL, over the pool's connections).
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(`p${i}`, start)));
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await claim("late", start + 59_999)).toBe(false);
    const second = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(`q${i}`, start + 60_000)));
    expect(second.filter(Boolean)).toHaveLength(1);
    const row = await db
      .selectFrom("scheduled_tasks")
      .selectAll()
      .where("name", "=", "events_purge")
      .executeTakeFirstOrThrow();
    expect(Number(row.runs)).toBe(2);
    expect(row.due_at).toBe("2026-11-24T12:02:00.000Z");
    expect(row.last_run_by).toMatch(/^q\d+$/);
    // Another task keeps its own turns.
    expect(await claimScheduledTurn(db, { name: "other", everyMs: 60_000, owner: "x", now: start + 60_000 })).toBe(
      true,
    );
  });
});
