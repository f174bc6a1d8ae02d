// Every relative link in README.md and docs/ must lead somewhere: the file exists, and a
// #fragment names a heading of that page (GitHub's anchors). Part of `npm run lint`.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file) {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  const seen = new Map();
  const anchors = new Set();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const problems = [];
for (const page of pages) {
  const text = readFileSync(path.join(root, page), "utf8").replace(/```[\s\S]*?```/g, "");
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
    const [file, fragment] = target.split("#", 2);
    const resolved =
      file === "" ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(file));
    if (!resolved.startsWith(root + path.sep)) problems.push(`${page}: ${target} leaves the repository`);
    else if (!existsSync(resolved)) problems.push(`${page}: ${target} does not exist`);
    else if (
      fragment !== undefined &&
      statSync(resolved).isFile() &&
      resolved.endsWith(".md") &&
      !anchorsOf(resolved).has(fragment)
    ) {
      problems.push(`${page}: ${target} names no heading of ${path.relative(root, resolved)}`);
    }
  }
}
if (problems.length > 0) {
  console.error(`Broken documentation links:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`Documentation links: ${pages.length} pages, every relative link resolves.`);
