// Browser tests of the studio in Debian's Chromium (never a downloaded browser) against the
// started production server on a fresh store. Run: npx playwright test --config e2e/studio/playwright.config.ts
import path from "node:path";
import { defineConfig } from "@playwright/test";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");
export const STUDIO_PORT = 3401;
export const STUDIO_DATA_DIR = path.join(REPO_ROOT, ".data-e2e", "studio");
// localhost, not 127.0.0.1: next-auth's cookies and callbacks follow PUBLIC_BASE_URL's host.
export const STUDIO_URL = `http://localhost:${STUDIO_PORT}`;
/** The SMTP server members.spec.ts starts while it invites; other specs' invitations find it closed. */
export const STUDIO_SMTP_PORT = 3396;

export default defineConfig({
  testDir: __dirname,
  testMatch: "*.spec.ts",
  // Bundles the admin CLI the tests call (e2e/admin-cli.ts).
  globalSetup: require.resolve("../admin-cli"),
  outputDir: `${REPO_ROOT}/test-results/e2e-studio`,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  timeout: 60_000,
  // A 2-core CI machine builds media while the browser waits: give assertions room to settle.
  expect: { timeout: 10_000 },
  use: {
    baseURL: STUDIO_URL,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
    viewport: { width: 1280, height: 800 },
    // As a visitor who asked for less motion: the studio's pulses and spinners hold still. A page
    // that animates keeps software-rendering Chromium painting (a tenth of a core per open page).
    contextOptions: { reducedMotion: "reduce" },
  },
  webServer: {
    // The production bundle, as `npm start` runs it, built from the sources of this moment (webServer
    // starts before globalSetup); the specs that start servers of their own run it too.
    command: `rm -rf ${STUDIO_DATA_DIR} && npx tsx scripts/server-bundle.ts && exec node dist/server.cjs`,
    cwd: REPO_ROOT,
    url: `${STUDIO_URL}/v1/public/models`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(STUDIO_PORT),
      DATA_DIR: STUDIO_DATA_DIR,
      DATABASE_URL: "",
      PUBLIC_BASE_URL: "",
      LOG_LEVEL: "warn",
      WORKER_CONCURRENCY: "2",
      // Every test signs in from 127.0.0.1: the per-IP sign-in limit would be the whole suite's.
      // The per-email limit (fixed) is what sessions.spec.ts runs into.
      SIGN_IN_LIMIT_IP_PER_MIN: "100000",
      WEBHOOK_ALLOW_INSECURE: "1",
      SMTP_URL: `smtp://127.0.0.1:${STUDIO_SMTP_PORT}`,
      SMTP_FROM: "Atelier studio tests <studio@example.com>",
      // Prompts with these words fail their run: a failed run the tests can make on purpose.
      MODERATION_BLOCKLIST: "zebracorn,quokkaroo",
      // Switches on the GitHub button; the test stops the browser at GitHub's door.
      AUTH_GITHUB_ID: "studio-test-client",
      AUTH_GITHUB_SECRET: "studio-test-secret",
    },
  },
});
