// The admin CLI as the end-to-end tests run it: bin/admin.ts bundled once per test run into one
// CommonJS file, so each call starts plain Node instead of tsx compiling the CLI's modules again;
// the API suite alone makes ~800 calls. Built by each Playwright config's global setup, from the
// sources of that moment.
import path from "node:path";
import { bundleNodeProgram, REPO_ROOT } from "../scripts/node-bundle";

/** What to run with `process.execPath`: the bundled CLI. */
export const ADMIN_CLI = path.join(REPO_ROOT, ".test-build", "admin.cjs");

export function buildAdminCli(): void {
  bundleNodeProgram({ entry: "bin/admin.ts", outfile: ADMIN_CLI });
}

/** Playwright's globalSetup. */
export default function globalSetup(): void {
  buildAdminCli();
}
