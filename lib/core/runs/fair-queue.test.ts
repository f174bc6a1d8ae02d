// The fair queue (issue 38; migration 030), as the engine's claims take runs: a quiet
// workspace's few runs start near the head of a busy one's many, interactive runs before bulk
// ones, a heavier workspace more often, a capped one no more at once than its cap. Queue
// positions stay the order claims take (queue-positions.test.ts checks them against a count).
import { beforeEach, describe, expect, it } from "vitest";
import { claimNextRun } from "../../engine/claim";
import { CLI_AUDIT } from "../audit/audit-writer";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createWorkspace } from "../workspaces/workspaces";
import { setQueueSettings } from "../workspaces/workspace-queue";
import { createBatch } from "./batches";
import { createGeneration } from "./generations";
import { queuePositions } from "./queue-positions";

describe(`the fair queue (${testDialect()})`, () => {
  const store = useTestStore();
  const owner = { owner: "fair-queue-test", leaseMs: 600_000 };
  const claim = () => claimNextRun(store.db, store.t.store.dialect, owner);
  const request = (i: number) => ({ model: "atelier/gradient", input: { prompt: `run ${i}` } });
  const workspace = async (name: string) =>
    testCtx(store.t, (await createWorkspace({ db: store.db }, { name, creditMicros: 100_000_000 })).id);
  const queue = async (ctx: ReturnType<typeof testCtx>, n: number) => {
    const ids: string[] = [];
    while (ids.length < n) {
      const size = Math.min(50, n - ids.length);
      const { batch } = await createBatch(ctx, { requests: Array.from({ length: size }, (_, i) => request(i)) });
      ids.push(...batch.data.map((g) => g.id));
    }
    return ids;
  };
  /** The order the next `n` claims take runs in, by workspace. */
  const claims = async (n: number) => {
    const taken: Array<{ id: string; workspace_id: string }> = [];
    for (let i = 0; i < n; i++) {
      const run = await claim();
      if (!run) break;
      taken.push(run);
    }
    return taken;
  };

  beforeEach(async () => {
    // Each test starts from an empty queue: what earlier tests left is taken (and stays running).
    while (await claim()) {
      /* drain */
    }
  });

  it("starts a quiet workspace's runs near the head of a busy one's, and says so in their positions", async () => {
    const busy = await workspace("busy");
    const quiet = await workspace("quiet");
    await queue(busy, 200);
    const few = await queue(quiet, 5);
    // Their positions, answered before any starts, are the order the claims then take.
    const positions = await queuePositions(
      store.db,
      few.map((id) => ({ id, status: "queued" })),
    );
    expect([...positions.values()].every((p) => p <= 11)).toBe(true);
    const taken = await claims(11);
    const at = few.map((id) => taken.findIndex((r) => r.id === id) + 1);
    expect(at).toEqual(few.map((id) => positions.get(id)));
    expect(at.every((p) => p >= 1 && p <= 11)).toBe(true);
    // …and the busy workspace's runs are all still there, in their own order.
    expect(taken.filter((r) => r.workspace_id === busy.workspaceId).length).toBe(6);
  });

  it("starts a run someone waits on before bulk runs queued earlier", async () => {
    const bulk = await workspace("bulk");
    await queue(bulk, 60);
    const studio = { ...(await workspace("studio")), source: "studio" as const };
    const { generation } = await createGeneration(studio, request(0));
    expect(generation.queue_position).toBe(1);
    const waiting = await workspace("waits");
    const { generation: waited } = await createGeneration(waiting, request(1), { waitSeconds: 0.05 });
    const [first, second] = await claims(2);
    expect(first!.id).toBe(generation.id);
    expect(second!.id).toBe(waited.id);
  });

  it("gives a workspace of weight 2 about twice the starts of one of weight 1", async () => {
    const heavy = await workspace("heavy");
    const light = await workspace("light");
    await setQueueSettings({ db: store.db }, { workspaceId: heavy.workspaceId, weight: 2, audit: CLI_AUDIT });
    await queue(light, 60);
    await queue(heavy, 60);
    const taken = await claims(45);
    const heavyStarts = taken.filter((r) => r.workspace_id === heavy.workspaceId).length;
    expect(heavyStarts).toBeGreaterThanOrEqual(28);
    expect(heavyStarts).toBeLessThanOrEqual(32);
  });

  it("runs no more of a capped workspace's runs at once than its cap; the others' go ahead", async () => {
    const capped = await workspace("capped");
    const other = await workspace("other");
    await setQueueSettings({ db: store.db }, { workspaceId: capped.workspaceId, maxRunning: 2, audit: CLI_AUDIT });
    const cappedIds = await queue(capped, 10);
    await queue(other, 10);
    const taken = await claims(12);
    expect(taken.filter((r) => r.workspace_id === capped.workspaceId).length).toBe(2);
    expect(taken.filter((r) => r.workspace_id === other.workspaceId).length).toBe(10);
    expect(await claim()).toBeNull();
    // One of its runs ends: the next of its runs may start.
    await store.db
      .updateTable("generations")
      .set({ status: "succeeded" })
      .where("id", "=", taken.find((r) => r.workspace_id === capped.workspaceId)!.id)
      .execute();
    const next = await claim();
    expect(cappedIds).toContain(next!.id);
    await setQueueSettings({ db: store.db }, { workspaceId: capped.workspaceId, maxRunning: null, audit: CLI_AUDIT });
    expect((await claims(20)).length).toBe(7);
  });
});
