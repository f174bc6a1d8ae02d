// Following runs until they end: the status stream of GET /v1/generations/{id} (Accept:
// text/event-stream) and the studio's live views. Each event carries the whole Generation; one
// is sent at once for every run and again on every change (status, progress, preview, queue
// position, outputs), and the events end once every followed run is final.
import type { GenerationsTable } from "../../store/database";
import { requireScope, type Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { presentGeneration, queuePositionOf, type Generation } from "../runs/generation-view";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import { queuedAhead } from "../runs/queue-positions";
import { LIMITS } from "../../primitives/limits";
import { isFinal } from "../runs/run-states";
import { runWatchFor, type RunNotice } from "./run-watch";

export interface RunEvent {
  /** Increasing within a stream, continuing after the Last-Event-ID it resumed from. */
  seq: number;
  generation: Generation;
  /** Why cancel can no longer stop it ("preview", "provider"), or null while it can (or it is final). */
  uncancelableReason: string | null;
}

async function readRows(ctx: Ctx, ids: readonly string[]): Promise<GenerationsTable[]> {
  if (ids.length === 0) return [];
  return ctx.db
    .selectFrom("generations")
    .selectAll()
    .where("workspace_id", "=", ctx.workspaceId)
    .where("id", "in", ids)
    .execute();
}

/** The runs and, for the queued ones, their places in the queue: one query. */
async function readRunsWithPlaces(
  ctx: Ctx,
  ids: readonly string[],
): Promise<{ rows: GenerationsTable[]; positions: Map<string, number> }> {
  const positions = new Map<string, number>();
  if (ids.length === 0) return { rows: [], positions };
  const found = await ctx.db
    .selectFrom("generations as g")
    .selectAll("g")
    .select((eb) => queuedAhead(eb))
    .where("g.workspace_id", "=", ctx.workspaceId)
    .where("g.id", "in", ids)
    .execute();
  const rows = found.map(({ ahead, ...row }) => {
    if (row.status === "queued") positions.set(row.id, Number(ahead ?? 0) + 1);
    return row;
  });
  return { rows, positions };
}

/** What decides whether a reader would see something new (signed links change on every read, so not them). */
function fingerprint(row: GenerationsTable, progress: number | null, position: number | null): string {
  return JSON.stringify([
    row.status,
    row.provider,
    row.preview_json,
    row.output_json.length,
    row.error_message,
    row.uncancelable_reason,
    row.charged_micros,
    progress,
    position,
  ]);
}

/**
 * Checks scope and that every run exists in the workspace (404 before anything is streamed),
 * then gives the events. They stop when every run is final, when `stop` aborts (the reader went
 * away), or when the process shuts down.
 */
export async function followRuns(
  ctx: Ctx,
  input: { ids: readonly string[]; afterSeq?: number },
): Promise<(stop: AbortSignal) => AsyncIterable<RunEvent>> {
  requireScope(ctx, "generations:read");
  const ids = [...new Set(input.ids)];
  if (ids.length > LIMITS.followedRuns) {
    throw new ApiError(
      "invalid_parameter",
      `Follow at most ${LIMITS.followedRuns} runs at a time; got ${ids.length}.`,
      { param: "ids" },
    );
  }
  const candidates = ids.filter((id) => isPossibleId(id) && hasIdPrefix("generation", id));
  const first =
    candidates.length === 0
      ? []
      : await ctx.db
          .selectFrom("generations")
          .select(["id", "status"])
          .where("workspace_id", "=", ctx.workspaceId)
          .where("id", "in", candidates)
          .execute();
  const missing = ids.find((id) => !first.some((row) => row.id === id));
  if (missing !== undefined) throw new ApiError("resource_not_found", `No generation ${missing} in this workspace.`);
  return (stop) => events(ctx, first, input.afterSeq ?? 0, stop);
}

async function* events(
  ctx: Ctx,
  first: Array<{ id: string; status: string }>,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<RunEvent> {
  const watch = runWatchFor(ctx.db, ctx.services.signals);
  let seq = afterSeq;
  const rows = new Map<string, GenerationsTable>();
  const positions = new Map<string, number>();
  const shown = new Map<string, string>();
  const stale = new Set<string>();
  /** Runs that ended in this process, with their rows as committed: given, not read. */
  const ended = new Map<string, GenerationsTable>();
  const progressed = new Set<string>();
  let wake: (() => void) | null = null;
  const poke = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  let closed = false;
  const close = () => {
    closed = true;
    poke();
  };
  signal.addEventListener("abort", close, { once: true });
  const stopOnShutdown = watch.onClose(close);

  const follows = new Map<string, ReturnType<typeof watch.follow>>();
  const hear = (id: string) => (notice: RunNotice) => {
    if (notice.kind === "state") stale.add(id);
    else if (notice.kind === "ended") {
      if (notice.row.workspace_id === ctx.workspaceId) ended.set(id, notice.row);
      else stale.add(id);
    } else if (notice.kind === "reported") progressed.add(id);
    // Never going up: a run put back in the queue keeps the place it was last told.
    else positions.set(id, Math.min(notice.position, positions.get(id) ?? notice.position));
    poke();
  };
  for (const row of first)
    if (!isFinal(row.status))
      follows.set(row.id, watch.follow(row.id, hear(row.id), { queued: row.status === "queued" }));

  const eventFor = async (row: GenerationsTable): Promise<RunEvent | null> => {
    const position = queuePositionOf(ctx.services, row, positions.get(row.id) ?? null);
    const progress = row.status === "running" ? ctx.services.signals.progressOf(row.id) : null;
    const print = fingerprint(row, progress, position);
    if (shown.get(row.id) === print) return null;
    shown.set(row.id, print);
    const generation = await presentGeneration(ctx.services, row, position);
    return { seq: ++seq, generation, uncancelableReason: isFinal(row.status) ? null : row.uncancelable_reason };
  };

  try {
    // Subscribed before this read, so a change in between is not missed.
    const now = await readRunsWithPlaces(
      ctx,
      first.map((run) => run.id),
    );
    for (const row of now.rows) rows.set(row.id, row);
    for (const [id, position] of now.positions) positions.set(id, Math.min(position, positions.get(id) ?? position));
    for (const row of rows.values()) {
      const event = await eventFor(row);
      if (event) yield event;
    }
    while (!closed && [...rows.values()].some((row) => !isFinal(row.status))) {
      if (stale.size === 0 && ended.size === 0 && progressed.size === 0)
        await new Promise<void>((resolve) => (wake = resolve));
      if (closed) break;
      const given = [...ended.values()];
      ended.clear();
      const toRead = [...stale].filter((id) => !given.some((row) => row.id === id));
      stale.clear();
      const changed = [...toRead, ...given.map((row) => row.id)];
      const touched = new Set([...progressed, ...follows.keys()].filter((id) => !changed.includes(id)));
      progressed.clear();
      for (const row of await readRows(ctx, toRead)) rows.set(row.id, row);
      // After the read: a run's final row is the last word on it.
      for (const row of given) rows.set(row.id, row);
      for (const id of [...changed, ...touched]) {
        const row = rows.get(id);
        if (!row) continue;
        const follow = follows.get(id);
        follow?.setQueued(row.status === "queued");
        const event = await eventFor(row);
        if (event) yield event;
        if (isFinal(row.status) && follow) {
          follow.stop();
          follows.delete(id);
        }
      }
    }
  } finally {
    signal.removeEventListener("abort", close);
    stopOnShutdown();
    for (const follow of follows.values()) follow.stop();
  }
}
