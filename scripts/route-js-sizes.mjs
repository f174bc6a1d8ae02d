// The JavaScript each studio route loads first, gzipped, from the last `next build`: Next 16's
// build no longer prints first-load sizes. A route's first load is the shell (Next's root main
// files) plus the chunks of its layouts, error and not-found boundaries and page; "own" is what
// the page's entry adds beyond its layouts'. Usage: node scripts/route-js-sizes.mjs
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const dir = ".next";
const gz = new Map();
const size = (file) => {
  if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(`${dir}/${file}`), { level: 9 }).length);
  return gz.get(file);
};
const sum = (files) => [...files].reduce((n, f) => n + size(f), 0);
const kB = (n) => (n / 1000).toFixed(1).padStart(7);

const shell = new Set(JSON.parse(readFileSync(`${dir}/build-manifest.json`, "utf8")).rootMainFiles);
globalThis.self = globalThis;
const rows = [];
const manifests = readdirSync(`${dir}/server/app`, { recursive: true })
  .filter((f) => f.endsWith("page_client-reference-manifest.js"))
  .sort();
for (const name of manifests) {
  const file = `${dir}/server/app/${name}`;
  globalThis.__RSC_MANIFEST = {};
  new Function(readFileSync(file, "utf8"))();
  for (const [route, manifest] of Object.entries(globalThis.__RSC_MANIFEST)) {
    const entries = Object.entries(manifest.entryJSFiles);
    const all = new Set([...shell, ...entries.flatMap(([, files]) => files)]);
    const page = entries.find(([name]) => name.endsWith(route.replace(/^\//, "")))?.[1] ?? [];
    const others = new Set(entries.filter(([name]) => !name.endsWith(route.replace(/^\//, ""))).flatMap(([, f]) => f));
    const own = new Set(page.filter((f) => !others.has(f) && !shell.has(f)));
    rows.push([route.replace(/\/page$/, "") || "/", sum(all), sum(own)]);
  }
}
console.log(`${"route".padEnd(40)} first load kB (gz)   page's own kB (gz)`);
for (const [route, first, own] of rows) console.log(`${route.padEnd(40)} ${kB(first)}             ${kB(own)}`);
