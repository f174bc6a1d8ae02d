// How an API test server of SERVERS starts on a fresh store: by the global setup for most, by
// the one spec file that uses it for those marked `startedBySpec` (they would otherwise idle
// through the whole suite; rate-limits.spec.ts and runs-workers.spec.ts start theirs).
import { test } from "@playwright/test";
import { startServers, type ServerProcess } from "../server-processes";
import { PG_SERVER_URL, REPO_ROOT, serverEnv, type ServerSpec } from "./servers";

/** A fresh store for each start: a new data dir, and for PostgreSQL a new database. */
function startCommand(spec: ServerSpec): string {
  const fresh = [`rm -rf .data-e2e/${spec.name}`];
  if (spec.pgDatabase) {
    const db = spec.pgDatabase;
    fresh.push(
      `PGOPTIONS=--client-min-messages=warning psql "${PG_SERVER_URL}/postgres" -q -v ON_ERROR_STOP=1 -c 'DROP DATABASE IF EXISTS ${db} WITH (FORCE)' -c 'CREATE DATABASE ${db}'`,
    );
  }
  return [...fresh, "node --import tsx server.ts"].join(" && ");
}

export function serverProcess(spec: ServerSpec): ServerProcess {
  return {
    name: spec.name,
    command: startCommand(spec),
    cwd: REPO_ROOT,
    env: serverEnv(spec),
    url: `${spec.baseURL}/v1/public/models`,
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
