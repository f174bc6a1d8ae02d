// For tests: the real media every provider fake answers with (the ComfyUI, AI SDK, Replicate and
// fal fakes, and the tests that check their bytes): PNGs drawn by sharp, WAV written by hand,
// H.264 MP4, MP3 and other sounds encoded by ffmpeg, the system's when on PATH, else the one npm
// ships, and glTF binaries written by the built-in 3D models' own writer. (It runs ffmpeg itself
// and must stay free of import.meta: the API tests load the fakes in the Playwright process as
// CommonJS, which cannot load lib/media/ffmpeg.ts; @gltf-transform/core ships a CommonJS build.)
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import bundledFfmpeg from "@ffmpeg-installer/ffmpeg";
import sharp from "sharp";
import { encodeWav } from "../../models/audio/wav";
import { writeGlb } from "../../models/three-d/glb/glb";
import { roundedBox, sphere } from "../../models/three-d/primitives";
import type { Part } from "../../models/three-d/scene";

/** The system's ffmpeg (with libx264) when on PATH, else the one npm ships. */
export function findFfmpeg(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    try {
      accessSync(path.join(dir, "ffmpeg"), constants.X_OK);
      return path.join(dir, "ffmpeg");
    } catch {
      // not here
    }
  }
  return bundledFfmpeg.path;
}

/** Runs ffmpeg (`stdin` piped in when given) and resolves with its stdout. */
export function runFfmpeg(ffmpegPath: string, args: string[], stdin?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, ["-hide_banner", ...(stdin ? [] : ["-nostdin"]), ...args], {
      stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited with code ${code}: ${err.trim()}`)),
    );
    if (stdin) {
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(stdin);
    }
  });
}

/** What ffmpeg writes to a file `out.<ext>` with `args` (input and encoding), read back. */
export async function ffmpegFile(ffmpegPath: string, ext: string, args: string[]): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "atelier-fake-media-"));
  try {
    const out = path.join(dir, `out.${ext}`);
    await runFfmpeg(ffmpegPath, ["-v", "error", ...args, "-y", out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** FNV-1a of `text`: the seed of a fake's colours and tones. */
export function textHash(text: string): number {
  let hash = 2166136261;
  for (const c of text) hash = Math.imul(hash ^ c.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

/** A real PNG whose two halves take their colours from `text`, so different prompts differ. */
export async function fakePng(width: number, height: number, text: string): Promise<Buffer> {
  const hash = textHash(text);
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const shift = i % width < width / 2 ? 0 : 8;
    raw.set([(hash >>> shift) & 255, (hash >>> (shift + 4)) & 255, (hash >>> (shift + 16)) & 255], i * 3);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A mono 16-bit WAV: a sine of `hz` for `seconds`. */
export function fakeWav(seconds: number, hz = 440, sampleRate = 16_000): Buffer {
  const samples = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < samples.length; i++) samples[i] = 0.4 * Math.sin((2 * Math.PI * hz * i) / sampleRate);
  return encodeWav([samples], sampleRate);
}

const cache = new Map<string, Promise<Buffer>>();

/** Makes `key`'s bytes once per process (a failure is not kept). */
function once(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
  let made = cache.get(key);
  if (!made) {
    made = make();
    made.catch(() => cache.delete(key));
    cache.set(key, made);
  }
  return made;
}

export interface FakeVideo {
  width: number;
  height: number;
  fps: number;
  seconds: number;
  /** ffmpeg's test pattern: testsrc (the default) or testsrc2. */
  pattern?: "testsrc" | "testsrc2";
  ffmpegPath?: string;
}

/** An H.264 MP4 of ffmpeg's test pattern (made once per process for each shape). */
export function fakeMp4(video: FakeVideo): Promise<Buffer> {
  const { width, height, fps, seconds, pattern = "testsrc", ffmpegPath = findFfmpeg() } = video;
  const source = `${pattern}=size=${width}x${height}:rate=${fps}:duration=${seconds}`;
  return once(`mp4:${ffmpegPath}:${source}`, () =>
    ffmpegFile(ffmpegPath, "mp4", [
      "-f",
      "lavfi",
      "-i",
      source,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-movflags",
      "+faststart",
    ]),
  );
}

/** An MP3 of a one-second tone (made once per process). */
export function fakeMp3(ffmpegPath = findFfmpeg()): Promise<Buffer> {
  return once(`mp3:${ffmpegPath}`, () =>
    runFfmpeg(
      ffmpegPath,
      ["-v", "error", "-f", "wav", "-i", "pipe:0", "-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3", "pipe:1"],
      fakeWav(1),
    ),
  );
}

/** Vertices and triangles of every fakeGlb, and its world-space box (metres): a 0.8×0.5×0.6 box, a 0.2 m ball on it. */
export const FAKE_GLB = { vertices: 369, triangles: 524, bounding_box: { min: [-0.4, 0, -0.3], max: [0.4, 0.9, 0.3] } };

/** A glTF binary of a rounded box with a ball on it (two nodes), coloured from `seed`. */
export function fakeGlb(seed: string): Promise<Buffer> {
  const hash = textHash(seed);
  const channel = (shift: number) => (((hash >>> shift) & 255) / 255) * 0.7 + 0.1;
  const box = {
    name: "box",
    color: [channel(0), channel(8), channel(16), 1] as [number, number, number, number],
    metallic: 0,
    roughness: 0.5,
    blend: false,
  };
  const ball = {
    name: "ball",
    color: [0.8, 0.78, 0.74, 1] as [number, number, number, number],
    metallic: 1,
    roughness: 0.3,
    blend: false,
  };
  const detail = { radial: 16, arc: 3 };
  const parts: Part[] = [
    {
      name: "box",
      translation: [0, 0, 0],
      primitives: [{ geometry: roundedBox([0.8, 0.5, 0.6], 0.06, detail), material: box }],
    },
    { name: "ball", translation: [0, 0.5, 0], primitives: [{ geometry: sphere(0.2, detail), material: ball }] },
  ];
  return once(`glb:${hash}`, () => writeGlb(parts));
}

export type FakeModality = "image" | "video" | "audio" | "3d";

/** One output of `modality` as bytes, its type and file extension: a 64×48 PNG, a 64×48 1 s MP4, a 1 s WAV, a glb (fakeGlb). */
export async function fakeMedia(
  modality: FakeModality,
  seed: string,
  size = { width: 64, height: 48 },
): Promise<{ data: Buffer; type: string; ext: string }> {
  if (modality === "image")
    return { data: await fakePng(size.width, size.height, seed), type: "image/png", ext: "png" };
  if (modality === "video")
    return { data: await fakeMp4({ width: 64, height: 48, fps: 10, seconds: 1 }), type: "video/mp4", ext: "mp4" };
  if (modality === "3d") return { data: await fakeGlb(seed), type: "model/gltf-binary", ext: "glb" };
  return { data: fakeWav(1), type: "audio/wav", ext: "wav" };
}
