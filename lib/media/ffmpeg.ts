// Finding and running ffmpeg. The system binary (Debian's, with libx264) is preferred; a machine
// without one uses the static build that @ffmpeg-installer/ffmpeg ships inside its npm package.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { findProgram } from "./host";
import { parseFfmpegInfo, type MediaInfo } from "./probe-output";

/** The first executable `ffmpeg` on PATH, or null. */
export function systemFfmpegPath(searchPath: string): string | null {
  return findProgram("ffmpeg", searchPath);
}

/** The binary the npm package ships for this platform, or null when it has none. */
export function bundledFfmpegPath(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  } catch {
    return null;
  }
}

/** System ffmpeg on `searchPath` (PATH) when present, else the bundled one; throws when neither exists. */
export function defaultFfmpegPath(searchPath: string): string {
  const found = systemFfmpegPath(searchPath) ?? bundledFfmpegPath();
  if (!found)
    throw new Error("No ffmpeg: install the system package (apt-get install ffmpeg) or reinstall npm dependencies.");
  return found;
}

export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "FfmpegError";
  }
}

/**
 * Reads ffmpeg's `-progress` report (blocks of key=value lines, each ending with
 * `progress=continue` or `progress=end`) and calls `onSeconds` once per block with how much
 * output it has written. `out_time_us` is preferred; `out_time_ms`, which despite its name is in
 * microseconds too, is all older builds give. "N/A" and negative times (before the first frame)
 * are skipped. Chunks may split lines anywhere.
 */
export function progressReader(onSeconds: (seconds: number) => void): (chunk: Buffer | string) => void {
  let partial = "";
  let micros: number | null = null;
  return (chunk) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const [key, value = ""] = line.trim().split("=", 2);
      if (key === "out_time_us" || (key === "out_time_ms" && micros === null)) {
        const n = Number(value);
        if (value !== "" && Number.isFinite(n) && n >= 0) micros = n;
      } else if (key === "progress") {
        if (micros !== null) onSeconds(micros / 1e6);
        micros = null;
      }
    }
  };
}

/**
 * Runs ffmpeg with `args`, feeding `stdin` when given, and resolves with what it wrote to stdout.
 * The abort signal kills the process, so a canceled run stops its encoder at once.
 * `onProgress` hears how many seconds of output are written, as the encode goes (about twice a
 * second, and once at the end). The report comes on a pipe of its own (fd 3): stdout may carry
 * the output itself, and stderr's tail is the error message.
 */
export function runFfmpeg(
  ffmpegPath: string,
  args: string[],
  options: { signal?: AbortSignal; stdin?: Buffer; onProgress?: (seconds: number) => void } = {},
): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const progressArgs = options.onProgress ? ["-nostats", "-progress", "pipe:3"] : [];
    const child = spawn(
      ffmpegPath,
      ["-hide_banner", "-nostdin", ...progressArgs, ...args].filter((a) => !(options.stdin && a === "-nostdin")),
      {
        stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(options.onProgress ? (["pipe"] as const) : [])],
        signal: options.signal,
      },
    );
    if (options.onProgress) child.stdio[3]!.on("data", progressReader(options.onProgress));
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => {
      // Keep the tail only: ffmpeg's progress lines can run long.
      stderr = (stderr + chunk.toString()).slice(-16_000);
    });
    child.on("error", (err) => reject(options.signal?.aborted ? options.signal.reason : err));
    child.on("close", (code) => {
      if (options.signal?.aborted) return reject(options.signal.reason);
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr });
      else
        reject(
          new FfmpegError(
            `ffmpeg exited with code ${code}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
            stderr,
          ),
        );
    });
    if (options.stdin) {
      child.stdin!.on("error", () => {
        // ffmpeg may close stdin early on failure; the exit code tells what happened.
      });
      child.stdin!.end(options.stdin);
    }
  });
}

/** What ffmpeg reports of a media file: duration in seconds and the video size, when it has one. */
export async function probeMedia(ffmpegPath: string, file: string): Promise<MediaInfo> {
  // Decoding to null checks the bytes too, not only the container's header.
  const { stderr } = await runFfmpeg(ffmpegPath, ["-v", "info", "-i", file, "-f", "null", "-"]);
  return parseFfmpegInfo(stderr);
}
