// What the video models share: sizes and fields, a temp directory that never outlives the run,
// the H.264 encode settings and the poster still.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Sharp } from "sharp";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { ASPECT_RATIOS, type AspectRatio } from "../common/fields";
import type { VideoOutput } from "../../core/catalog/model-definition";

/** "720p" is the short side, as people know it from players: 1280×720 at 16:9, 720×1280 at 9:16. */
export const RESOLUTIONS = { "480p": 480, "720p": 720 } as const;
export type Resolution = keyof typeof RESOLUTIONS;

export const RESOLUTION_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Resolution",
  description: "Height of a landscape video (the short side): 720p is 1280×720 at 16:9, 480p is 854×480.",
  enum: Object.keys(RESOLUTIONS),
  default: "720p",
};

export const FPS_FIELD: JsonSchemaObject = {
  type: "integer",
  title: "Frames per second",
  description: "24 looks like film, 30 a little smoother.",
  enum: [24, 30],
  default: 24,
};

export function durationField(defaultSeconds: number): JsonSchemaObject {
  return {
    type: "integer",
    title: "Duration",
    description: "Length of the video in seconds; each second is priced.",
    minimum: 2,
    maximum: 10,
    default: defaultSeconds,
  };
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** Width and height, both even (H.264 with 4:2:0 chroma needs it). */
export function videoSize(aspectRatio: AspectRatio, resolution: Resolution): { width: number; height: number } {
  const [w, h] = ASPECT_RATIOS[aspectRatio];
  const short = RESOLUTIONS[resolution];
  return w >= h ? { width: even((short * w) / h), height: short } : { width: short, height: even((short * h) / w) };
}

/** Runs `work` in a fresh directory under the OS temp dir and removes it afterwards, also on failure or cancel. */
export async function withTempDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `atelier-${prefix}-`));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Output arguments for a browser-friendly MP4: H.264 High, 4:2:0, BT.709 tagged (the filter graph
 * converts with that matrix), moov atom first so playback starts while loading.
 * Same frames → same bytes (seeds promise it): a fixed thread count, bitexact muxing, and no
 * threaded lookahead — with it, x264 on two threads now and then encodes identical frames
 * differently; frame threads alone are deterministic.
 */
export function h264OutputArgs(file: string, frames: number): string[] {
  return [
    "-frames:v",
    String(frames),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "19",
    "-pix_fmt",
    "yuv420p",
    "-colorspace",
    "bt709",
    "-color_primaries",
    "bt709",
    "-color_trc",
    "bt709",
    "-color_range",
    "tv",
    "-threads",
    "2",
    "-x264-params",
    "sync-lookahead=0",
    "-map_metadata",
    "-1",
    "-fflags",
    "+bitexact",
    "-flags:v",
    "+bitexact",
    "-movflags",
    "+faststart",
    "-an",
    "-y",
    file,
  ];
}

/** The filter that turns RGB into the tagged BT.709 limited-range YUV the encoder gets. */
export const TO_BT709 = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p";

/** The finished video output: the MP4 written to `file` and a JPEG poster from an RGB(A) still. */
export async function videoOutput(
  file: string,
  still: Sharp,
  size: { width: number; height: number; duration: number },
): Promise<VideoOutput> {
  const [data, poster] = await Promise.all([
    readFile(file),
    still.removeAlpha().jpeg({ quality: 88, chromaSubsampling: "4:4:4" }).toBuffer(),
  ]);
  return {
    type: "video",
    content_type: "video/mp4",
    data,
    width: size.width,
    height: size.height,
    duration: size.duration,
    poster: { content_type: "image/jpeg", data: poster, width: size.width, height: size.height },
  };
}
