// The production server as bundles (scripts/node-bundle.ts): dist/server.cjs, what `npm start`,
// `npm run serve` and the image run, and beside it one bundle per thread it starts
// (lib/boot/module-thread.ts). Under tsx the server held ~46 MB more: tsx's hooks, and the source
// map Node keeps of each of our modules once tsx turns maps on. Next.js, React and the studio's
// own build (.next) stay where they are. Run: npx tsx scripts/server-bundle.ts
import path from "node:path";
import { bundleNodeProgram, REPO_ROOT } from "./node-bundle";

export const SERVER_BUNDLE = path.join(REPO_ROOT, "dist", "server.cjs");

/** The threads' modules and entries: the studio's renders, the catalog cards' pictures. */
const THREADS = [
  { module: "bin/studio-thread.ts", entry: "serveStudio" },
  { module: "lib/boot/example-picture-process.ts", entry: "serveExamplePictures" },
];

// Next loads its own files and its build's chunks from node_modules and .next.
const NEXT_EXTERNAL = ["next", "next/*", "react", "react-dom", "react/*", "react-dom/*"];

export function buildServerBundle(): void {
  bundleNodeProgram({ entry: "server.ts", outfile: SERVER_BUNDLE, external: NEXT_EXTERNAL });
  for (const thread of THREADS) {
    bundleNodeProgram({
      source: `require(${JSON.stringify(`./${thread.module}`)}).${thread.entry}();`,
      outfile: path.join(path.dirname(SERVER_BUNDLE), "threads", `${thread.entry}.cjs`),
      external: NEXT_EXTERNAL,
    });
  }
}

if (require.main === module) buildServerBundle();
