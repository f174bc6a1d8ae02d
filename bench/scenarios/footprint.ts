// The memory a small machine must hold: `npm start` itself (npm, the shell, the server and its
// threads, anything they start), on a fresh store with its defaults — the catalog pictures made
// in the background count. Resident memory of the whole process group when idle after the start
// (the pictures made), then after a soak of API requests and studio pages
// at a steady rate.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import { freePort, ROOT, workspaceWithKey, type StoreSpec } from "../lib/server";
import { sleep } from "../lib/stats";
import { signIn, studioUser } from "./studio";

const MB = 1024 * 1024;
const IDLE_TARGET_MB = 250;
const SOAK_TARGET_MB = 350;
/** The soak: requests per second, held for this long (3 minutes; a few seconds in smoke mode). */
const SOAK_RATE = 100;
const SOAK_SECONDS = 180;
/** Idle: the pictures made, and then this much longer, past the picture process's idle time (lib/boot/example-picture-process.ts). */
const SETTLE_MS = 35_000;

interface GroupSample {
  rssBytes: number;
  processes: number;
}

/** Every process whose process group is `pgid`: their resident memory. */
function sampleGroup(pgid: number): GroupSample {
  let rssBytes = 0;
  let processes = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // Fields after the command's closing parenthesis: state ppid pgrp … rss (the 24th field).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    processes += 1;
    rssBytes += Number(fields[21]) * 4096;
  }
  return { rssBytes, processes };
}

/** Until the server says no catalog picture is left to make (its /metrics gauge). */
async function waitForPictures(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await (await fetch(`${base}/metrics`)).text();
    const waiting = /^atelier_example_pictures_waiting (\S+)$/m.exec(text);
    if (waiting && Number(waiting[1]) === 0) return;
    if (Date.now() > deadline) throw new Error(`catalog pictures still being made after ${timeoutMs / 1000} s`);
    await sleep(2_000);
  }
}

async function waitForReady(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`npm start did not answer /readyz within ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

function soak(base: string, key: string, cookie: string, seconds: number): Promise<autocannon.Result> {
  const api = { "x-api-key": key, "content-type": "application/json" };
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections: 10,
        overallRate: SOAK_RATE,
        duration: seconds,
        // What a team's day looks like to the server: mostly API reads, quotes, and studio pages.
        requests: [
          { method: "GET", path: "/v1/models", headers: api },
          { method: "GET", path: "/v1/generations?limit=20", headers: api },
          {
            method: "POST",
            path: "/v1/quotes",
            headers: api,
            body: JSON.stringify({ model: "atelier/gradient", input: { prompt: "soak" } }),
          },
          { method: "GET", path: "/v1/credits", headers: api },
          { method: "GET", path: "/catalog", headers: { cookie, accept: "text/html" } },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

export async function footprintScenario(settings: BenchSettings, store: StoreSpec, storeName: string): Promise<Row[]> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    // A group of its own: everything npm start runs is counted, and stopped together.
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: store.dataDir,
      DATABASE_URL: store.databaseUrl,
      PUBLIC_BASE_URL: base,
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      // The soak measures memory, not the per-minute limits (which would answer most of it 429).
      RATE_LIMIT_IP_PER_MIN: "1000000",
      RATE_LIMIT_KEY_PER_MIN: "1000000",
      // Smoke mode proves the harness only: no pictures made for minutes.
      ...(settings.smoke ? { EXAMPLE_PICTURES: "on-demand" } : {}),
    },
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const pgid = child.pid!;
  try {
    // A first start after a change builds the studio first (scripts/build-if-stale.mjs).
    await waitForReady(base, 600_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`);
    });
    if (!settings.smoke) {
      await waitForPictures(base, 20 * 60_000);
      await sleep(SETTLE_MS);
    }
    const idle = sampleGroup(pgid);
    const ws = workspaceWithKey(store, "bench-footprint", "1000");
    const user = studioUser({ store }, ws.workspaceId);
    const cookie = await signIn({ studio: base }, user.email, user.password);
    const result = await soak(base, ws.key, cookie, settings.smoke ? 2 : SOAK_SECONDS);
    const soaked = sampleGroup(pgid);
    const bad = result.non2xx + result.errors + result.timeouts;
    const note = `${idle.processes} processes; soak ${Math.round(result.requests.average)} req/s, ${bad} not 2xx`;
    return [
      {
        scenario: `footprint, npm start (${storeName})`,
        figure: "RSS idle after start",
        unit: "MB",
        value: idle.rssBytes / MB,
        baseline: null,
        ratio: null,
        target: `≤ ${IDLE_TARGET_MB} MB`,
        pass: settings.smoke ? null : idle.rssBytes / MB <= IDLE_TARGET_MB,
        note,
      },
      {
        scenario: `footprint, npm start (${storeName})`,
        figure: `RSS after ${settings.smoke ? 2 : SOAK_SECONDS} s at ${SOAK_RATE} req/s`,
        unit: "MB",
        value: soaked.rssBytes / MB,
        baseline: null,
        ratio: null,
        target: `≤ ${SOAK_TARGET_MB} MB`,
        pass: settings.smoke ? null : soaked.rssBytes / MB <= SOAK_TARGET_MB && bad === 0,
        note,
      },
    ];
  } finally {
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {
          // gone
        }
        resolve();
      }, 10_000);
      child.once("exit", () => (clearTimeout(timer), resolve()));
    });
  }
}
