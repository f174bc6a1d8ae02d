// Queue positions tell the order workers really take runs in (the fair order, migration 030):
// claimed one by one, runs come out in the order of their positions, a batch's runs (which share
// created_at) too; and the fair order itself: a quiet workspace's few runs start near the head
// of a busy one's many, interactive runs before bulk ones, a heavier workspace more often, a
// capped one no more at once than its cap.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { claimNextRun, releaseRun } from "../../engine/claim";
import { FAIR_BUCKET, FAIR_STEP, LANE_SPAN, recountQueue } from "../../store/migrations/030-fair-queue";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createBatch } from "./batches";
import { cancelGeneration, createGeneration } from "./generations";
import { queuePositions } from "./queue-positions";
import { createWorkspace } from "../workspaces/workspaces";

describe(`queue positions (${testDialect()})`, () => {
  const store = useTestStore();
  const bucket = sql`lane * ${sql.lit(LANE_SPAN)} + fair_tag / ${sql.lit(FAIR_BUCKET)}`;
  /** Runs of one weight-1 workspace that share a stretch of the fair order. */
  const STRETCH_RUNS = FAIR_BUCKET / FAIR_STEP;
  const plainPositions = async () => {
    const queued = await store.db
      .selectFrom("generations")
      .select(["id", "queue_order"])
      .where("status", "=", "queued")
      .orderBy("lane")
      .orderBy("fair_tag")
      .orderBy("queue_order")
      .execute();
    return new Map(queued.map((r, i) => [r.id, i + 1]));
  };
  const expectSame = async (when: string) => {
    const all = await store.db.selectFrom("generations").select(["id", "status"]).execute();
    const plain = await plainPositions();
    const counted = await queuePositions(store.db, all);
    expect(counted, when).toEqual(plain);
    // One run alone (a create's answer, a read) goes through a query compiled once: the same positions.
    for (const [id, position] of [...plain].filter((_, i) => i % 97 === 0)) {
      expect((await queuePositions(store.db, [{ id, status: "queued" }])).get(id), `${when}: ${id} alone`).toBe(
        position,
      );
    }
    // Every stretch holding queued runs has its row, and no other stretch has one.
    const rows = await store.db.selectFrom("queue_counts").select(["bucket", "queued"]).orderBy("bucket").execute();
    const stretches = await store.db
      .selectFrom("generations")
      .select([sql<number>`${bucket}`.as("bucket"), sql<number>`count(*)`.as("queued")])
      .where("status", "=", "queued")
      .groupBy(bucket)
      .orderBy("bucket")
      .execute();
    expect(
      rows.map((r) => [Number(r.bucket), Number(r.queued)]),
      when,
    ).toEqual(stretches.map((r) => [Number(r.bucket), Number(r.queued)]));
  };

  it("are the order claims take: singles and a batch's runs in request order, counting down as runs start", async () => {
    const ctx = testCtx(
      store.t,
      (await createWorkspace({ db: store.db }, { name: "queue order", creditMicros: 5_000_000 })).id,
    );
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
      expect(ids.filter((id) => !claimed.includes(id)).map((id) => positions.get(id))).toEqual(
        ids.slice(i).map((_, k) => k + 1),
      );
      const run = await claimNextRun(store.db, store.t.store.dialect, { owner: "queue-test", leaseMs: 60_000 });
      claimed.push(run!.id);
    }
    expect(claimed).toEqual(ids);
  });

  it("count the same as a plain count of the queued runs ahead, across stretches of the queue, after every kind of change", async () => {
    const ctx = testCtx(
      store.t,
      (await createWorkspace({ db: store.db }, { name: "queue counts", creditMicros: 50_000_000 })).id,
    );
    const request = (i: number) => ({ model: "atelier/gradient", input: { prompt: `run ${i}` } });
    // More than two stretches of runs: batches of 50 and single creates.
    const ids: string[] = [];
    for (let i = 0; ids.length < STRETCH_RUNS * 2 + 40; i++) {
      if (i % 3 === 2) ids.push((await createGeneration(ctx, request(i))).generation.id);
      else
        ids.push(
          ...(
            await createBatch(ctx, { requests: Array.from({ length: 50 }, (_, k) => request(i * 100 + k)) })
          ).batch.data.map((g) => g.id),
        );
    }
    await expectSame("after the creates");
    // A create whose write fails (no credit left in its workspace) leaves no count behind.
    const poor = testCtx(store.t, (await createWorkspace({ db: store.db }, { name: "no credit", creditMicros: 0 })).id);
    await expect(createGeneration(poor, request(0))).rejects.toMatchObject({ code: "insufficient_credit" });
    // Claims take the oldest; cancels take runs from anywhere in the queue, a release puts one back.
    const owner = { owner: "queue-counts-test", leaseMs: 60_000 };
    const claimed = [];
    for (let i = 0; i < 30; i++) claimed.push((await claimNextRun(store.db, store.t.store.dialect, owner))!);
    for (const id of [ids[40]!, ids[300]!, ids[301]!, ids[ids.length - 1]!]) await cancelGeneration(ctx, { id });
    await releaseRun(store.db, { id: claimed[5]!.id, owner: owner.owner });
    await expectSame("after claims, cancels and a release");
    // Drain the queue: no stretch row stays behind.
    while (await claimNextRun(store.db, store.t.store.dialect, owner)) {
      /* claim the next */
    }
    await expectSame("after the queue drained");
    expect(await store.db.selectFrom("queue_counts").selectAll().execute()).toEqual([]);
  });

  it("migration 030 counts the runs already queued by the fair order's stretches", async () => {
    const ctx = testCtx(
      store.t,
      (await createWorkspace({ db: store.db }, { name: "queue backfill", creditMicros: 50_000_000 })).id,
    );
    for (let i = 0; i < 6; i++)
      await createBatch(ctx, {
        requests: Array.from({ length: 50 }, (_, k) => ({
          model: "atelier/gradient",
          input: { prompt: `old ${i} ${k}` },
        })),
      });
    const before = await queuePositions(
      store.db,
      await store.db.selectFrom("generations").select(["id", "status"]).execute(),
    );
    // Counts lost, then made again from the queued runs.
    await sql`delete from queue_counts`.execute(store.db);
    await recountQueue(store.db as never);
    const after = await queuePositions(
      store.db,
      await store.db.selectFrom("generations").select(["id", "status"]).execute(),
    );
    expect(after.size).toBeGreaterThan(STRETCH_RUNS);
    expect(after).toEqual(before);
  });

  it("creates, batches and cancels of several workspaces at once neither deadlock nor miscount", async () => {
    // A create and a batch take a stretch's count and then the workspace's balance; a cancel the
    // same two in the same order (PostgreSQL holds both locks to the commit).
    const workspaces = await Promise.all(
      [1, 2, 3].map(async (n) =>
        testCtx(
          store.t,
          (await createWorkspace({ db: store.db }, { name: `concurrent ${n}`, creditMicros: 50_000_000 })).id,
        ),
      ),
    );
    const request = (i: number) => ({ model: "atelier/gradient", input: { prompt: `at once ${i}` } });
    const toCancel = new Map<number, string[]>();
    for (const [w, ctx] of workspaces.entries()) {
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push((await createGeneration(ctx, request(w * 1000 + 800 + i))).generation.id);
      toCancel.set(w, ids);
    }
    await Promise.all(
      workspaces.flatMap((ctx, w) => [
        ...[0, 1, 2].map((b) =>
          createBatch(ctx, { requests: Array.from({ length: 50 }, (_, k) => request(w * 1000 + b * 100 + k)) }),
        ),
        ...Array.from({ length: 15 }, (_, i) => createGeneration(ctx, request(w * 1000 + 900 + i))),
        ...toCancel.get(w)!.map((id) => cancelGeneration(ctx, { id })),
      ]),
    );
    await expectSame("after concurrent creates and cancels");
    for (const ctx of workspaces) {
      const balance = await store.db
        .selectFrom("credit_balances")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .executeTakeFirstOrThrow();
      const held = await store.db
        .selectFrom("generations")
        .select(sql<number>`coalesce(sum(price_micros), 0)`.as("n"))
        .where("workspace_id", "=", ctx.workspaceId)
        .where("status", "=", "queued")
        .executeTakeFirstOrThrow();
      expect(Number(balance.held_micros)).toBe(Number(held.n));
      expect(Number(balance.available_micros) + Number(balance.held_micros)).toBe(50_000_000);
    }
  });
  it("answer concurrent creates of several workspaces, committed together, each with its own run's position", async () => {
    const workspaces = await Promise.all(
      [0, 1, 2].map((i) => createWorkspace({ db: store.db }, { name: `together ${i}`, creditMicros: 5_000_000 })),
    );
    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        createGeneration(testCtx(store.t, workspaces[i % 3]!.id), {
          model: "atelier/gradient",
          input: { prompt: `together ${i}` },
        }),
      ),
    );
    // Nothing left the queue, so a position answered then is at most the run's position now:
    // another workspace's run queued later may come before it in the fair order, never after.
    const plain = await plainPositions();
    for (const { generation } of answers)
      expect(generation.queue_position, generation.id).toBeLessThanOrEqual(plain.get(generation.id)!);
    // Read now, each run has its own place, as a plain count says.
    const now = await queuePositions(
      store.db,
      answers.map((a) => ({ id: a.generation.id, status: "queued" })),
    );
    for (const [id, position] of now) expect(position, id).toBe(plain.get(id));
    expect(new Set(now.values()).size).toBe(45);
  });
});
