// Prompt search as a text index read (history-query.ts; SQLite's FTS5 trigram table of migration
// 019, PostgreSQL's pg_trgm index of online-indexes.ts): paging a search to its end gives exactly
// the runs a plain LIKE over the whole history gives, newest first, whatever the page bound, even
// where runs were written out of created_at order or many share one millisecond. Both stores.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { CursorPosition } from "../../primitives/cursor";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { plansOf } from "../../store/testing/query-plans";
import type { GenerationsTable } from "../../store/database";
import { MIGRATIONS } from "../../store/migrations";
import { migrateStore, openStore } from "../../store/store";
import { withTransaction } from "../../store/writes";
import { createWorkspace } from "../workspaces/workspaces";
import { seedHistory, seededRun, type HistorySeed } from "../testing/history-seed";
import { historyPages } from "../testing/history-pages";
import { listGenerations, promptSearch } from "./generations";
import { historyPage, type HistoryFilter } from "./history-query";

const postgres = testDialect() === "postgres";

describe(`prompt search with a text index (${testDialect()})`, () => {
  const store = useTestStore();

  /**
   * A history whose insert order is not its created_at order: two seeds over overlapping days,
   * the newer written first, then 30 runs sharing one millisecond, then runs with LIKE's and
   * JSON's special characters in their prompts.
   */
  async function history() {
    const ws = await createWorkspace({ db: store.db }, { name: "search", creditMicros: 0 });
    const tag = ws.id.slice(3, 9).toLowerCase();
    const newest = new Date("2026-06-01T00:00:00.000Z");
    const late: HistorySeed = { workspaceId: ws.id, runs: 1500, tag: `${tag}l`, newest, days: 20 };
    const early: HistorySeed = {
      workspaceId: ws.id,
      runs: 1500,
      tag: `${tag}e`,
      newest: new Date(newest.getTime() - 10 * 86_400_000),
      days: 20,
    };
    await seedHistory(store.db, late);
    await seedHistory(store.db, early);
    const at = new Date(newest.getTime() - 5 * 86_400_000 + 123).toISOString();
    const odd = ['Sunset at 100% "Harbour"', "a_b sunset", "back\\slash HARBOUR", "ÉTÉ harbour", "100 percent"];
    const extra: GenerationsTable[] = [];
    for (let i = 0; i < 30; i++) {
      const run = seededRun(late, i);
      extra.push({
        ...run,
        id: `gen_${tag}s${String(i).padStart(4, "0")}`,
        created_at: at,
        input_json: JSON.stringify({ prompt: i < odd.length ? odd[i] : `harbour batch ${i}` }),
      });
    }
    await withTransaction(store.db, (trx) => trx.insertInto("generations").values(extra).execute());
    return ws;
  }

  /** What a plain LIKE over the whole history gives (no text index), newest first. */
  async function likeAll(workspaceId: string, pattern: string): Promise<string[]> {
    const rows = await store.db
      .selectFrom("generations")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where(sql<boolean>`lower(input_json) like ${pattern} escape '\\'`)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows.map((r) => r.id);
  }

  const allPages = async (filter: HistoryFilter, take: number, bound: number) =>
    (await historyPages(store.db, filter, take, bound)).flat().map((r) => r.id);

  it("pages every search to exactly the runs a plain LIKE gives, at any bound", async () => {
    const ws = await history();
    const other = await createWorkspace({ db: store.db }, { name: "other", creditMicros: 0 });
    await seedHistory(store.db, { workspaceId: other.id, runs: 300, tag: other.id.slice(3, 9).toLowerCase() });
    const searches = [
      "harbour", // a tenth of the runs, and most of the 30 sharing a millisecond
      "Robot Garden",
      "no.1234",
      "no.7",
      "sunset harbour no.14",
      "100%",
      "a_b",
      "back\\slash",
      '"harbour"',
      "été",
      "zebra",
      "ne", // 1-2 characters: the bounded walk of the newest runs
      "%",
    ];
    for (const words of searches) {
      const search = promptSearch(words);
      const want = await likeAll(ws.id, search.pattern);
      for (const [take, bound] of [
        [7, 20],
        [50, 5_000],
      ] as const) {
        const got = await allPages({ workspaceId: ws.id, search }, take, bound);
        expect(got, JSON.stringify({ words, take, bound })).toEqual(want);
      }
    }
    // Other filters with a search, on the way.
    const search = promptSearch("harbour");
    const filter: HistoryFilter = { workspaceId: ws.id, search, statuses: ["succeeded"], sources: ["api"] };
    const want = await likeAll(ws.id, search.pattern);
    const rows = await store.db
      .selectFrom("generations")
      .select("id")
      .where("id", "in", want)
      .where("status", "=", "succeeded")
      .where("source", "=", "api")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    expect(await allPages(filter, 9, 40)).toEqual(rows.map((r) => r.id));
  });

  it("listGenerations pages a search through has_more and cursors to the same runs", async () => {
    const ws = await history();
    const ctx = testCtx(store.t, ws.id);
    const want = await likeAll(ws.id, promptSearch("Robot Garden").pattern);
    const got: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await listGenerations(ctx, { limit: "13", cursor }, { prompt: "Robot Garden" });
      got.push(...page.data.map((g) => g.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(got).toEqual(want);
  });

  it("a search of 3+ characters reads the text index; a shorter one walks the newest runs", async () => {
    const ws = await history();
    // Less than the history after either cursor: on PostgreSQL the text index is asked past the newest stretch.
    const bound = 100;
    const after = { t: "2026-05-20T00:00:00.000Z", i: "gen_zzz" };
    // PostgreSQL first walks the newest runs, where a word in a tenth of them fills the page; a
    // rare one is then looked up in the text index.
    if (postgres) await sql`analyze generations`.execute(store.db);
    for (const [words, textIndex] of [
      ["no.1234", true],
      ["zebra", true],
      ...(postgres ? [] : [["harbour", true] as const]),
      ["ne", false],
    ] as const) {
      const filter = { workspaceId: ws.id, search: promptSearch(words) };
      for (const cursor of [null, after]) {
        const plans = (await plansOf(store.db, (db) => historyPage(db, filter, cursor, 11, bound))).join("\n");
        expect(plans, words).not.toMatch(/SCAN generations( |$)(?!USING)|Seq Scan on generations/);
        const usesTextIndex = postgres
          ? plans.includes("generations_input_trgm")
          : /SCAN generations_search VIRTUAL TABLE INDEX \d+:M/.test(plans);
        expect(usesTextIndex, `${words}: ${plans}`).toBe(textIndex);
      }
    }
  });

  it.skipIf(postgres)("the text index follows the runs table: rows written and deleted", async () => {
    const ws = await history();
    const count = async (id: string) =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from generations_search where generations_search match ${'"harbour"'} and run = ${id}`.execute(
            store.db,
          )
        ).rows[0]?.n,
      );
    const id = (await likeAll(ws.id, promptSearch("harbour").pattern))[0]!;
    expect(await count(id)).toBe(1);
    await store.db.deleteFrom("generations").where("id", "=", id).execute();
    expect(await count(id)).toBe(0);
  });

  it.skipIf(postgres)("migration 019 fills the text index from the runs already there", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-search-"));
    const older = openStore({ databaseUrl: null, dataDir });
    try {
      const migrator = new Migrator({ db: older.db, provider: { getMigrations: async () => MIGRATIONS } });
      const result = await migrator.migrateTo("018-studio-sessions");
      if (result.error) throw result.error;
      const ws = await createWorkspace({ db: older.db }, { name: "older", creditMicros: 0 });
      await seedHistory(older.db, { workspaceId: ws.id, runs: 400, tag: "old" });
      await migrateStore(older);
      const search = promptSearch("harbour");
      const want = (
        await older.db
          .selectFrom("generations")
          .select("id")
          .where(sql<boolean>`lower(input_json) like ${search.pattern} escape '\\'`)
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .execute()
      ).map((r) => r.id);
      expect(want.length).toBeGreaterThan(0);
      const got: string[] = [];
      let after: CursorPosition | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const { rows, stoppedAt } = await historyPage(older.db, { workspaceId: ws.id, search }, after, 8, 10);
        const page = rows.slice(0, 7);
        got.push(...page.map((r) => r.id));
        const last = page[page.length - 1];
        after = rows.length > 7 && last ? { t: last.created_at, i: last.id } : stoppedAt;
        if (!after) break;
      }
      expect(got).toEqual(want);
    } finally {
      await older.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
