// Black-box API tests over HTTP against the started production server (no browser).
// Run: npx playwright test --config e2e/api/playwright.config.ts
// Needs the Next build (NEXT_TELEMETRY_DISABLED=1 npx next build) to exist.
import { defineConfig } from "@playwright/test";
import { REPO_ROOT, SERVERS } from "./servers";

export default defineConfig({
  testDir: __dirname,
  testMatch: "*.spec.ts",
  // Bundles the admin CLI the tests call, then starts the bucket and the servers of SERVERS side by
  // side (global-setup.ts): Playwright's webServer entries start one after another.
  globalSetup: require.resolve("./global-setup"),
  outputDir: `${REPO_ROOT}/test-results/e2e-api`,
  // Three on a 2-core machine: with two, the cores sat 40 % idle through the middle of the suite
  // while tests waited on timers (leases, retry schedules, outages); 278 s -> 236 s here.
  workers: 3,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  // 60 s, as the studio suite: on a 2-core machine running at half its usual speed (seen in CI),
  // tests that make many CLI calls on PostgreSQL took 30 to 32 s.
  timeout: 60_000,
  use: {
    baseURL: SERVERS.main.baseURL,
  },
});
