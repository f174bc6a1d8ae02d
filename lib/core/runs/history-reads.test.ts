// The long reads routed to Services.historyReads (the store's `reads`: a worker thread on SQLite,
// the pool on PostgreSQL) answer what the main connection answers.
import { describe, expect, it } from "vitest";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import { seedHistory } from "../testing/history-seed";
import { opsFailureReasons, opsModels, opsOverview } from "../ops/ops";
import { opsPrincipal } from "../ops/ops-principal";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";
import { listGenerations } from "./generations";

describe(`history reads through the store's reads connection (${testDialect()})`, () => {
  const s = useTestStore();

  it("give the same history pages and ops figures as the main connection", async () => {
    const { store } = s.t;
    const db = store.db;
    const workspace = await createWorkspace({ db }, { name: "reads" });
    const now = new Date();
    await seedHistory(db, {
      workspaceId: workspace.id,
      runs: 600,
      models: ["atelier/gradient", "atelier/noise"],
      newest: now,
      days: 1,
      tag: "reads",
    });
    const direct = testCtx(s.t, workspace.id);
    const threaded = { ...direct, services: { ...direct.services, historyReads: store.reads } };

    for (const query of [{ limit: "50" }, { model: "atelier/noise", status: "failed" }, { source: "studio" }]) {
      const page = await listGenerations(threaded, query);
      expect(page).toEqual(await listGenerations(direct, query));
      expect(page.data.length).toBeGreaterThan(0);
      if (page.next_cursor) {
        const next = { ...query, cursor: page.next_cursor };
        expect(await listGenerations(threaded, next)).toEqual(await listGenerations(direct, next));
      }
    }
    expect(await listGenerations(threaded, {}, { prompt: "harbour" })).toEqual(
      await listGenerations(direct, {}, { prompt: "harbour" }),
    );

    const operator = await createUser(
      { db },
      {
        email: "reads-operator@example.com",
        password: "long enough",
        workspaceId: workspace.id,
        role: "owner",
        ops: true,
      },
    );
    const opsDirect = await opsPrincipal(db, operator.id);
    const opsThreaded = await opsPrincipal(db, operator.id, store.reads);
    expect(opsThreaded.reads).toBe(store.reads);
    const options = { now, filter: { workspaceId: workspace.id } };
    const overview = await opsOverview(opsThreaded, options);
    expect(overview.runs.length).toBeGreaterThan(0);
    expect(overview).toEqual(await opsOverview(opsDirect, options));
    const reasons = await opsFailureReasons(opsThreaded, { now, windowMs: 2 * 86_400_000 });
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons).toEqual(await opsFailureReasons(opsDirect, { now, windowMs: 2 * 86_400_000 }));
    expect(await opsModels(opsThreaded, { now })).toEqual(await opsModels(opsDirect, { now }));
  });
});
