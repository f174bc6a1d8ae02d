"use client";
// Live runs: every view of a page (the model page's result, the run page, the history list) reads
// a run from its react-query entry ["generation", id]; one EventSource per page (per QueryClient)
// on GET /api/runs/events follows the unfinished ones the page shows and writes each event into
// those entries, and closes once they are all final. Nothing sleeps between reads: an event comes
// as soon as a run changes. When the stream fails for good (readyState CLOSED: an error answer),
// the runs are read through the server action instead, then the stream is tried again, with a
// backoff that doubles up to FALLBACK_MAX_MS.
import { useEffect, useMemo } from "react";
import { useQueries, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { Generation } from "@/lib/core/runs/generation-view";
import { LIMITS } from "@/lib/primitives/limits";
import { isFinal } from "@/lib/core/runs/run-states";
import type { StudioRunEvent } from "@/app/_studio/run-event";
import { getRunAction } from "@/app/_studio/actions/runs";

/** A run as a view shows it: the Generation, and why cancel can no longer stop it (null while it can). */
export interface LiveRun {
  generation: Generation;
  uncancelable_reason: string | null;
}

const FALLBACK_FIRST_MS = 1_000;
const FALLBACK_MAX_MS = 15_000;

export const runKey = (id: string) => ["generation", id] as const;

const stage = (status: string) => (status === "queued" ? 0 : status === "running" ? 1 : 2);

/** Whether `next` may replace `now`: a run never goes back (a late answer never undoes a newer one). */
function mayReplace(now: Generation, next: Generation): boolean {
  return stage(next.status) >= stage(now.status);
}

/**
 * What a Generation alone tells of cancel: a preset's preview is its cancel point, so a run with
 * one can no longer be canceled. (A provider's billing point shows only in the stream's events.)
 */
function reasonSeen(generation: Generation): string | null {
  return !isFinal(generation.status) && generation.preview ? "preview" : null;
}

/**
 * Puts a run the studio just got (started, canceled, read, streamed) into its entry, so every
 * view shows it at once. `uncancelableReason` undefined keeps what the stream last said.
 */
export function storeRun(client: QueryClient, generation: Generation, uncancelableReason?: string | null): void {
  client.setQueryData<LiveRun>(runKey(generation.id), (old) => {
    if (old && !mayReplace(old.generation, generation)) return old;
    const reason = isFinal(generation.status)
      ? null
      : uncancelableReason === undefined
        ? (old?.uncancelable_reason ?? reasonSeen(generation))
        : uncancelableReason;
    return { generation, uncancelable_reason: reason };
  });
}

async function readRun(client: QueryClient, id: string): Promise<LiveRun> {
  const answer = await getRunAction(id);
  if (!answer.ok) throw new Error(answer.error.message);
  storeRun(client, answer.value);
  return client.getQueryData<LiveRun>(runKey(id))!;
}

/** The one stream of a page: the runs its views follow, counted so several views share a run. */
class LiveRunsHub {
  private readonly watched = new Map<string, number>();
  private source: EventSource | null = null;
  private streamIds = new Set<string>();
  private syncQueued = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private backoffMs = FALLBACK_FIRST_MS;

  constructor(private readonly client: QueryClient) {}

  /** Follows `id` until the returned function is called (or it is final). */
  watch(id: string): () => void {
    this.watched.set(id, (this.watched.get(id) ?? 0) + 1);
    this.queueSync();
    return () => {
      const left = (this.watched.get(id) ?? 1) - 1;
      if (left > 0) this.watched.set(id, left);
      else this.watched.delete(id);
      this.queueSync();
    };
  }

  private unfinished(): string[] {
    return [...this.watched.keys()].filter((id) => {
      const run = this.client.getQueryData<LiveRun>(runKey(id));
      return !run || !isFinal(run.generation.status);
    });
  }

  /** Once the views of one render have all said what they follow: one stream, not one per row. */
  private queueSync(): void {
    if (this.syncQueued) return;
    this.syncQueued = true;
    setTimeout(() => {
      this.syncQueued = false;
      this.sync();
    }, 0);
  }

  private sync(): void {
    const wanted = this.unfinished().slice(0, LIMITS.followedRuns);
    if (wanted.length === 0) {
      this.stop();
      return;
    }
    if (this.retry) return; // the fallback tries the stream again when its wait is over
    if (this.source && wanted.every((id) => this.streamIds.has(id))) return;
    this.open(wanted);
  }

  private open(ids: string[]): void {
    this.closeSource();
    this.streamIds = new Set(ids);
    const source = new EventSource(`/api/runs/events?ids=${ids.map(encodeURIComponent).join(",")}`);
    this.source = source;
    source.addEventListener("run", (e) => {
      if (source !== this.source) return;
      this.backoffMs = FALLBACK_FIRST_MS;
      const event = JSON.parse((e as MessageEvent<string>).data) as StudioRunEvent;
      storeRun(this.client, event.generation, event.uncancelable_reason);
      // Closed before the server ends the stream: EventSource would otherwise reconnect.
      if (isFinal(event.generation.status)) this.sync();
    });
    source.addEventListener("error", () => {
      if (source !== this.source) return;
      // CONNECTING: the browser reconnects by itself (Last-Event-ID, then the state again).
      if (source.readyState === EventSource.CLOSED) this.fallback();
    });
  }

  private fallback(): void {
    this.closeSource();
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, FALLBACK_MAX_MS);
    void Promise.allSettled(this.unfinished().map((id) => readRun(this.client, id))).then(() => {
      if (this.unfinished().length === 0) this.stop();
    });
    this.retry = setTimeout(() => {
      this.retry = null;
      this.sync();
    }, wait);
  }

  private closeSource(): void {
    this.source?.close();
    this.source = null;
    this.streamIds = new Set();
  }

  private stop(): void {
    this.closeSource();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.backoffMs = FALLBACK_FIRST_MS;
  }
}

