// One of our Node programs as one CommonJS file: plain Node loads it, instead of tsx compiling
// and Node resolving ~1,000 modules of ours at each start. The production server
// (scripts/server-bundle.ts) and the admin CLI the tests call (e2e/admin-cli.ts) are built so.
import path from "node:path";
import { buildSync } from "esbuild";

export const REPO_ROOT = path.resolve(__dirname, "..");

/**
 * Left in node_modules: native modules, packages that find files beside themselves, and packages
 * loaded only on demand (the AI SDK's providers, the S3 client, OpenTelemetry): bundled, each
 * would be parsed at every start whether used or not.
 */
const EXTERNAL = [
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

/** `entry`: a file of the repository; or `source`, a few lines of JavaScript resolved from its root. */
export function bundleNodeProgram(
  options: ({ entry: string } | { source: string }) & { outfile: string; external?: string[] },
): void {
  buildSync({
    ...("entry" in options
      ? { entryPoints: [path.join(REPO_ROOT, options.entry)] }
      : { stdin: { contents: options.source, resolveDir: REPO_ROOT, loader: "js" } }),
    outfile: options.outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // Plain-JS packages go in the bundle: resolving and reading ~40 package files took a fifth of
    // each admin call (0.245 -> 0.19 s a call).
    external: [...EXTERNAL, ...(options.external ?? [])],
    tsconfig: path.join(REPO_ROOT, "tsconfig.json"),
    logLevel: "error",
    // import.meta.url (the ffmpeg and font lookups) as the bundle's own file URL.
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { "import.meta.url": "__importMetaUrl" },
  });
}
