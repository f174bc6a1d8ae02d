// Decoding and measuring video outputs in the video models' tests: ffmpeg decodes, sharp reads
// the stills, and the checks are plain pixel statistics.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { bundledFfmpegPath, runFfmpeg, systemFfmpegPath } from "../../../media/ffmpeg";
import type { ModelOutput, VideoOutput } from "../../../core/catalog/model-definition";

export const BUNDLED_FFMPEG = bundledFfmpegPath();
export const SYSTEM_FFMPEG = systemFfmpegPath(process.env.PATH ?? "");
/** The system-ffmpeg tests may skip only on a developer machine without it; CI must run them. */
export const NO_SYSTEM_FFMPEG = SYSTEM_FFMPEG === null && !process.env.CI;

export function asVideo(output: ModelOutput | undefined): VideoOutput {
  if (output?.type !== "video") throw new Error(`expected a video output, got ${output?.type}`);
  return output;
}

/** A scratch directory for decoding; `done` removes it. */
export async function scratch(): Promise<{ dir: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "atelier-video-test-"));
  return { dir, done: () => rm(dir, { recursive: true, force: true }) };
}

/** The video written to a file, for ffmpeg to read. */
export async function videoFile(dir: string, video: VideoOutput): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, video.data);
  return file;
}

/** The frame shown at `seconds`, decoded to RGB with the BT.709 matrix the encoder was told. */
export async function frameAt(
  ffmpegPath: string,
  file: string,
  seconds: number,
): Promise<{ data: Buffer; width: number; height: number }> {
  const { stdout } = await runFfmpeg(ffmpegPath, [
    "-v",
    "error",
    "-i",
    file,
    "-ss",
    seconds.toFixed(3),
    "-frames:v",
    "1",
    "-vf",
    "scale=in_color_matrix=bt709:in_range=tv,format=rgb24",
    "-f",
    "image2pipe",
    "-c:v",
    "png",
    "pipe:1",
  ]);
  const { data, info } = await sharp(stdout).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference of two same-sized RGB frames, 0–255. */
export function difference(a: { data: Buffer }, b: { data: Buffer }): number {
  if (a.data.length !== b.data.length) throw new Error("frames differ in size");
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}

/** Mean R, G, B of an RGB frame. */
export function meanColour(frame: { data: Buffer }): [number, number, number] {
  const sum = [0, 0, 0];
  for (let i = 0; i < frame.data.length; i++) sum[i % 3]! += frame.data[i]!;
  const n = frame.data.length / 3;
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

export function colourDistance(a: [number, number, number], b: [number, number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Format, size and spread of the poster: a blank still has almost no spread. */
export async function posterStats(video: VideoOutput) {
  const image = sharp(video.poster.data);
  const [meta, stats] = await Promise.all([image.metadata(), image.stats()]);
  return {
    format: meta.format,
    width: meta.width,
    height: meta.height,
    spread: Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev)),
  };
}

/** H.264 in MP4 with the index (moov) ahead of the media (mdat), so playback starts while loading. */
export function isFastStart(data: Buffer): boolean {
  const moov = data.indexOf("moov");
  const mdat = data.indexOf("mdat");
  return moov > 0 && mdat > 0 && moov < mdat;
}

/** Runs `work` with TMPDIR pointed at a fresh directory and returns what is left in it afterwards. */
export async function leftoversAfter(work: () => Promise<unknown>): Promise<string[]> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "atelier-tmpdir-"));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    await work();
    return await readdir(tmp);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Resolves once a directory whose name starts with `prefix` exists in TMPDIR (a run got that far), or after 15 s. */
export async function tempDirAppears(prefix: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if ((await readdir(os.tmpdir())).some((name) => name.startsWith(prefix))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