const hubs = new WeakMap<QueryClient, LiveRunsHub>();
function hubOf(client: QueryClient): LiveRunsHub {
  let hub = hubs.get(client);
  if (!hub) hubs.set(client, (hub = new LiveRunsHub(client)));
  return hub;
}

/**
 * The runs as they are now, live while unfinished. `initial` is what the server rendered; when it
 * is further along than the page's entry (a refresh after the stream let go), it wins.
 */
export function useLiveRuns(initial: readonly Generation[]): LiveRun[] {
  const client = useQueryClient();
  const results = useQueries({
    queries: initial.map((g) => ({
      queryKey: runKey(g.id),
      queryFn: () => readRun(client, g.id),
      initialData: { generation: g, uncancelable_reason: reasonSeen(g) } satisfies LiveRun,
      staleTime: Infinity,
    })),
  });
  const runs = initial.map((g, i) => {
    const cached = results[i]?.data;
    return cached && mayReplace(g, cached.generation) ? cached : { generation: g, uncancelable_reason: reasonSeen(g) };
  });
  const behind = initial.filter(
    (g, i) => runs[i]!.generation === g && results[i]?.data && results[i]!.data.generation !== g,
  );
  useEffect(() => {
    for (const g of behind) storeRun(client, g);
  });
  const pending = runs
    .filter((r) => !isFinal(r.generation.status))
    .map((r) => r.generation.id)
    .join(",");
  useEffect(() => {
    if (!pending) return;
    const hub = hubOf(client);
    const stops = pending.split(",").map((id) => hub.watch(id));
    return () => stops.forEach((stop) => stop());
  }, [client, pending]);
  return runs;
}

/** One run, live while unfinished. */
export function useLiveRun(initial: Generation): LiveRun {
  const list = useMemo(() => [initial], [initial]);
  return useLiveRuns(list)[0]!;
}
