// Starts the API suite's servers side by side. Playwright starts the entries of `webServer` one
// after another, each waiting for the last to answer: eleven servers took 42 s before the first
// test. Started together they are ready in the time of the slowest beside the others.
import { spawn, type ChildProcess } from "node:child_process";

export interface ServerProcess {
  name: string;
  /** A shell command; it runs in a process group of its own, killed whole at the end. */
  command: string;
  cwd: string;
  env?: Record<string, string>;
  /** Ready once a GET of it answers below 500 (as Playwright's webServer waits). */
  url: string;
  timeoutMs?: number;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status < 500;
  } catch {
    return false;
  }
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  return exited;
}

async function startOne(spec: ServerProcess, started: ChildProcess[]): Promise<void> {
  if (await answers(spec.url)) {
    throw new Error(`${spec.name}: something already answers at ${spec.url}; stop it first (or wait for the e2e lock)`);
  }
  const child = spawn("bash", ["-c", spec.command], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  started.push(child);
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    stderrTail = (stderrTail + text).slice(-4_000);
    process.stderr.write(text.replace(/^(?=.)/gm, `[${spec.name}] `));
  });
  const deadline = Date.now() + (spec.timeoutMs ?? 120_000);
  while (!(await answers(spec.url))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${stderrTail}`);
    }
    if (Date.now() > deadline) throw new Error(`${spec.name} did not answer ${spec.url} in time:\n${stderrTail}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts every server at once and waits for all; returns what stops them (a global teardown). */
export async function startServers(specs: ServerProcess[]): Promise<() => Promise<void>> {
  const started: ChildProcess[] = [];
  const stopAll = async () => {
    await Promise.all(started.map(stopGroup));
  };
  try {
    await Promise.all(specs.map((spec) => startOne(spec, started)));
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
