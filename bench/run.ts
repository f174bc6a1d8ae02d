// npm run bench [-- --smoke] [-- --pg] [-- --cpu-prof] [-- --only models,quotes,streams,footprint]
//   [-- --history-runs N] (the history scenario's runs; 1,000,000 unless told, 2,000 with --smoke)
// Builds the studio if needed, starts the production server on fresh stores, runs every
// scenario against it and against a bare node:http baseline measured in the same run, prints
// the table and writes bench/results.json. --smoke runs everything tiny and only checks that
// every row got a number (it runs in npm test); it asserts nothing about speed.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { settingsFor, type BenchSettings } from "./lib/context";
import { formatTable, writeResults, type Row } from "./lib/results";
import {
  dropStore,
  freshStore,
  postgresReachable,
  ROOT,
  startServer,
  startWorker,
  workspaceWithKey,
  budgetedWorkspaceWithKey,
  type ServerHandle,
  type StoreSpec,
} from "./lib/server";
import { generationsScenario, modelsScenario, quotesScenario } from "./scenarios/api";
import { fairQueueScenario } from "./scenarios/fair-queue";
import { footprintScenario } from "./scenarios/footprint";
import { failoverFakes, failoverScenario } from "./scenarios/failover";
import { cancelFakes, cancelReachScenario } from "./scenarios/cancel-reach";
import { historyScenario } from "./scenarios/history";
import { mcpGenerateScenario } from "./scenarios/mcp";
import {
  fastestImageModel,
  preferWaitScenario,
  queueLatency,
  queueRows,
  runThroughputScenario,
  type FastestModel,
} from "./scenarios/runs";
import { openStreamsScenario, streamLatency, streamLatencyRows, studioPaintScenario } from "./scenarios/streams";
import { catalogScenario, firstLoadJsScenario, signIn, studioUser } from "./scenarios/studio";
import { waitersScenario } from "./scenarios/waiters";
import { webhooksScenario } from "./scenarios/webhooks";

const argv = process.argv.slice(2);
const onlyArg =
  argv.find((a) => a.startsWith("--only="))?.slice("--only=".length) ??
  (argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined);
const only = onlyArg ? new Set(onlyArg.split(",")) : null;
const settings: BenchSettings = settingsFor({
  smoke: argv.includes("--smoke"),
  pg: argv.includes("--pg"),
  cpuProfDir: argv.includes("--cpu-prof") ? path.join(ROOT, "bench", "profiles") : null,
});
const historyRunsArg =
  argv.find((a) => a.startsWith("--history-runs="))?.slice("--history-runs=".length) ??
  (argv.includes("--history-runs") ? argv[argv.indexOf("--history-runs") + 1] : undefined);
const historyRuns = historyRunsArg === undefined ? (settings.smoke ? 2_000 : 1_000_000) : Number(historyRunsArg);
if (!Number.isInteger(historyRuns) || historyRuns < 1) {
  console.error(`--history-runs: a whole number of runs, at least 1; got "${historyRunsArg}".`);
  process.exit(2);
}
const SCENARIOS = [
  "models",
  "quotes",
  "studio",
  "generations",
  "waiters",
  "queue",
  "wait",
  "mcp",
  "runs",
  "fair",
  "failover",
  "cancel",
  "webhooks",
  "xproc",
  "streams",
  "history",
  "footprint",
] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const wanted = (name: ScenarioName) => only === null || only.has(name);
for (const name of only ?? []) {
  if (!(SCENARIOS as readonly string[]).includes(name)) {
    console.error(`--only: unknown scenario "${name}"; choose from ${SCENARIOS.join(", ")}.`);
    process.exit(2);
  }
}

const rows: Row[] = [];
let broken = 0;

