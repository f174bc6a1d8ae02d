// Black-box API tests over HTTP against the started production server (no browser).
// Run: npx playwright test --config e2e/api/playwright.config.ts
// Needs the Next build (NEXT_TELEMETRY_DISABLED=1 npx next build) to exist.
import { defineConfig } from "@playwright/test";
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
  return [...fresh, "npx tsx server.ts"].join(" && ");
}

export default defineConfig({
  testDir: __dirname,
  testMatch: "*.spec.ts",
  // Bundles the admin CLI the tests call (e2e/admin-cli.ts).
  globalSetup: require.resolve("../admin-cli"),
  outputDir: `${REPO_ROOT}/test-results/e2e-api`,
  workers: 2,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  timeout: 30_000,
  use: {
    baseURL: SERVERS.main.baseURL,
  },
  webServer: [
    // The bucket first: the PostgreSQL runs servers keep their files and outputs in it.
    {
      command: `npx tsx lib/blobs/testing/test-s3-server.ts --port ${TEST_S3.port} --dir ${TEST_S3.dataDir} --bucket ${TEST_S3.bucket}`,
      cwd: REPO_ROOT,
      url: `${TEST_S3.endpoint}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore" as const,
      stderr: "pipe" as const,
    },
    ...Object.values(SERVERS).map((spec) => ({
      command: startCommand(spec),
      cwd: REPO_ROOT,
      url: `${spec.baseURL}/v1/public/models`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: "ignore" as const,
      stderr: "pipe" as const,
      env: serverEnv(spec),
    })),
  ],
});
