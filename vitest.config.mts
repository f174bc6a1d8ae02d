// Vitest: unit and store tests sit beside their code as *.test.ts (docs/contributing.md, "Tests").
// Store tests run on the embedded SQLite file by default and on PostgreSQL when
// STORE_TEST_DATABASE_URL is set (see lib/store/testing/test-store.ts). The black-box tests under e2e/
// belong to Playwright.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "api/**/*.test.ts", "sdk/**/*.test.ts", "components/**/*.test.ts"],
    exclude: ["e2e/**", "**/node_modules/**", ".next/**"],
    // better-sqlite3 and sharp are native modules: child processes, not worker threads.
    pool: "forks",
    setupFiles: ["lib/testing/setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
