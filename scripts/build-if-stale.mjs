// `npm start`'s first half: build the studio and the server's bundle (dist/) when there is no
// build or the sources are newer.
// The server then replaces the shell npm started (package.json): no Node process waits beside it.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const buildId = path.join(root, ".next", "BUILD_ID");

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const sources = ["app", "components", "lib"].map((d) => newestMtime(path.join(root, d)));
const stale = !existsSync(buildId) || Math.max(...sources) > statSync(buildId).mtimeMs;
if (stale) {
  // The build's own report (routes, sizes) is for developers: a person starting Atelier sees one
  // line, and the whole report only when the build fails.
  console.log("Building the studio (first start or changed sources; about a minute on 2 cores)…");
  const started = Date.now();
  const build = spawnSync("npx", ["next", "build"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) {
    process.stdout.write(build.stdout ?? "");
    process.stderr.write(build.stderr ?? "");
    console.error(`\nThe studio build failed (exit ${build.status ?? build.signal}); its output is above.`);
    process.exit(build.status ?? 1);
  }
  console.log(`Built in ${Math.round((Date.now() - started) / 1000)} s.`);
}

// The server's bundle (scripts/server-bundle.ts): a few seconds.
const serverBundle = path.join(root, "dist", "server.cjs");
const serverSources = ["api", "app", "bin", "lib", "scripts"].map((d) => newestMtime(path.join(root, d)));
serverSources.push(
  statSync(path.join(root, "server.ts")).mtimeMs,
  statSync(path.join(root, "package-lock.json")).mtimeMs,
);
if (!existsSync(serverBundle) || Math.max(...serverSources) > statSync(serverBundle).mtimeMs) {
  const bundle = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "server-bundle.ts")], {
    cwd: root,
    stdio: "inherit",
  });
  if (bundle.status !== 0) {
    console.error(`\nBundling the server failed (exit ${bundle.status ?? bundle.signal}); its output is above.`);
    process.exit(bundle.status ?? 1);
  }
}
