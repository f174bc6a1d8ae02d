// Many concurrent `Prefer: wait=30` readers of queued runs (workers paused): the server's RSS
// growth while they wait, and its store queries per second with few and with many waiters.
import http from "node:http";
import { openStore } from "../../lib/store/store";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { sleep } from "../lib/stats";

/** Up to `n` queued run IDs of the workspace, straight from the store. */
async function queuedRuns(server: ServerHandle, workspaceId: string, n: number): Promise<string[]> {
  const store = openStore({ databaseUrl: server.store.databaseUrl || null, dataDir: server.store.dataDir });
  try {
    const rows = await store.db.selectFrom("generations").select("id").where("workspace_id", "=", workspaceId).where("status", "=", "queued").limit(n).execute();
    return rows.map((r) => r.id);
  } finally {
    await store.close();
  }
}

/** Waits until the server's store queries settle (every waiter has subscribed), at most 30 s. */
async function settle(server: ServerHandle, maxPerSecond: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = await server.queries();
  while (Date.now() < deadline) {
    await sleep(500);
    const now = await server.queries();
    if ((now - last) * 2 <= maxPerSecond) return;
    last = now;
  }
}

async function queriesPerSecond(server: ServerHandle, seconds: number, rssSamples: number[]): Promise<number> {
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

export async function waitersScenario(settings: BenchSettings, server: ServerHandle, ws: { workspaceId: string; key: string }): Promise<Row[]> {
  const scenario = `${settings.smoke ? "50" : "5,000"} concurrent Prefer: wait=30 readers`;
  const few = settings.smoke ? 5 : 500;
  const many = settings.smoke ? 50 : 5000;
  const window = settings.smoke ? 1 : 5;
  // One queued run per waiter, made in batches of 50 (the workers are paused).
  const request = { model: "atelier/gradient", input: { prompt: "ocean dusk" } };
  for (let made = 0; made < many; made += 50) {
    const res = await fetch(`${server.api}/v1/batches`, {
      method: "POST",
      headers: { "x-api-key": ws.key, "content-type": "application/json" },
      body: JSON.stringify({ requests: Array.from({ length: Math.min(50, many - made) }, () => request) }),
    });
    if (res.status !== 201) throw new Error(`${scenario}: POST /v1/batches answered ${res.status}`);
    await res.arrayBuffer();
  }
  const ids = await queuedRuns(server, ws.workspaceId, many);
  if (ids.length < many) throw new Error(`${scenario}: only ${ids.length} queued runs to wait on`);

  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  let answeredEarly = 0;
  let failed = 0;
  const open = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const req = http.get(`${server.api}/v1/generations/${ids[i]}`, { agent, headers: { "x-api-key": ws.key, prefer: "wait=30" } }, (res) => {
        answeredEarly += 1;
        res.resume();
      });
      req.on("error", () => {
        failed += 1;
      });
      requests.push(req);
      // Open in bursts below the listen backlog.
      if ((i - from) % 200 === 199) await sleep(20);
    }
  };

  try {
    await settle(server, 20);
    const rssBefore = server.rss();
    const rss: number[] = [];
    await open(0, few);
    await settle(server, 20);
    const qpsFew = await queriesPerSecond(server, window, rss);
    await open(few, many);
    await settle(server, 20);
    const qpsMany = await queriesPerSecond(server, window, rss);
    const growthMb = (Math.max(...rss) - rssBefore) / 1024 / 1024;
    const problems = [answeredEarly > 0 ? `${answeredEarly} answered before the wait ended` : "", failed > 0 ? `${failed} requests failed` : ""].filter(Boolean);
    // "Independent of the number of waiters": ten times the waiters, at most 1.5× the queries (+2/s of slack for a tick).
    const independent = qpsMany <= qpsFew * 1.5 + 2;
    return [
      {
        scenario,
        figure: "RSS growth (baseline: RSS before)",
        unit: "MB",
        value: growthMb,
        baseline: rssBefore / 1024 / 1024,
        ratio: null,
        target: "≤ 150 MB",
        pass: growthMb <= 150 && problems.length === 0,
        note: problems.join("; ") || undefined,
      },
      {
        scenario,
        figure: `store queries/s (baseline: ${few} waiters)`,
        unit: "/s",
        value: qpsMany,
        baseline: qpsFew,
        ratio: qpsFew > 0 ? qpsMany / qpsFew : null,
        target: "independent of waiters",
        pass: independent,
      },
    ];
  } finally {
    for (const req of requests) req.destroy();
    agent.destroy();
  }
}
