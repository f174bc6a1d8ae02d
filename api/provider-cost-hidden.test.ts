// A run's provider cost is the operators' figure (docs/providers.md, "What a run costs upstream"):
// a workspace's key reads the run, the list, the usage and the run's event through the API, and
// none of them tells it, in any field or any form.
import { describe, expect, it } from "vitest";
import { createApiApp } from "./app";
import { createRateLimits } from "./rate-limit";
import { installCatalog } from "../lib/boot/boot";
import { loadConfig } from "../lib/boot/config";
import { createApiKey } from "../lib/core/keys/api-keys";
import { createGeneration } from "../lib/core/runs/generations";
import { createWorkspace } from "../lib/core/workspaces/workspaces";
import { finishRun } from "../lib/engine/finish";
import { createLogger } from "../lib/primitives/logger";
import { testCtx, testDialect, useTestStore } from "../lib/store/testing/test-store";

// Distinctive: no other figure of the run can be written like it.
const COST_MICROS = 123_457;

describe(`a run's provider cost through the API (${testDialect()})`, () => {
  const s = useTestStore();

  it("is in no answer a workspace key gets: the run, the list, the usage, the event", async () => {
    const { store } = s.t;
    const config = loadConfig({ DATA_DIR: s.t.dataDir });
    installCatalog(config);
    const workspace = await createWorkspace({ db: store.db }, { name: "cost hidden", creditMicros: 1_000_000 });
    const { key } = await createApiKey({ db: store.db }, { workspaceId: workspace.id, name: "cost", prefix: "atl" });
    const ctx = testCtx(s.t, workspace.id);
    const app = createApiApp({
      store,
      config,
      services: ctx.services,
      rateLimits: createRateLimits(config),
      logger: createLogger("silent"),
    });
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "margin" } });
    // Ended as a worker ends it, with a known provider cost.
    const owner = "cost-hidden-test";
    await store.db
      .updateTable("generations")
      .set({ status: "running", provider: "atelier", started_at: new Date().toISOString(), lease_owner: owner })
      .where("id", "=", generation.id)
      .execute();
    const ended = await finishRun(store.db, ctx.services, {
      id: generation.id,
      owner,
      outcome: { status: "succeeded", outputs: [], providerCostMicros: COST_MICROS },
    });
    expect(Number(ended?.provider_cost_micros)).toBe(COST_MICROS);

    const get = async (path: string) => {
      const answer = await app.fetch(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } }),
      );
      expect(answer.status, path).toBe(200);
      return answer.text();
    };
    const today = ended!.created_at.slice(0, 10);
    const answers = [
      await get(`/v1/generations/${generation.id}`),
      await get("/v1/generations"),
      await get(`/v1/usage?from=${today}&to=${today}&group_by=model`),
      await get(`/v1/usage?from=${today}&to=${today}&group_by=day`),
    ];
    expect(JSON.parse(answers[0]!)).toMatchObject({ id: generation.id, status: "succeeded" });
    const events = await store.db.selectFrom("events").select("payload_json").where("generation_id", "=", generation.id).execute(); // prettier-ignore
    expect(events).toHaveLength(1);
    for (const text of [...answers, events[0]!.payload_json]) {
      expect(text).not.toMatch(/provider_cost|123457|0\.123457|margin_/);
    }
  });
});
