import { accessSync, constants } from "node:fs";
import path from "node:path";

// Where built-in models look for the programs they run as separate processes (espeak-ng): the
// PATH that lib/boot/config.ts read, set once at start (lib/boot/boot.ts) and by the Vitest setup file.
let searchPath = "";

export function setProgramSearchPath(value: string): void {
  searchPath = value;
}

export function programSearchPath(): string {
  return searchPath;
}

/** The first executable `name` in a directory of `searchPath` (a PATH), or null when there is none. */
export function findProgram(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}
