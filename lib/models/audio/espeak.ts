// eSpeak NG, when the server has it: more languages for atelier/speech. eSpeak NG is GPL-3 and
// Atelier is Apache-2.0, so it is never linked or bundled: the server's own `espeak-ng` program is
// run as a separate child process (text on stdin, WAV on stdout).
import { spawn } from "node:child_process";
import { findProgram } from "../../media/host";
import { normalizeWav } from "./wav";

export const ESPEAK_PROGRAM = "espeak-ng";

/** The first executable `espeak-ng` on `searchPath` (a PATH), or null when it is not installed. */
export function findEspeak(searchPath: string): string | null {
  return findProgram(ESPEAK_PROGRAM, searchPath);
}

/** Runs espeak-ng and resolves with the WAV it writes, sizes fixed (it streams an open-ended header). */
export function runEspeak(program: string, args: string[], text: string, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // No shell: the text travels on stdin, so nothing in it is ever read as an option or command.
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on("error", (err) => {
      if (signal.aborted) return reject(signal.reason);
      reject(err);
    });
    child.on("close", (code) => {
      if (signal.aborted) return reject(signal.reason);
      if (code !== 0) return reject(new Error(`espeak-ng exited with code ${code}: ${stderr.trim().slice(-500)}`));
      try {
        resolve(normalizeWav(Buffer.concat(out)));
      } catch (err) {
        reject(new Error(`espeak-ng wrote no usable WAV: ${(err as Error).message}`));
      }
    });
    child.stdin.on("error", () => {
      // espeak-ng may exit before reading everything (killed on cancel); the exit tells what happened.
    });
    child.stdin.end(text, "utf8");
  });
}