function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs one scenario; a harness failure becomes a row without a value and fails the run. */
async function scenario(name: string, fn: () => Promise<Row[]>): Promise<void> {
  progress(name);
  const started = performance.now();
  try {
    rows.push(...(await fn()));
  } catch (err) {
    broken += 1;
    const message = (err as Error).message.split("\n", 1)[0]!;
    progress(`${name} FAILED: ${(err as Error).stack ?? message}`);
    rows.push({
      scenario: name,
      figure: "error",
      unit: "",
      value: null,
      baseline: null,
      ratio: null,
      target: "–",
      pass: false,
      note: message,
    });
  }
  progress(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function ensureBuild(): void {
  if (existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  progress("no .next/BUILD_ID: building the studio (next build)");
  execFileSync("npx", ["next", "build"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
}

async function withServer(
  label: string,
  pgDatabase: string | null,
  workers: number,
  fn: (server: ServerHandle, store: StoreSpec) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const store = await freshStore(label, pgDatabase);
  let server: ServerHandle | null = null;
  try {
    progress(
      `starting the ${label} server (${store.databaseUrl ? "PostgreSQL" : "SQLite"}, WORKER_CONCURRENCY=${workers})`,
    );
    server = await startServer({
      store,
      workers,
      cpuProfDir: settings.cpuProfDir,
      label,
      // Smoke mode measures nothing: the studio's thread starts only for the scenario that opens a page.
      env: { ...(settings.smoke ? { STUDIO_START: "on-demand" } : {}), ...env },
    });
    await fn(server, store);
  } finally {
    await server?.stop();
    await dropStore(store);
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  ensureBuild();
  const storeName = settings.pg ? "PostgreSQL" : "SQLite";
  const pgReachable = await postgresReachable();
  if (settings.pg && !pgReachable)
    throw new Error("--pg: PostgreSQL is not reachable (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432)");
  let fastest: FastestModel | null = null;
  if (
    wanted("queue") ||
    wanted("wait") ||
    wanted("mcp") ||
    wanted("runs") ||
    wanted("fair") ||
    wanted("webhooks") ||
    wanted("xproc") ||
    wanted("streams")
  ) {
    progress("timing the image models in-process");
    fastest = await fastestImageModel(settings);
    progress(`fastest image model: ${fastest.id}, ${fastest.modelMs.toFixed(1)} ms`);
  }

  if (["models", "quotes", "studio", "generations"].some((n) => wanted(n as ScenarioName))) {
    await withServer("api", settings.pg ? "atelier_bench_api" : null, 0, async (server, store) => {
      const ws = workspaceWithKey(store, "bench", "1000000");
      if (wanted("models")) await scenario("GET /v1/models", () => modelsScenario(settings, server, ws.key));
      if (wanted("quotes")) await scenario("POST /v1/quotes", () => quotesScenario(settings, server, ws.key));
      if (wanted("generations"))
        await scenario("POST /v1/generations", () =>
          generationsScenario(
            settings,
            server,
            ws,
            workspaceWithKey(store, "bench-store-floor", "1000000").workspaceId,
            budgetedWorkspaceWithKey(store, "bench-budgets", "1000000"),
          ),
        );
      // Last on this server: a catalog page asks for the cards' pictures, which are then made in
      // the background (ffmpeg, tens of seconds of CPU), and would compete with a row measured after it.
      if (wanted("studio")) {
        await scenario("studio", async () => {
          const user = studioUser(server, ws.workspaceId);
          const cookie = await signIn(server, user.email, user.password);
          return [...(await catalogScenario(settings, server, cookie)), ...(await firstLoadJsScenario(server, cookie))];
        });
      }
    });
  }

  const waiters = (server: ServerHandle, store: StoreSpec) =>
    scenario("Prefer: wait readers", () =>
      waitersScenario(settings, server, workspaceWithKey(store, "bench", "1000000")),
    );
  const openStreams = (server: ServerHandle, store: StoreSpec) =>
    scenario("open status streams", () =>
      openStreamsScenario(settings, server, workspaceWithKey(store, "bench", "1000000")),
    );
  // Each on a server of its own, so that the RSS before the readers is not that of a server just
  // loaded; smoke mode measures nothing and runs them on one server (CI's minutes).
  if (settings.smoke && (wanted("waiters") || wanted("streams"))) {
    await withServer("waiters-streams", null, 0, async (server, store) => {
      if (wanted("waiters")) await waiters(server, store);
      if (wanted("streams")) await openStreams(server, store);
    });
  } else {
    if (wanted("waiters")) await withServer("waiters", settings.pg ? "atelier_bench_waiters" : null, 0, waiters);
    if (wanted("streams")) await withServer("streams", settings.pg ? "atelier_bench_streams" : null, 0, openStreams);
  }

  if (
    fastest &&
    (wanted("queue") ||
      wanted("wait") ||
      wanted("mcp") ||
      wanted("runs") ||
      wanted("fair") ||
      wanted("streams") ||
      wanted("webhooks"))
  ) {
    const model = fastest;
    await withServer("engine", settings.pg ? "atelier_bench_engine" : null, 2, async (server, store) => {
      const ws = workspaceWithKey(store, "bench", "1000000");
      if (wanted("queue")) {
        await scenario("idle queue, in-process", async () =>
          queueRows(`in-process (${storeName})`, await queueLatency(settings, server, ws.key, model), 5),
        );
      }
      if (wanted("wait"))
        await scenario("Prefer: wait end to end", () => preferWaitScenario(settings, server, ws.key, model));
      if (wanted("mcp")) await scenario("MCP generate", () => mcpGenerateScenario(settings, server, ws.key, model));
      if (wanted("runs"))
        await scenario("runs finished per second", () =>
          runThroughputScenario(settings, server, workspaceWithKey(store, "bench-runs", "1000000"), model, 2),
        );
      if (wanted("fair"))
        await scenario("fair queue", () =>
          fairQueueScenario(
            settings,
            server,
            {
              busy: workspaceWithKey(store, "bench-fair-busy", "1000000"),
              quiet: workspaceWithKey(store, "bench-fair-quiet", "1000000"),
            },
            workspaceWithKey(store, "bench-fair-alone", "1000000"),
            model,
            storeName,
          ),
        );
      // Before the webhooks scenario, whose 20 endpoints every later run would fan out to.
      if (wanted("streams")) {
        await scenario("status stream, in-process", async () =>
          streamLatencyRows(`in-process (${storeName})`, await streamLatency(settings, server, ws.key, model), 10),
        );
        await scenario("studio: result painted", () => studioPaintScenario(settings, server, ws, model));
      }
      if (wanted("webhooks")) await scenario("webhooks", () => webhooksScenario(settings, server, ws.key, model));
    });
  }

  if (wanted("failover")) {
    // Its own server: the providers file names the fakes started here.
    const fakes = await failoverFakes();
    try {
      await withServer(
        "failover",
        settings.pg ? "atelier_bench_failover" : null,
        2,
        async (server, store) => {
          await scenario("failover", () =>
            failoverScenario(settings, server, workspaceWithKey(store, "bench-failover", "1000"), fakes, storeName),
          );
        },
        fakes.env,
      );
    } finally {
      await fakes.close();
    }
  }

  if (wanted("cancel")) {
    const fakes = await cancelFakes();
    try {
      await withServer(
        "cancel",
        settings.pg ? "atelier_bench_cancel" : null,
        2,
        async (server, store) => {
          await scenario("cancel reaches the provider", () =>
            cancelReachScenario(settings, server, workspaceWithKey(store, "bench-cancel", "1000"), fakes, storeName),
          );
        },
        fakes.env,
      );
    } finally {
      await fakes.close();
    }
  }

  if (fastest && (wanted("xproc") || wanted("streams"))) {
    const model = fastest;
    // A server with no worker slots and a `npm run worker` process on the same store: on
    // PostgreSQL (the target; measured whenever it is reachable) and on the SQLite file.
    // SQLite has no NOTIFY: the processes signal each other over Unix sockets
    // (lib/engine/process-mesh.ts), PRAGMA data_version on a 25 ms tick the fallback.
    const across = async (store: "SQLite" | "PostgreSQL", pgDatabase: string | null, p50Target: number | null) =>
      withServer(`xproc-${store.toLowerCase()}`, pgDatabase, 0, async (server, spec) => {
        const ws = workspaceWithKey(spec, "bench", "1000000");
        const worker = await startWorker({
          store: spec,
          workers: 2,
          cpuProfDir: settings.cpuProfDir,
          label: "xproc-worker",
        });
        try {
          if (wanted("xproc")) {
            await scenario(`idle queue, across processes (${store})`, async () =>
              queueRows(`across processes (${store})`, await queueLatency(settings, server, ws.key, model), p50Target),
            );
          }
          if (wanted("streams")) {
            await scenario(`status stream, across processes (${store})`, async () =>
              streamLatencyRows(
                `across processes (${store})`,
                await streamLatency(settings, server, ws.key, model),
                50,
              ),
            );
          }
        } finally {
          await worker.stop();
        }
      });
    // Smoke mode: the SQLite pair alone proves the harness (the PostgreSQL pair runs the same code).
    if (pgReachable && !settings.smoke) await across("PostgreSQL", "atelier_bench_xproc", 25);
    else {
      const skipped = (scenario: string, target: string): Row => ({
        scenario,
        figure: "p50",
        unit: "ms",
        value: null,
        baseline: null,
        ratio: null,
        target,
        pass: null,
        note: settings.smoke ? "skipped: smoke mode" : "skipped: PostgreSQL not reachable",
      });
      if (wanted("xproc"))
        rows.push(skipped("idle queue: created → running, across processes (PostgreSQL)", "≤ 25 ms"));
      if (wanted("streams"))
        rows.push({
          ...skipped("status stream: run finished → final event, across processes (PostgreSQL)", "≤ 50 ms"),
          figure: "p99",
        });
    }
    await across("SQLite", null, 50);
  }

  if (wanted("history")) {
    // Last: its store holds a long history, seeded before its server starts.
    await scenario(`history (${historyRuns.toLocaleString("en-US")} runs)`, () =>
      historyScenario(settings, {
        runs: historyRuns,
        pgDatabase: settings.pg ? "atelier_bench_history" : null,
        progress,
      }),
    );
  }

  if (wanted("footprint")) {
    // `npm start` itself, alone on the machine's CPU: nothing else of the bench runs meanwhile.
    const store = await freshStore("footprint", settings.pg ? "atelier_bench_footprint" : null);
    try {
      await scenario(`footprint (${storeName})`, () => footprintScenario(settings, store, storeName));
    } finally {
      await dropStore(store);
    }
  }

  const table = formatTable(rows);
  console.log(
    `\nAtelier benchmark${settings.smoke ? " (smoke: tiny loads, figures mean nothing)" : ""}: store ${storeName}, ${os.cpus().length} cores, Node ${process.version}, ${settings.connections} connections × ${settings.seconds} s after ${settings.warmup} s of warm-up\n`,
  );
  console.log(table);
  const file = path.join(ROOT, "bench", "results.json");
  writeResults(
    file,
    {
      date: new Date().toISOString(),
      smoke: settings.smoke,
      store: storeName,
      cores: os.cpus().length,
      node: process.version,
      connections: settings.connections,
      seconds: settings.seconds,
      warmup: settings.warmup,
    },
    rows,
  );
  const missing = rows.filter((r) => r.value === null && !r.note?.startsWith("skipped"));
  console.log(
    `\nWrote ${path.relative(process.cwd(), file)} in ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  if (broken > 0 || missing.length > 0) {
    console.error(
      `The benchmark harness failed: ${broken} scenario(s) broke, ${missing.length} row(s) without a value.`,
    );
    process.exit(1);
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
