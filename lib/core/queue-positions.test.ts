// Queue positions tell the order workers really take runs in: claimed one by one, runs come out
// in the order of the positions they were given, a batch's runs (which share created_at) too.
import { describe, expect, it } from "vitest";
import { claimNextRun } from "../engine/claim";
import { useTestStore, testCtx, testDialect } from "../store/test-store";
import { createBatch } from "./batches";
import { createGeneration } from "./generations";
import { queuePositions } from "./queue-positions";
import { createWorkspace } from "./workspaces";

describe(`queue positions (${testDialect()})`, () => {
  const store = useTestStore();

  it("are the order claims take: singles and a batch's runs in request order, counting down as runs start", async () => {
    const ctx = testCtx(store.t, (await createWorkspace({ db: store.db }, { name: "queue order", creditMicros: 5_000_000 })).id);
    const request = (i: number) => ({ model: "atelier/gradient", input: { prompt: `run ${i}` } });
    const first = (await createGeneration(ctx, request(0))).generation;
    const { batch } = await createBatch(ctx, { requests: [1, 2, 3, 4, 5].map(request) });
    const last = (await createGeneration(ctx, request(6))).generation;
    const ids = [first.id, ...batch.data.map((g) => g.id), last.id];
    expect([first, ...batch.data, last].map((g) => g.queue_position)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const claimed: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const rows = await store.db.selectFrom("generations").select(["id", "status"]).where("id", "in", ids).execute();
      const positions = await queuePositions(store.db, rows);
      // Each run still queued is told how many are ahead of it, 1 for the next.
      expect(ids.filter((id) => !claimed.includes(id)).map((id) => positions.get(id))).toEqual(ids.slice(i).map((_, k) => k + 1));
      const run = await claimNextRun(store.db, store.t.store.dialect, { owner: "queue-test", leaseMs: 60_000 });
      claimed.push(run!.id);
    }
    expect(claimed).toEqual(ids);
  });
});
