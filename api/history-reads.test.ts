// Nothing blocks the event loop for long (docs/architecture.md, the store): a slow history read, sent the
// way listGenerations and the ops page send theirs (the store's `reads`), does not hold up a
// request that arrives meanwhile. An ordering test: the small request must end first.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createApiApp } from "./app";
import { createRateLimits } from "./rate-limit";
import { installCatalog } from "../lib/boot/boot";
import { loadConfig } from "../lib/boot/config";
import { createApiKey } from "../lib/core/keys/api-keys";
import { createWorkspace } from "../lib/core/workspaces/workspaces";
import { createLogger } from "../lib/primitives/logger";
import { testCtx, testDialect, useTestStore } from "../lib/store/testing/test-store";

/** About a second on SQLite: a recursive CTE counting to a few million. */
const slowRead = sql<{ n: number }>`
  with recursive counter(i) as (select 1 union all select i + 1 from counter where i < 3000000)
  select count(*) as n from counter`;

describe(`a slow history read and a concurrent request (${testDialect()})`, () => {
  const s = useTestStore();

  it("GET /v1/models answers before a slow read through the store's reads connection ends", async () => {
    const { store } = s.t;
    const config = loadConfig({ DATA_DIR: s.t.dataDir });
    installCatalog(config);
    const workspace = await createWorkspace({ db: store.db }, { name: "reads" });
    const { key } = await createApiKey({ db: store.db }, { workspaceId: workspace.id, name: "reads", prefix: "atl" });
    const services = { ...testCtx(s.t, workspace.id).services, historyReads: store.reads };
    const app = createApiApp({
      store,
      config,
      services,
      rateLimits: createRateLimits(config),
      logger: createLogger("silent"),
    });
    const listModels = () =>
      app.fetch(new Request("http://localhost/v1/models", { headers: { authorization: `Bearer ${key}` } }));
    // Warm: the first request loads what every later one reuses, and the read thread is started.
    expect((await listModels()).status).toBe(200);
    await sql`select 1`.execute(services.historyReads);

    const finished: string[] = [];
    const slow = slowRead.execute(services.historyReads).then((result) => {
      finished.push("slow read");
      return result;
    });
    // The slow read is under way before the request arrives.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = await listModels();
    finished.push("GET /v1/models");
    expect(answer.status).toBe(200);
    expect(Number((await slow).rows[0]!.n)).toBe(3_000_000);
    expect(finished).toEqual(["GET /v1/models", "slow read"]);
  });
});
