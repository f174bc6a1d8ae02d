// Following runs (the status stream's core) against a real store and the real engine: the first
// event at once, every change after it in order, the end after the final state, queue positions
// counting down with one shared query, resume numbering, and 404 before anything is streamed.
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { claimNextRun } from "../../engine/claim";
import { startEngine, type Engine } from "../../engine/engine";
import type { GenerationsTable } from "../../store/database";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { createGeneration, cancelGeneration } from "../runs/generations";
import { LIMITS } from "../../primitives/limits";
import { followRuns, type RunEvent } from "./run-follow";
import { createWorkspace } from "../workspaces/workspaces";

const silent = pino({ level: "silent" });

async function collect(
  events: AsyncIterable<RunEvent>,
  onEvent?: (event: RunEvent) => void | Promise<void>,
): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    await onEvent?.(event);
  }
  return seen;
}

describe(`following runs (${testDialect()})`, () => {
  const store = useTestStore();
  let engine: Engine | null = null;
  afterEach(async () => {
    await engine?.stop();
    engine = null;
  });

  async function workspaceCtx(): Promise<Ctx> {
    return testCtx(
      store.t,
      (await createWorkspace({ db: store.db }, { name: "follow test", creditMicros: 5_000_000 })).id,
    );
  }
  function start(ctx: Ctx, concurrency = 1): void {
    engine = startEngine({
      db: store.db,
      dialect: store.t.store.dialect,
      services: ctx.services,
      logger: silent,
      concurrency,
      idlePollMs: 25,
    });
  }

  it("tells a preset's run from queued to its preview to succeeded, then ends", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, {
      model: "atelier/promo-video@1",
      input: { title: "Launch", prompt: "ocean dusk", duration: 2 },
    });
    const follow = await followRuns(ctx, { ids: [generation.id] });
    const events = await collect(follow(new AbortController().signal), () => {
      if (!engine) start(ctx);
    });
    const statuses = events.map((e) => e.generation.status);
    expect(statuses[0]).toBe("queued");
    expect(events[0]!.generation.queue_position).toBe(1);
    expect(statuses.at(-1)).toBe("succeeded");
    expect(statuses.filter((s) => s === "succeeded")).toHaveLength(1);
    const previewAt = events.findIndex((e) => e.generation.preview !== null);
    expect(previewAt).toBeGreaterThan(0);
    expect(previewAt).toBeLessThan(events.length - 1);
    expect(events[previewAt]!.uncancelableReason).toBe("preview");
    expect(events.at(-1)!.generation.output).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("ends with the canceled state, and numbers events after the resume point", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "sea" } });
    const follow = await followRuns(ctx, { ids: [generation.id], afterSeq: 41 });
    const events = await collect(follow(new AbortController().signal), async (event) => {
      if (event.generation.status === "queued") await cancelGeneration(ctx, { id: generation.id });
    });
    expect(events.map((e) => [e.seq, e.generation.status])).toEqual([
      [42, "queued"],
      [43, "canceled"],
    ]);
    expect(events[1]!.generation.queue_position).toBeNull();
  });

  it("counts the queue position down as the runs ahead start", async () => {
    const ctx = await workspaceCtx();
    const ids: string[] = [];
    // Music takes a few hundred milliseconds a run: long enough for each start to be told.
    for (let i = 0; i < 4; i++)
      ids.push(
        (await createGeneration(ctx, { model: "atelier/music", input: { prompt: `calm piano ${i}`, duration: 8 } }))
          .generation.id,
      );
    const follow = await followRuns(ctx, { ids: [ids[3]!] });
    const events = await collect(follow(new AbortController().signal), () => {
      if (!engine) start(ctx, 1);
    });
    const positions = events.map((e) => e.generation.queue_position).filter((p): p is number => p !== null);
    expect(positions[0]).toBe(4);
    expect(positions.length).toBeGreaterThan(1);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeLessThan(positions[i - 1]!);
    expect(events.at(-1)!.generation.status).toBe("succeeded");
  });

  it("tells a running run's place in its provider's queue (1 = next there) as it moves, and its clear", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "at fal" } });
    // Claimed by hand, no engine: the places below are the provider's, told as a worker would.
    expect((await claimNextRun(store.db, store.t.store.dialect, { owner: "w1", leaseMs: 60_000 }))?.id).toBe(
      generation.id,
    );
    const { signals } = ctx.services;
    const stop = new AbortController();
    const next: Array<() => void> = [
      () => signals.runChanged(generation.id, { queuePosition: 2 }),
      () => signals.runChanged(generation.id, { queuePosition: 0 }),
      () => signals.runChanged(generation.id, { queuePosition: null }),
      () => stop.abort(),
    ];
    const follow = await followRuns(ctx, { ids: [generation.id] });
    const events = await collect(follow(stop.signal), () => next.shift()?.());
    expect(events.map((e) => [e.generation.status, e.generation.queue_position])).toEqual([
      ["running", null],
      ["running", 3],
      ["running", 1],
      ["running", null],
    ]);
  });

  it("stops when the reader goes away, and a finished run gives one event", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "dawn" } });
    const stop = new AbortController();
    const follow = await followRuns(ctx, { ids: [generation.id] });
    const events = await collect(follow(stop.signal), () => stop.abort());
    expect(events).toHaveLength(1);
    expect(ctx.services.signals.waitedIds()).toEqual([]);
    await cancelGeneration(ctx, { id: generation.id });
    const again = await collect((await followRuns(ctx, { ids: [generation.id] }))(new AbortController().signal));
    expect(again.map((e) => e.generation.status)).toEqual(["canceled"]);
  });

  it("tells a run's end from the row its finish in this process handed over, without reading it again; not a row of another workspace", async () => {
    const ctx = await workspaceCtx();
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "tide" } });
    const row = await store.db
      .selectFrom("generations")
      .selectAll()
      .where("id", "=", generation.id)
      .executeTakeFirstOrThrow();
    const ended: GenerationsTable = {
      ...row,
      status: "failed",
      error_message: "handed over",
      completed_at: new Date().toISOString(),
    };
    // The store still has the run queued: only the handed row can say it failed.
    const events = await collect(
      (await followRuns(ctx, { ids: [generation.id] }))(new AbortController().signal),
      (event) => {
        if (event.generation.status === "queued") ctx.services.signals.runFinished(generation.id, ended);
      },
    );
    expect(events.map((e) => e.generation.status)).toEqual(["queued", "failed"]);
    expect(events[1]!.generation.error).toMatchObject({ message: "handed over" });

    // A row that names another workspace is not taken: the follower reads the run (still
    // queued: nothing new to tell) and tells its real end.
    let handed = false;
    const read = await collect(
      (await followRuns(ctx, { ids: [generation.id] }))(new AbortController().signal),
      async () => {
        if (handed) return;
        handed = true;
        ctx.services.signals.runFinished(generation.id, { ...ended, workspace_id: "ws_SomeoneElseSomeoneElse00" });
        await new Promise((resolve) => setTimeout(resolve, 50));
        await cancelGeneration(ctx, { id: generation.id });
      },
    );
    expect(read.map((e) => e.generation.status)).toEqual(["queued", "canceled"]);
  });

  it("answers 404 for another workspace's run and for an ID that is not one", async () => {
    const ctx = await workspaceCtx();
    const other = await workspaceCtx();
    const { generation } = await createGeneration(other, { model: "atelier/gradient", input: { prompt: "x" } });
    await expect(followRuns(ctx, { ids: [generation.id] })).rejects.toMatchObject({ code: "resource_not_found" });
    await expect(followRuns(ctx, { ids: ["gen_\u0000"] })).rejects.toMatchObject({ code: "resource_not_found" });
    // Too many at once is refused before any read, naming the limit.
    const many = Array.from({ length: LIMITS.followedRuns + 1 }, (_, i) => `gen_${i}`);
    await expect(followRuns(ctx, { ids: many })).rejects.toMatchObject({ code: "invalid_parameter", param: "ids" });
    await cancelGeneration(other, { id: generation.id });
  });
});
