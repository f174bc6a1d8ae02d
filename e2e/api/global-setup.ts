// The API suite's global setup: the admin CLI bundled, then the S3-compatible bucket and every
// server of SERVERS started side by side on fresh stores. Returns their teardown.
import { buildAdminCli } from "../admin-cli";
import { startServers, type ServerProcess } from "../server-processes";
import { PG_SERVER_URL, REPO_ROOT, SERVERS, serverEnv, TEST_S3, type ServerSpec } from "./servers";

/** A fresh store for each run: a new data dir, and for PostgreSQL a new database. */
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

export default async function globalSetup(): Promise<() => Promise<void>> {
  buildAdminCli();
  // The bucket first: the PostgreSQL runs servers keep their files and outputs in it.
  const stopBucket = await startServers([
    {
      name: "s3",
      command: `npx tsx lib/blobs/testing/test-s3-server.ts --port ${TEST_S3.port} --dir ${TEST_S3.dataDir} --bucket ${TEST_S3.bucket}`,
      cwd: REPO_ROOT,
      url: `${TEST_S3.endpoint}/`,
      timeoutMs: 60_000,
    },
  ]);
  let stopServers: () => Promise<void>;
  try {
    stopServers = await startServers(
      Object.values(SERVERS).map((spec): ServerProcess => ({
        name: spec.name,
        command: startCommand(spec),
        cwd: REPO_ROOT,
        env: serverEnv(spec),
        url: `${spec.baseURL}/v1/public/models`,
      })),
    );
  } catch (err) {
    await stopBucket();
    throw err;
  }
  return async () => {
    await stopServers();
    await stopBucket();
  };
}
