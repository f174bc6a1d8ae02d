// History at scale: one workspace with a long run history (a million runs unless told), written
// straight into a fresh store, then every history read the API and the studio offer, each timed
// one request at a time, while a steady trickle of GET /v1/models runs beside them. The server
// starts on the seeded store, after the history indexes were built on it (timed).
import { statSync } from "node:fs";
import { sql } from "kysely";
import { createApiKey } from "../../lib/core/keys/api-keys";
import { seedHistory } from "../../lib/core/testing/history-seed";
import { createUser } from "../../lib/core/workspaces/users";
import { createWorkspace } from "../../lib/core/workspaces/workspaces";
import { ONLINE_INDEXES, buildOnlineIndexes } from "../../lib/store/online-indexes";
import { migrateStore, openStore, sqliteFileIn, type Store } from "../../lib/store/store";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import { dropStore, freshStore, startServer, type ServerHandle } from "../lib/server";
import { percentile } from "../lib/stats";
import { startTrickle } from "../lib/trickle";
import { signIn } from "./studio";

const SCENARIO = "history";
/** Catalog image models the history's runs go to, in turn. */
const MODELS = ["atelier/gradient", "atelier/artwork", "atelier/gradient-classic", "atelier/upscale"];
/** A model with a few runs (a small seed of its own), and a well-formed one with none. */
const FEW_MODEL = "atelier/type-card";
const NO_MODEL = "atelier/qr-code";
/** The main history's runs come from these; the few runs from `mcp`. */
const MANY_SOURCES = ["api", "studio"] as const;
const FEW_RUNS = 30;
const PASSWORD = "bench-pass-1";
/** Searches of history-seed's prompts: in a fifth of them, in 1 %, in 0.1 %, and in none. */
const SEARCHES = [
  ["harbour", "many"],
  ["sunset harbour", "1 %"],
  ["no.123", "0.1 %"],
  ["zeppelin", "none"],
] as const;
const READ_TARGET_MS = 100;
const MODELS_TARGET_MS = 20;
/** Between two trickled GET /v1/models. */
const TRICKLE_MS = 20;
/**
 * Untimed requests of each read before it is timed: its code loaded and optimised, as on a server
 * that has been up a while (the first few renders of a studio page take several times longer).
 */
const WARM_REQUESTS = 20;

export interface HistoryOptions {
  runs: number;
  pgDatabase: string | null;
  progress: (message: string) => void;
}

interface Timed {
  ms: number[];
  /** Runs on the last page answered (API), or bytes of the last HTML (studio). */
  last: number;
}

function infoRow(figure: string, value: number, unit: string, note?: string): Row {
  return { scenario: SCENARIO, figure, unit, value, baseline: null, ratio: null, target: "–", pass: null, note };
}

function p99Row(name: string, t: Timed, maxMs: number, detail: string): Row {
  const p99 = percentile(t.ms, 99);
  const p50 = percentile(t.ms, 50);
  return {
    scenario: `${SCENARIO}: ${name}`,
    figure: `p99 of ${t.ms.length}`,
    unit: "ms",
    value: p99,
    baseline: null,
    ratio: null,
    target: `≤ ${maxMs} ms`,
    pass: p99 === null ? null : p99 <= maxMs,
    note: `p50 ${p50?.toFixed(1)} ms; ${detail}`,
  };
}

async function timedGet(url: string, headers: Record<string, string>): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const res = await fetch(url, { headers, redirect: "manual" });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return { ms, body };
}

async function storeSize(store: Store, dataDir: string): Promise<number> {
  if (store.dialect === "postgres") {
    const { rows } = await sql<{
      bytes: string;
    }>`select pg_total_relation_size('generations') as bytes`.execute(store.db);
    return Number(rows[0]!.bytes);
  }
  await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
  const file = sqliteFileIn(dataDir);
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return size(file) + size(`${file}-wal`);
}

/** Drops the history indexes so that they are built on the full table, as on an upgrade. */
async function dropOnlineIndexes(store: Store): Promise<void> {
  for (const index of ONLINE_INDEXES) await sql.raw(`drop index if exists "${index.name}"`).execute(store.db);
}

