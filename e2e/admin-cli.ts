// The admin CLI as the end-to-end tests run it: bin/admin.ts bundled once per test run into one
// CommonJS file (packages stay in node_modules), so each call starts plain Node (~0.3 s) instead
// of tsx compiling the CLI's modules again (~0.7 s); the suites make hundreds of calls. Built by
// each Playwright config's global setup, from the sources of that moment.
import path from "node:path";
import { buildSync } from "esbuild";

const REPO_ROOT = path.resolve(__dirname, "..");

/** What to run with `process.execPath`: the bundled CLI. */
export const ADMIN_CLI = path.join(REPO_ROOT, ".test-build", "admin.cjs");

export function buildAdminCli(): void {
  buildSync({
    entryPoints: [path.join(REPO_ROOT, "bin", "admin.ts")],
    outfile: ADMIN_CLI,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    packages: "external",
    tsconfig: path.join(REPO_ROOT, "tsconfig.json"),
    logLevel: "error",
    // import.meta.url (the ffmpeg and font lookups) as the bundle's own file URL.
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { "import.meta.url": "__importMetaUrl" },
  });
}

/** Playwright's globalSetup. */
export default function globalSetup(): void {
  buildAdminCli();
}
