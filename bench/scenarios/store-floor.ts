// The store floor: the create transaction itself (the idempotency record when a key is sent, the
// hold with its ledger entry, the queued run row) in a tight loop in the bench process, against
// the same kind of store the server uses, with no HTTP, validation, pricing or answer around it.
// POST /v1/generations is measured against this.
import { createServices, installCatalog } from "../../lib/boot/boot";
import { loadConfig } from "../../lib/boot/config";
import { SCOPES, type Ctx } from "../../lib/core/context";
import { startIdempotently, LANES, writeQueuedRun } from "../../lib/core/runs/generations";
import { priceRunRequest } from "../../lib/core/runs/quotes";
import { openStore } from "../../lib/store/store";
import type { BenchSettings } from "../lib/context";
import type { ServerHandle } from "../lib/server";

export interface StoreFloor {
  /** Transactions a second. */
  rps: number;
  n: number;
}

export async function measureStoreFloor(
  settings: BenchSettings,
  server: ServerHandle,
  workspaceId: string,
  body: unknown,
  options: { idempotencyKeys: boolean },
): Promise<StoreFloor> {
  const store = openStore({ databaseUrl: server.store.databaseUrl || null, dataDir: server.store.dataDir });
  try {
    const config = loadConfig({
      DATA_DIR: server.store.dataDir,
      DATABASE_URL: server.store.databaseUrl,
      LOG_LEVEL: "silent",
      PATH: process.env.PATH,
    });
    // The catalog holds what boot puts in it (the built-in models), as in the server.
    installCatalog(config);
    const ctx: Ctx = {
      db: store.db,
      workspaceId,
      actor: { kind: "api_key", id: "key_bench" },
      scopes: [...SCOPES],
      source: "api",
      services: createServices(config),
    };
    const priced = await priceRunRequest(ctx, body);
    let n = 0;
    const once = () =>
      startIdempotently(
        ctx,
        {
          key: options.idempotencyKeys ? `store-floor-${n}-${Date.now()}` : null,
          endpoint: "generations",
          body,
          resource: "generation",
        },
        async () => priced,
        (db, p, runId, now) => writeQueuedRun(db, ctx, p, runId, now, LANES.bulk),
      );
    const run = async (seconds: number): Promise<number> => {
      const until = performance.now() + seconds * 1000;
      let done = 0;
      while (performance.now() < until) {
        await once();
        n += 1;
        done += 1;
      }
      return done;
    };
    if (settings.warmup > 0) await run(settings.warmup);
    const started = performance.now();
    const done = await run(settings.seconds);
    return { rps: (done * 1000) / (performance.now() - started), n };
  } finally {
    await store.close();
  }
}
