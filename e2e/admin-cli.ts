// The admin CLI as the end-to-end tests run it: bin/admin.ts bundled once per test run into one
// CommonJS file, so each call starts plain Node instead of tsx compiling the CLI's modules again;
// the API suite alone makes ~800 calls. Built by each Playwright config's global setup, from the
// sources of that moment.
import path from "node:path";
import { buildSync } from "esbuild";

const REPO_ROOT = path.resolve(__dirname, "..");

const BUNDLE_EXTERNAL = [
  "better-sqlite3",
  "sharp",
  "pg-native",
  "@ffmpeg-installer/*",
  "@echogarden/*",
  "@gltf-transform/*",
  "@aws-sdk/*",
  "ai",
  "@ai-sdk/*",
  "@fal-ai/*",
  "replicate",
  "undici",
  "ws",
  "@opentelemetry/*",
  "nodemailer",
];

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
    // Plain-JS packages go in the bundle: resolving and reading ~40 package files took a fifth of
    // each call (0.245 -> 0.19 s a call). Native modules, packages that find files beside
    // themselves, and those the CLI loads only on demand stay in node_modules.
    external: BUNDLE_EXTERNAL,
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
