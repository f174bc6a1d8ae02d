// Many requests held open on queued runs of a server whose workers are paused (the Prefer: wait
// readers, the status streams): the server's RSS growth while they are open, and its store
// queries per second with few and then with many of them. Shared by scenarios/waiters.ts and
// scenarios/streams.ts; each scenario opens its own kind of request and checks its answers.
import http from "node:http";
import { openStore } from "../../lib/store/store";
import type { BenchSettings } from "./context";
import type { Row } from "./results";
import type { ServerHandle } from "./server";
import { sleep } from "./stats";

/** Makes `n` queued runs of the workspace through POST /v1/batches, 50 at a time (the workers must be paused). */
export async function queueRuns(
  server: ServerHandle,
  key: string,
  n: number,
  request: { model: string; input: Record<string, unknown> },
): Promise<void> {
  for (let made = 0; made < n; made += 50) {
    const res = await fetch(`${server.api}/v1/batches`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ requests: Array.from({ length: Math.min(50, n - made) }, () => request) }),
    });
    if (res.status !== 201)
      throw new Error(`POST /v1/batches answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  }
}

/** Up to `n` queued run IDs of the workspace, straight from the store. */
export async function queuedRuns(server: ServerHandle, workspaceId: string, n: number): Promise<string[]> {
  const store = openStore({ databaseUrl: server.store.databaseUrl || null, dataDir: server.store.dataDir });
  try {
    const rows = await store.db
      .selectFrom("generations")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where("status", "=", "queued")
      .limit(n)
      .execute();
    return rows.map((r) => r.id);
  } finally {
    await store.close();
  }
}

/**
 * The server's store statements per second when nothing happens (its own ticks: on SQLite the
 * 25 ms look at PRAGMA data_version): once two 1 s windows in a row agree, at most 30 s.
 */
export async function idleQueriesPerSecond(server: ServerHandle): Promise<number> {
  const deadline = Date.now() + 30_000;
  let previous = Infinity;
  let last = await server.queries();
  for (;;) {
    await sleep(1000);
    const now = await server.queries();
    const rate = now - last;
    last = now;
    if (Math.abs(rate - previous) <= 2 + previous * 0.1 || Date.now() > deadline) return rate;
    previous = rate;
  }
}

/** Waits until the server's store queries settle (every reader has subscribed), at most 30 s. */
export async function settle(server: ServerHandle, maxPerSecond: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = await server.queries();
  while (Date.now() < deadline) {
    await sleep(500);
    const now = await server.queries();
    if ((now - last) * 2 <= maxPerSecond) return;
    last = now;
  }
}

/** The server's store statements per second over `seconds`, sampling its RSS every 100 ms meanwhile. */
export async function queriesPerSecond(server: ServerHandle, seconds: number, rssSamples: number[]): Promise<number> {
  const before = await server.queries();
  const started = performance.now();
  const end = started + seconds * 1000;
  while (performance.now() < end) {
    rssSamples.push(server.rss());
    await sleep(100);
  }
  const after = await server.queries();
  return (after - before) / ((performance.now() - started) / 1000);
}

export interface IdleReaders {
  few: number;
  many: number;
  /** RSS before the first reader, MB. */
  rssBeforeMb: number;
  /** Highest RSS while they were open, less rssBefore, MB. */
  rssGrowthMb: number;
  qpsFew: number;
  qpsMany: number;
  /** What the scenario found wrong with its readers, read before they were closed. */
  problems: string[];
}

export interface Readers {
  /** Opens one reader of the queued run `id`. */
  open(id: string, agent: http.Agent): http.ClientRequest;
  /** Whether the first `opened` readers are all in place (e.g. every stream has its first event). */
  ready?(opened: number): boolean;
  /** What went wrong so far (answered too early, failed); read before the readers are closed. */
  problems(): string[];
}

/**
 * Makes one queued run per reader, opens `few` readers (one request each), measures the store
 * queries per second once they have settled, opens the rest up to `many` and measures again;
 * RSS is sampled throughout. `readers.ready` (when given) is waited for, at most 30 s, after
 * each batch has settled. Every request is destroyed at the end, after `readers.problems()`.
 */
export async function holdIdleReaders(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
  readers: Readers,
): Promise<IdleReaders> {
  const few = settings.smoke ? 5 : 500;
  const many = settings.smoke ? 50 : 5000;
  const window = settings.smoke ? 1 : 5;
  await queueRuns(server, ws.key, many, { model: "atelier/gradient", input: { prompt: "ocean dusk" } });
  const ids = await queuedRuns(server, ws.workspaceId, many);
  if (ids.length < many) throw new Error(`only ${ids.length} queued runs to hold readers on`);

  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  const openRange = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      requests.push(readers.open(ids[i]!, agent));
      // Open in bursts below the listen backlog.
      if ((i - from) % 200 === 199) await sleep(20);
    }
  };
  // Settled: every reader opened so far has reached the server (a connection the listen backlog
  // could not take yet retries its handshake seconds later, and would be counted in the next
  // window as queries the readers made while waiting: a full run on PostgreSQL saw 166/s), is
  // ready when the scenario can tell, and the store is back to the idle rate, give or take
  // (readers being opened cost a few queries each).
  const idle = await idleQueriesPerSecond(server);
  const calm = idle * 1.5 + 20;
  const requestsBefore = await server.requests();
  const unreached: string[] = [];
  const settled = async (opened: number) => {
    const deadline = Date.now() + 60_000;
    let arrived = 0;
    while ((arrived = (await server.requests()) - requestsBefore) < opened && Date.now() < deadline) await sleep(100);
    if (arrived < opened) unreached.push(`only ${arrived} of ${opened} readers reached the server within 60 s`);
    while (readers.ready && !readers.ready(opened) && Date.now() < deadline) await sleep(100);
    await settle(server, calm);
  };

  try {
    const rssBefore = server.rss();
    const rss: number[] = [];
    await openRange(0, few);
    await settled(few);
    const qpsFew = await queriesPerSecond(server, window, rss);
    await openRange(few, many);
    await settled(many);
    const qpsMany = await queriesPerSecond(server, window, rss);
    return {
      few,
      many,
      rssBeforeMb: rssBefore / 1024 / 1024,
      rssGrowthMb: (Math.max(...rss) - rssBefore) / 1024 / 1024,
      qpsFew,
      qpsMany,
      problems: [...unreached, ...readers.problems()],
    };
  } finally {
    for (const req of requests) req.destroy();
    agent.destroy();
  }
}

/** The two rows of a holdIdleReaders measurement: RSS growth (≤ 150 MB) and queries/s independent of the readers. */
export function idleReaderRows(scenario: string, readers: "waiters" | "streams", r: IdleReaders): Row[] {
  // "Independent of the number of readers": ten times the readers, at most 1.5× the queries (+2/s of slack for a tick).
  const independent = r.qpsMany <= r.qpsFew * 1.5 + 2;
  return [
    {
      scenario,
      figure: "RSS growth (baseline: RSS before)",
      unit: "MB",
      value: r.rssGrowthMb,
      baseline: r.rssBeforeMb,
      ratio: null,
      target: "≤ 150 MB",
      pass: r.rssGrowthMb <= 150 && r.problems.length === 0,
      note: r.problems.join("; ") || undefined,
    },
    {
      scenario,
      figure: `store queries/s (baseline: ${r.few} ${readers})`,
      unit: "/s",
      value: r.qpsMany,
      baseline: r.qpsFew,
      ratio: r.qpsFew > 0 ? r.qpsMany / r.qpsFew : null,
      target: `independent of ${readers}`,
      pass: independent,
    },
  ];
}
