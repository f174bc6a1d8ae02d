// A child process that runs one exported function of a module of ours, for background work whose
// memory must go back to the system when it ends: what a worker thread allocated stays in our
// process's malloc arenas (the catalog pictures' thread left ~80 MB resident behind it). Started
// as lib/boot/module-thread.ts starts a thread: under tsx the child registers tsx's loader and
// requires the module; from the production bundle it runs the entry's own bundle
// (dist/threads/<entry>.cjs). The function reads its data and talks with moduleProcessPort().
import { spawn, type ChildProcess } from "node:child_process";
import { moduleEntryOf } from "./module-thread";

/** The environment variable that carries the data to the child. */
const DATA_VARIABLE = "ATELIER_MODULE_PROCESS_DATA";

// Plain JavaScript: the child evaluates it before any loader is there.
const PROCESS_SOURCE = `
const start = JSON.parse(process.env.${DATA_VARIABLE}).start;
require(start.loader).register();
require(start.module)[start.entry]();
`;

/** The parent's side: messages both ways, and an end. */
export interface ModuleProcess {
  readonly pid: number | undefined;
  on(event: "message", listener: (message: unknown) => void): void;
  on(event: "error", listener: (err: Error) => void): void;
  on(event: "exit", listener: () => void): void;
  postMessage(message: unknown): void;
  /** Whether the child keeps this process alive. */
  ref(): void;
  unref(): void;
  /** Ends the child and resolves once it has exited. */
  terminate(): Promise<void>;
}

/** `modulePath`: the caller's `__filename`. */
export function startModuleProcess(modulePath: string, entry: string, data: object): ModuleProcess {
  const found = moduleEntryOf(modulePath, entry);
  const start = "bundle" in found ? null : found;
  const args = "bundle" in found ? [found.bundle] : ["-e", PROCESS_SOURCE];
  const child: ChildProcess = spawn(process.execPath, args, {
    // Its output is the server's: a model's warning reaches the same log.
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [DATA_VARIABLE]: JSON.stringify({ data, start }) },
    // Structured clone, as a thread's messages.
    serialization: "advanced",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid,
    on(event: "message" | "error" | "exit", listener: (arg: never) => void) {
      child.on(event, listener as (arg: unknown) => void);
    },
    postMessage(message) {
      if (child.connected) child.send(message as object);
    },
    ref() {
      child.ref();
      child.channel?.ref();
    },
    unref() {
      child.unref();
      child.channel?.unref();
    },
    async terminate() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The child's side: the data its parent gave, and messages both ways. */
export function moduleProcessPort(): {
  data: unknown;
  on(listener: (message: unknown) => void): void;
  post(message: unknown): void;
} {
  const raw = process.env[DATA_VARIABLE];
  if (!raw || !process.send) throw new Error("moduleProcessPort runs in a process started by startModuleProcess");
  const send = process.send.bind(process);
  // A parent that goes away (killed, crashed) takes its background work with it.
  process.once("disconnect", () => process.exit(0));
  return {
    data: (JSON.parse(raw) as { data: unknown }).data,
    on: (listener) => process.on("message", listener),
    post: (message) => void send(message as object),
  };
}
