// Keeps this machine's better-sqlite3 build where the package's installer looks first, so that the
// next `npm ci` unpacks it instead of compiling SQLite again (~65 s of CI's 20 minutes).
//
// better-sqlite3 installs with `prebuild-install || node-gyp rebuild`. prebuild-install would
// download a prebuilt binary from GitHub, which these machines cannot reach, but it first looks in
// its cache in npm's (~/.npm/_prebuilds) under a name made from that download's address. This
// script asks prebuild-install itself for the address and the name, and packs the compiled
// binary the way a release carries it (build/Release/better_sqlite3.node). Run by .ci/run after
// `npm ci`; it does nothing when the cache already holds this version for this Node.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

const packageDir = path.dirname(require.resolve("better-sqlite3/package.json"));
const installerDir = path.dirname(require.resolve("prebuild-install/package.json", { paths: [packageDir] }));
const util = require(path.join(installerDir, "util.js"));
const pkg = require(path.join(packageDir, "package.json"));
const options = require(path.join(installerDir, "rc.js"))(pkg);
const cached = util.cachedPrebuild(util.getDownloadUrl({ ...options, pkg }));
const binary = path.join(packageDir, "build", "Release", "better_sqlite3.node");

if (fs.existsSync(cached)) process.exit(0);
if (!fs.existsSync(binary)) {
  console.error(`keep-sqlite-build: ${binary} is missing; nothing to keep.`);
  process.exit(0);
}
fs.mkdirSync(path.dirname(cached), { recursive: true });
const partial = `${cached}.${process.pid}.partial`;
execFileSync("tar", ["-czf", partial, "-C", packageDir, "build/Release/better_sqlite3.node"]);
fs.renameSync(partial, cached);
console.log(`keep-sqlite-build: the next install unpacks ${cached}`);
