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
    // Vitest's default on a 2-core machine is one fork, which left a core idle while tests waited
    // on the store. Test files keep no state between them (a store of their own, models installed
    // by setupFiles), so a fork runs file after file without re-importing the code for each:
    // npm test's SQLite pass went from 140 s to 56 s, PostgreSQL's from 85 s to 32 s.
    maxWorkers: 2,
    isolate: false,
    setupFiles: ["lib/testing/setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
