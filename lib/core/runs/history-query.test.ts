// History pages at any size: each filter walks its own index (no scan of the runs table), a
// filter whose matches are rare answers within the walk's bound with a cursor that goes on, and
// paging through to the end gives exactly the matching runs, newest first. Both stores.
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { plansOf, SCAN_OF_RUNS } from "../../store/testing/query-plans";
import type { Db, GenerationsTable } from "../../store/database";
import { createWorkspace } from "../workspaces/workspaces";
import { seedHistory, seededRun, type HistorySeed } from "../testing/history-seed";
import { historyPages } from "../testing/history-pages";
import { listGenerations, promptSearch } from "./generations";
import { createUser } from "../workspaces/users";
import { opsFailureReasons, opsModels, opsOverview } from "../ops/ops";
import { opsPrincipal } from "../ops/ops-principal";
import { historyPage, type HistoryFilter } from "./history-query";

const MODELS = ["atelier/gradient", "atelier/noise", "atelier/qr-code@2"];

describe(`history pages (${testDialect()})`, () => {
  const store = useTestStore();

  async function seeded(runs: number) {
    const ws = await createWorkspace({ db: store.db }, { name: "history", creditMicros: 0 });
    const seed: HistorySeed = { workspaceId: ws.id, runs, models: MODELS, tag: ws.id.slice(3, 9).toLowerCase() };
    await seedHistory(store.db, seed);
    const all = Array.from({ length: runs }, (_, i) => seededRun(seed, i)).reverse();
    return { ws, seed, all };
  }

  it("pages through every filter, alone and combined, to exactly the matching runs, at a small bound", async () => {
    const { ws, all } = await seeded(600);
    const base = { workspaceId: ws.id };
    const cases: [HistoryFilter, (r: GenerationsTable) => boolean][] = [
      [base, () => true],
      [{ ...base, model: "atelier/noise" }, (r) => r.model_base === "atelier/noise"],
      [{ ...base, model: "atelier/qr-code@2" }, (r) => r.model === "atelier/qr-code@2"],
      [{ ...base, model: "atelier/qr-code@1" }, () => false],
      [{ ...base, statuses: ["failed"] }, (r) => r.status === "failed"],
      [{ ...base, statuses: ["queued"] }, () => false],
      [{ ...base, statuses: ["failed", "canceled"] }, (r) => r.status === "failed" || r.status === "canceled"],
      [{ ...base, sources: ["mcp"] }, (r) => r.source === "mcp"],
      [
        { ...base, model: "atelier/gradient", statuses: ["failed"], sources: ["api", "studio"] },
        (r) => r.model_base === "atelier/gradient" && r.status === "failed" && r.source !== "mcp",
      ],
      [{ ...base, model: "atelier/noise", statuses: ["queued"] }, () => false],
      [{ ...base, search: promptSearch("forest") }, (r) => r.input_json.includes("forest")],
      [
        { ...base, from: all[400]!.created_at, before: all[100]!.created_at, sources: ["studio"] },
        (r) => r.created_at >= all[400]!.created_at && r.created_at < all[100]!.created_at && r.source === "studio",
      ],
    ];
    for (const [filter, matches] of cases) {
      const want = all.filter(matches).map((r) => r.id);
      for (const bound of [7, 5_000]) {
        const pages = await historyPages(store.db, filter, 10, bound);
        expect(
          pages.flat().map((r) => r.id),
          JSON.stringify({ filter, bound }),
        ).toEqual(want);
        // No page is longer than asked, and no page walked past its bound.
        for (const page of pages) expect(page.length).toBeLessThanOrEqual(10);
      }
    }
  });

  it("a rare filter answers a short page and a cursor when the walk reaches its bound", async () => {
    const { ws } = await seeded(300);
    // One failed run in 50 (the seed's 2 %): a walk of 20 entries finds none or one.
    const first = await historyPage(
      store.db,
      { workspaceId: ws.id, statuses: ["failed"], sources: ["api"] },
      null,
      11,
      20,
    );
    expect(first.rows.length).toBeLessThan(11);
    expect(first.stoppedAt).not.toBeNull();
  });

  it("listGenerations: a rare combination pages on through short pages, each with has_more, to an exact end", async () => {
    const { ws, all } = await seeded(120);
    const ctx = testCtx(store.t, ws.id);
    const want = all.filter((r) => r.status === "canceled" && r.model_base === "atelier/noise").map((r) => r.id);
    const got: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await listGenerations(ctx, { model: "atelier/noise", status: "canceled", limit: "2", cursor });
      got.push(...page.data.map((g) => g.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(got).toEqual(want);
  });

  it("every history filter, the deep cursor and the ops reads use an index, never a scan of the runs", async () => {
    const { ws, all } = await seeded(50);
    const after = { t: all[25]!.created_at, i: all[25]!.id };
    const base = { workspaceId: ws.id };
    const filters: [HistoryFilter, string][] = [
      [base, "generations_workspace_page"],
      [{ ...base, model: "atelier/noise" }, "generations_workspace_model"],
      [{ ...base, statuses: ["queued"] }, "generations_workspace_status"],
      [{ ...base, statuses: ["failed"] }, "generations_workspace_status"],
      [{ ...base, sources: ["studio"] }, "generations_workspace_source"],
      [{ ...base, createdBy: "usr_x" }, "generations_workspace_creator"],
      [{ ...base, batch: "bat_x" }, "generations_workspace_batch"],
      [
        { ...base, model: "atelier/noise", statuses: ["failed"], sources: ["api"], search: promptSearch("x") },
        "generations_workspace_model",
      ],
      [{ ...base, from: all[40]!.created_at, before: all[2]!.created_at }, "generations_workspace_page"],
    ];
    for (const [filter, index] of filters) {
      const plans = await plansOf(store.db, (db) => historyPage(db, filter, after, 11));
      for (const plan of plans) {
        expect(plan, JSON.stringify(filter)).not.toMatch(SCAN_OF_RUNS);
        expect(plan, JSON.stringify(filter)).toContain(index);
      }
    }
    const operator = await createUser(
      { db: store.db },
      { email: `ops-${ws.id}@example.com`, password: "long enough", workspaceId: ws.id, role: "owner", ops: true },
    );
    const ops = await opsPrincipal(store.db, operator.id);
    const opsReads: ((db: Db) => Promise<unknown>)[] = [
      (db) => opsOverview({ ...ops, db }),
      (db) => opsOverview({ ...ops, db }, { filter: { status: "failed" } }),
      (db) => opsOverview({ ...ops, db }, { filter: { model: "atelier/noise" } }),
      (db) => opsOverview({ ...ops, db }, { filter: { workspaceId: ws.id, status: "failed" } }),
      (db) => opsFailureReasons({ ...ops, db }),
      (db) => opsModels({ ...ops, db }),
    ];
    for (const read of opsReads) {
      for (const plan of await plansOf(store.db, read)) expect(plan).not.toMatch(SCAN_OF_RUNS);
    }
  });
});
