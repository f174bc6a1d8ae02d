// The npm registry this project installs from holds only the Linux builds of
// packages that ship native binaries per platform (@next/swc-*, @tailwindcss/oxide-*,
// …), so `npm install` writes a lockfile without the other platforms' entries and
// `npm ci` then refuses it as out of sync. This adds those entries back, marked
// optional and fenced by os/cpu, so `npm ci` accepts the lockfile and skips them.
// Run it after every `npm install` that changes package-lock.json.
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, "utf8"));
const packages = lock.packages;

const OS = ["darwin", "linux", "win32", "freebsd", "android", "openbsd", "sunos", "aix", "netbsd"];
const CPU = ["arm64", "x64", "ia32", "arm", "wasm32", "ppc64", "s390x", "riscv64", "loong64", "mips64el"];

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!cpu) return null;
  return { os, cpu };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) throw new Error(`${dep} (optional dependency of ${path}) is missing and names no platform`);
    if (platform.os === "linux" && platform.cpu === "x64") {
      throw new Error(`${dep} is missing but is the platform this project runs on`);
    }
    packages[hoisted] = {
      version,
      cpu: [platform.cpu],
      ...(platform.os ? { os: [platform.os] } : {}),
      optional: true,
      ...(entry.dev ? { dev: true } : {}),
    };
    added += 1;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platform-stubs: added ${added} entries`);
