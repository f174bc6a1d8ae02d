// Where built-in models look for the programs they run as separate processes (espeak-ng): the
// PATH that lib/config.ts read, set once at start (lib/boot.ts) and by the Vitest setup file.
let searchPath = "";

export function setProgramSearchPath(path: string): void {
  searchPath = path;
}

export function programSearchPath(): string {
  return searchPath;
}