export async function historyScenario(settings: BenchSettings, options: HistoryOptions): Promise<Row[]> {
  const { runs, progress } = options;
  const spec = await freshStore("history", options.pgDatabase);
  let server: ServerHandle | null = null;
  try {
    const rows: Row[] = [];
    const store = openStore({ databaseUrl: spec.databaseUrl || null, dataDir: spec.dataDir });
    const suffix = Date.now().toString(36);
    const emails = { creator: `bench-${suffix}@example.com`, ops: `bench-ops-${suffix}@example.com` };
    let ws: { workspaceId: string; key: string };
    try {
      // In process rather than with the admin CLI: each of its starts costs seconds of the smoke run.
      await migrateStore(store);
      const workspace = await createWorkspace(
        { db: store.db },
        { name: "bench-history", creditMicros: 1_000_000_000_000 },
      );
      const key = await createApiKey({ db: store.db }, { workspaceId: workspace.id, name: "bench", prefix: "atl" });
      ws = { workspaceId: workspace.id, key: key.key };
      // The ops user owns the workspace and operates the install; the creator is a member.
      for (const role of ["creator", "ops"] as const)
        await createUser(
          { db: store.db },
          {
            email: emails[role],
            password: PASSWORD,
            workspaceId: workspace.id,
            role: role === "ops" ? "owner" : "creator",
            ops: role === "ops",
          },
        );
      await dropOnlineIndexes(store);
      progress(`history: seeding ${runs.toLocaleString("en-US")} runs`);
      const newest = new Date();
      let started = performance.now();
      await seedHistory(store.db, {
        workspaceId: ws.workspaceId,
        runs,
        models: MODELS,
        sources: MANY_SOURCES,
        newest,
        chunk: 1000,
      });
      await seedHistory(store.db, {
        workspaceId: ws.workspaceId,
        runs: FEW_RUNS,
        models: [FEW_MODEL],
        sources: ["mcp"],
        newest,
        tag: "few",
      });
      const seedSeconds = (performance.now() - started) / 1000;
      rows.push(infoRow(`seeding ${runs.toLocaleString("en-US")} runs (direct inserts)`, seedSeconds, "s"));
      progress(`history: seeded in ${seedSeconds.toFixed(1)} s; building the history indexes`);
      started = performance.now();
      const built = await buildOnlineIndexes(store.db);
      const buildSeconds = (performance.now() - started) / 1000;
      rows.push(
        infoRow("building the history indexes (buildOnlineIndexes)", buildSeconds, "s", `${built.length} indexes`),
      );
      // A long-used install's planner statistics follow its table (autovacuum's analyze); a bulk
      // load has none until then, and the test server runs with autovacuum off.
      if (store.dialect === "postgres") await sql`analyze generations`.execute(store.db);
      // What the bulk load left in the buffers goes to disk now, not while the reads are timed (a
      // store used for a while has no such backlog; SQLite's is flushed by the checkpoint below).
      if (store.dialect === "postgres") await sql`checkpoint`.execute(store.db);
      const bytes = await storeSize(store, spec.dataDir);
      rows.push(
        infoRow(
          store.dialect === "postgres" ? "pg_total_relation_size(generations)" : "SQLite file size",
          bytes / 1024 / 1024,
          "MB",
        ),
      );
      progress(`history: indexes built in ${buildSeconds.toFixed(1)} s; store ${(bytes / 1048576).toFixed(0)} MB`);
    } finally {
      await store.close();
    }

    const startedServer = performance.now();
    server = await startServer({ store: spec, workers: 0, cpuProfDir: settings.cpuProfDir, label: "history" });
    rows.push(infoRow("server start on the seeded store", (performance.now() - startedServer) / 1000, "s"));
    const creatorCookie = await signIn(server, emails.creator, PASSWORD);
    const opsCookie = await signIn(server, emails.ops, PASSWORD);

    const requests = settings.smoke ? 3 : 100;
    const cursorPages = settings.smoke ? 4 : 200;
    const api = { "x-api-key": ws.key };
    const html = (cookie: string) => ({ cookie, accept: "text/html" });

    // Every read: a row name, and what one request of it fetches (its URL and headers).
    const reads: Array<{ name: string; url: string; headers: Record<string, string>; api: boolean }> = [];
    const apiRead = (name: string, query: string) =>
      reads.push({
        name: `GET /v1/generations ${name}`,
        url: `${server!.api}/v1/generations?${query}`,
        headers: api,
        api: true,
      });
    apiRead("default page", "");
    apiRead("status=succeeded (many)", "status=succeeded");
    apiRead("status=failed (few)", "status=failed");
    apiRead("status=queued (none)", "status=queued");
    apiRead(`model=${MODELS[0]} (many)`, `model=${MODELS[0]}`);
    apiRead(`model=${FEW_MODEL} (few)`, `model=${FEW_MODEL}`);
    apiRead(`model=${NO_MODEL} (none)`, `model=${NO_MODEL}`);
    apiRead("source=api (many)", "source=api");
    apiRead("source=mcp (few)", "source=mcp");
    apiRead("source=api,studio,mcp (all)", "source=api,studio,mcp");
    apiRead(`model=${MODELS[0]}&status=failed`, `model=${MODELS[0]}&status=failed`);
    apiRead(`model=${FEW_MODEL}&source=api (none)`, `model=${FEW_MODEL}&source=api`);
    apiRead("status=failed&source=mcp (few)", "status=failed&source=mcp");
    apiRead(`model=${MODELS[1]}&status=succeeded&source=studio`, `model=${MODELS[1]}&status=succeeded&source=studio`);
    apiRead(`model=${MODELS[0]}&status=canceled&source=mcp (none)`, `model=${MODELS[0]}&status=canceled&source=mcp`);
    const pageRead = (name: string, path: string, cookie: string) =>
      reads.push({ name: `studio ${name}`, url: `${server!.studio}${path}`, headers: html(cookie), api: false });
    for (const [words, share] of SEARCHES)
      pageRead(`/runs?q=${words} (${share})`, `/runs?q=${encodeURIComponent(words)}`, creatorCookie);
    pageRead("/runs?status=queued (none)", "/runs?status=queued", creatorCookie);
    pageRead(`/runs?model=${MODELS[0]}`, `/runs?model=${encodeURIComponent(MODELS[0]!)}`, creatorCookie);
    pageRead("/runs", "/runs", creatorCookie);
    pageRead("/ops (ops user)", "/ops", opsCookie);
    pageRead(`/catalog/${MODELS[0]}`, `/catalog/${MODELS[0]}`, creatorCookie);
    pageRead("/catalog", "/catalog", creatorCookie);

    progress(`history: ${settings.smoke ? 1 : WARM_REQUESTS} untimed requests of each read`);
    for (const read of reads)
      for (let i = 0; i < (settings.smoke ? 1 : WARM_REQUESTS); i++) await timedGet(read.url, read.headers);

    // The trickle of model reads, running until the timed reads are done; kept apart by what ran
    // beside them (API lists, or studio pages rendered on the same event loop).
    const trickle = startTrickle({ url: `${server.api}/v1/models`, headers: api, everyMs: TRICKLE_MS, phase: "api" });
    const timeRead = async (read: (typeof reads)[number]): Promise<Row> => {
      progress(`history: ${read.name}`);
      const t: Timed = { ms: [], last: 0 };
      for (let i = 0; i < requests; i++) {
        const r = await timedGet(read.url, read.headers);
        t.ms.push(r.ms);
        t.last = read.api ? (JSON.parse(r.body) as { data: unknown[] }).data.length : r.body.length;
      }
      const detail = read.api ? `${t.last} runs/page` : `${(t.last / 1024).toFixed(0)} kB of HTML`;
      return p99Row(read.name, t, READ_TARGET_MS, detail);
    };
    let modelsMs: Record<string, number[]> = {};
    // The server's own event-loop lateness in each phase: a stall there, or in the load generator.
    const loops: Record<string, { p99Ms: number; maxMs: number }> = {};
    await server.loopDelay();
    try {
      for (const read of reads.filter((r) => r.api)) rows.push(await timeRead(read));
      rows.push(await cursorWalk(`${server.api}/v1/generations`, api, cursorPages, progress));
      trickle.phase("studio");
      loops.api = await server.loopDelay();
      for (const read of reads.filter((r) => !r.api)) rows.push(await timeRead(read));
      loops.studio = await server.loopDelay();
    } finally {
      modelsMs = await trickle.stop();
    }
    for (const [during, ms] of Object.entries(modelsMs))
      rows.push(
        p99Row(
          `GET /v1/models during the ${during === "api" ? "API lists" : "studio pages"} (one every ${TRICKLE_MS} ms)`,
          { ms, last: 0 },
          MODELS_TARGET_MS,
          `${ms.length} requests`,
        ),
      );
    for (const [during, loop] of Object.entries(loops))
      rows.push(
        infoRow(
          `the server's event-loop delay during the ${during === "api" ? "API lists" : "studio pages"}, p99`,
          loop.p99Ms,
          "ms",
          `most ${loop.maxMs.toFixed(1)} ms`,
        ),
      );
    return rows;
  } finally {
    await server?.stop();
    await dropStore(spec);
  }
}

/** next_cursor followed page after page (100 runs each); the deepest half's times reported. */
async function cursorWalk(
  url: string,
  headers: Record<string, string>,
  pages: number,
  progress: (message: string) => void,
): Promise<Row> {
  progress(`history: following next_cursor ${pages} pages`);
  const walk: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const r = await timedGet(`${url}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, headers);
    walk.push(r.ms);
    cursor = (JSON.parse(r.body) as { next_cursor: string | null }).next_cursor;
    if (!cursor) throw new Error(`the cursor walk ended after ${i + 1} pages`);
  }
  const half = Math.floor(pages / 2);
  return p99Row(
    `GET /v1/generations limit=100, pages ${half + 1}–${pages} of a next_cursor walk`,
    { ms: walk.slice(half), last: 100 },
    READ_TARGET_MS,
    `${(pages * 100).toLocaleString("en-US")} runs deep`,
  );
}
