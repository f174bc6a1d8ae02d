// GET /v1/models with a key and POST /v1/quotes against the framework floor (node:http → Hono
// answering the same bytes), POST /v1/generations with the workers paused against the store
// floor (the create transaction alone, in a loop), each also beside the bare node:http server;
// the ledger identity checked afterwards, straight from the store.
import { sql } from "kysely";
import { sumLedger } from "../../lib/core/credits/credits";
import { openStore } from "../../lib/store/store";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { sleep } from "../lib/stats";
import { measureStoreFloor } from "./store-floor";
import { latencyRow, measureThroughput, rpsRow } from "./throughput";

export const QUOTE_BODY = JSON.stringify({ model: "atelier/gradient", input: { prompt: "ocean dusk" } });

export async function modelsScenario(settings: BenchSettings, server: ServerHandle, key: string): Promise<Row[]> {
  const scenario = "GET /v1/models with a key";
  const r = await measureThroughput(settings, {
    scenario,
    url: `${server.api}/v1/models`,
    method: "GET",
    headers: { "x-api-key": key },
    expectStatus: 200,
    frameworkFloor: true,
  });
  return [
    rpsRow(scenario, "req/s", r, 0.7, "framework"),
    rpsRow(scenario, "req/s (baseline: bare node:http)", r, null),
    latencyRow(scenario, "p99", r, 20),
  ];
}

export async function quotesScenario(settings: BenchSettings, server: ServerHandle, key: string): Promise<Row[]> {
  const scenario = "POST /v1/quotes";
  const r = await measureThroughput(settings, {
    scenario,
    url: `${server.api}/v1/quotes`,
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: QUOTE_BODY,
    expectStatus: 200,
    frameworkFloor: true,
  });
  return [
    rpsRow(scenario, "req/s", r, 0.5, "framework"),
    rpsRow(scenario, "req/s (baseline: bare node:http)", r, null),
    latencyRow(scenario, "p99", r, 20),
  ];
}

/** Runs are created and stay queued (WORKER_CONCURRENCY=0); then the ledger must still add up. */
export async function generationsScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
  floorWorkspaceId: string,
  budgeted: { workspaceId: string; key: string },
): Promise<Row[]> {
  const scenario = "POST /v1/generations (workers paused)";
  // The floor first, in a workspace of its own (its runs stay queued and held there too).
  const floor = await measureStoreFloor(settings, server, floorWorkspaceId, JSON.parse(QUOTE_BODY), {
    idempotencyKeys: false,
  });
  /** Creates with `key` as fast as the load goes. */
  const createLoad = (key: string, name: string) =>
    measureThroughput(settings, {
      scenario: name,
      url: `${server.api}/v1/generations`,
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: QUOTE_BODY,
      expectStatus: 201,
    });
  const r = await createLoad(ws.key, scenario);
  // The same with a workspace, a member and a key budget set: each create moves their counters
  // in its transaction (lib/core/budgets/budget-spend.ts).
  const withBudgets = await createLoad(budgeted.key, `${scenario} with budgets`);
  // Once more without: the store grows during the load, so the row compares the budgeted load
  // with the mean of the loads before and after it, not with the first alone.
  const plainAfter = await createLoad(ws.key, scenario);
  await sleep(1000); // let requests still in flight when the load stopped commit
  const ledger = await checkLedger(server, ws.workspaceId);
  return [
    rpsRow(scenario, "creates/s", r, 0.5, { name: "the store floor", rps: floor.rps }),
    rpsRow(`${scenario} with workspace, member and key budgets`, "creates/s", withBudgets, 0.9, {
      name: "the same without budgets (before and after)",
      rps: (r.atelier.rps + plainAfter.atelier.rps) / 2,
    }),
    rpsRow(scenario, "creates/s (baseline: bare node:http)", r, null),
    latencyRow(scenario, "p99", r, 50),
    {
      scenario,
      figure: "ledger identity after",
      unit: "runs",
      value: ledger.runs,
      baseline: null,
      ratio: null,
      target: "ledger = balance; held = queued prices",
      pass: ledger.problems.length === 0,
      note: ledger.problems.join("; ") || undefined,
    },
  ];
}

/**
 * The balance row against the ledger summed on its own, the identity
 * granted = available + held + charged, and what is held against the runs still queued.
 */
export async function checkLedger(
  server: ServerHandle,
  workspaceId: string,
): Promise<{ runs: number; problems: string[] }> {
  const store = openStore({ databaseUrl: server.store.databaseUrl || null, dataDir: server.store.dataDir });
  try {
    // One snapshot for every read (SQLite: one transaction; PostgreSQL: repeatable read).
    return await store.db.transaction().execute(async (trx) => {
      if (store.dialect === "postgres") await sql`set transaction isolation level repeatable read`.execute(trx);
      const balance = await trx
        .selectFrom("credit_balances")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirstOrThrow();
      const sums = await sumLedger(trx, workspaceId);
      const runs = await trx
        .selectFrom("generations")
        .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.sum<number>("price_micros").as("price")])
        .where("workspace_id", "=", workspaceId)
        .where("status", "=", "queued")
        .executeTakeFirstOrThrow();
      const problems: string[] = [];
      if (balance.granted_micros !== balance.available_micros + balance.held_micros + balance.charged_micros)
        problems.push("granted ≠ available + held + charged");
      if (sums.grantedMicros !== balance.granted_micros) problems.push("ledger grants ≠ balance");
      if (sums.availableMicros !== balance.available_micros) problems.push("ledger available ≠ balance");
      if (sums.heldMicros !== balance.held_micros) problems.push("ledger held ≠ balance");
      if (sums.chargedMicros !== balance.charged_micros) problems.push("ledger charged ≠ balance");
      if (Number(runs.price ?? 0) !== balance.held_micros)
        problems.push(`held ${balance.held_micros} µ$ ≠ prices of queued runs ${Number(runs.price ?? 0)} µ$`);
      return { runs: Number(runs.n), problems };
    });
  } finally {
    await store.close();
  }
}
