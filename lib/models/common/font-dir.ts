// Where the fonts bundled in lib/models/fonts are: beside this module when run from source (the
// server, the worker, tests), else under the working directory (inside the studio's bundle, where
// this module's own URL is a chunk's). The paths are opaque to the bundler on purpose
// (turbopackIgnore): the fonts are read at run time, not traced into the build.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let found: string | null | undefined;

/** The bundled fonts folder, or null when neither place has it. */
export function bundledFontDir(): string | null {
  if (found !== undefined) return found;
  const candidates: string[] = [];
  try {
    candidates.push(path.join(/*turbopackIgnore: true*/ path.dirname(fileURLToPath(import.meta.url)), "..", "fonts"));
  } catch {
    // import.meta.url is not a file URL inside some bundles; the working directory still works.
  }
  candidates.push(path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "models", "fonts"));
  found = candidates.find((dir) => existsSync(path.join(/*turbopackIgnore: true*/ dir, "DejaVuSans.ttf"))) ?? null;
  return found;
}

/** A bundled font's file, or null when the fonts folder is not found. */
export function bundledFontFile(file: string): string | null {
  const dir = bundledFontDir();
  return dir === null ? null : path.join(/*turbopackIgnore: true*/ dir, file);
}
