// How an API test server of SERVERS starts on a fresh store: by the global setup for most, by
// the one spec file that uses it for those marked `startedBySpec` (they would otherwise idle
// through the whole suite; rate-limits.spec.ts and runs-workers.spec.ts start theirs).
import { rmSync } from "node:fs";
import { test } from "@playwright/test";
import { startServers, type ServerProcess } from "../server-processes";
import { resetPgDatabase, serverEnv, type ServerSpec } from "./servers";

/** server.ts for `spec`, on a fresh store: a new data dir and, for PostgreSQL, a new database. */
export function serverProcess(spec: ServerSpec): ServerProcess {
  return {
    name: spec.name,
    args: ["server.ts"],
    env: serverEnv(spec),
    url: `${spec.baseURL}/v1/public/models`,
    prepare: async () => {
      rmSync(spec.dataDir, { recursive: true, force: true });
      if (spec.pgDatabase) await resetPgDatabase(spec.pgDatabase);
    },
  };
}

/** In a spec file: starts `specs` before its first test and stops them after its last. */
export function serversOfThisFile(...specs: ServerSpec[]): void {
  let stop: (() => Promise<void>) | undefined;
  test.beforeAll(async () => {
    // Beside the other workers' tests a start takes seconds, not the hook's usual budget.
    test.setTimeout(120_000);
    stop = await startServers(specs.map(serverProcess));
  });
  test.afterAll(async () => {
    await stop?.();
  });
}
