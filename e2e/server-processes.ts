// Processes of the repository the end-to-end tests start: a TypeScript entry run by one node
// process (no npx or tsx wrapper, so the pid is the program itself and a signal reaches it), its
// stderr kept, and a wait until it answers. The API suite's global setup starts its servers side
// by side with startServers: Playwright starts `webServer` entries one after another (eleven took
// 42 s before the first test).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { SERVER_BUNDLE } from "../scripts/server-bundle";

const REPO_ROOT = path.resolve(__dirname, "..");

export interface RepoProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/**
 * Runs `args` (an entry of the repository and its arguments) with node and tsx, `env` on top of
 * this process's; server.ts runs as `npm start` runs it, its production bundle (dist/server.cjs,
 * built by the suites' setup from the sources of that moment). `echoAs` also copies its stderr
 * to ours, each line prefixed with that name.
 */
export function spawnRepoProcess(
  args: readonly string[],
  env: Record<string, string>,
  options: { echoAs?: string } = {},
): RepoProcess {
  const [entry, ...rest] = args;
  const program = entry === "server.ts" ? [SERVER_BUNDLE] : ["--import", "tsx", path.join(REPO_ROOT, entry!)];
  const child = spawn(process.execPath, [...program, ...rest], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    err += text;
    if (options.echoAs) process.stderr.write(text.replace(/^(?=.)/gm, `[${options.echoAs}] `));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, stderr: () => err };
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Resolves once a GET of `url` answers 2xx; throws, with its stderr, if `proc` exits first or time runs out. */
export async function untilAnswers(proc: RepoProcess, name: string, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await answersOk(url))) {
    const { exitCode, signalCode } = proc.child;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(`${name} exited (${exitCode ?? signalCode}) before answering:\n${proc.stderr()}`);
    }
    if (Date.now() > deadline)
      throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s:\n${proc.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGKILL, and the wait for its exit. */
export async function killRepoProcess(proc: RepoProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGKILL");
  await proc.exited;
}

export interface ServerProcess {
  name: string;
  /** An entry of the repository and its arguments. */
  args: readonly string[];
  env: Record<string, string>;
  /** Ready once a GET of it answers 2xx. */
  url: string;
  /** Readies what it needs first (a fresh store). */
  prepare?: () => Promise<void>;
}

/** Starts every server at once and waits for all; returns what stops them (a global teardown). */
export async function startServers(specs: readonly ServerProcess[]): Promise<() => Promise<void>> {
  const started: RepoProcess[] = [];
  const stopAll = async () => {
    await Promise.all(started.map(killRepoProcess));
  };
  try {
    await Promise.all(
      specs.map(async (spec) => {
        if (await answersOk(spec.url)) {
          throw new Error(`${spec.name}: something already answers at ${spec.url}; stop it (or wait for the e2e lock)`);
        }
        await spec.prepare?.();
        const proc = spawnRepoProcess(spec.args, spec.env, { echoAs: spec.name });
        started.push(proc);
        await untilAnswers(proc, spec.name, spec.url);
      }),
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
