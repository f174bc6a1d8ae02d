// A provider's output bytes measured into what the engine stores: an image's size, a video's size,
// duration and poster (its first frame), a sound's duration, a 3D model's counts, bounds and
// rendered poster (a glTF binary, lib/models/three-d/glb/measure-glb.ts), and a content type read
// from the bytes, not from what the provider's header claimed. One home for every provider kind,
// so an adapter only fetches.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { probeUploadedMedia } from "../../core/files/media-probe";
import { runFfmpeg } from "../../media/ffmpeg";
import { withTempDir } from "../../models/video/encode";
import { GlbRefusal, readGlbOutput } from "../../models/three-d/glb/measure-glb";
import type { AudioOutput, Modality, ModelOutput, VideoOutput } from "../../core/catalog/model-definition";
import { imageOutputOf } from "./response-bytes";
import { ProviderError, type FetchedOutput } from "./types";

/** ffmpeg's demuxer names (UploadedMedia.container) → the type served for each family. */
const CONTAINERS: { pattern: RegExp; video: string | null; audio: string | null }[] = [
  { pattern: /\b(mov|mp4)\b/, video: "video/mp4", audio: "audio/mp4" },
  { pattern: /\b(matroska|webm)\b/, video: "video/webm", audio: "audio/webm" },
  { pattern: /\bwav\b/, video: null, audio: "audio/wav" },
  { pattern: /\bmp3\b/, video: null, audio: "audio/mpeg" },
  { pattern: /\bogg\b/, video: "video/ogg", audio: "audio/ogg" },
  { pattern: /\bflac\b/, video: null, audio: "audio/flac" },
  { pattern: /\bgif\b/, video: "image/gif", audio: null },
];

function servedType(demuxers: string, family: "video" | "audio"): string | null {
  for (const container of CONTAINERS) if (container.pattern.test(demuxers)) return container[family];
  return null;
}

interface MeasureOptions {
  providerId: string;
  ffmpegPath: string;
  signal: AbortSignal;
}

function notMedia(providerId: string, modality: Modality, detail: string): ProviderError {
  const what =
    { image: "an image", video: "a video", audio: "a sound", "3d": "a 3D model" }[modality as string] ??
    `a ${modality} output`;
  return new ProviderError(
    `The provider ${providerId} returned a result that is not ${what} Atelier serves (${detail}).`,
    false,
  );
}

async function measureTimed(
  output: FetchedOutput,
  modality: "video" | "audio",
  options: MeasureOptions,
): Promise<VideoOutput | AudioOutput> {
  return withTempDir("provider-output", async (dir) => {
    const file = path.join(dir, "output");
    await writeFile(file, output.data);
    options.signal.throwIfAborted();
    const media = await probeUploadedMedia(options.ffmpegPath, file);
    if (!media) throw notMedia(options.providerId, modality, "ffmpeg cannot read it as timed media");
    const contentType = servedType(media.container, modality);
    if (modality === "audio") {
      if (!media.hasAudio || !contentType)
        throw notMedia(options.providerId, modality, "no sound track in a format served here");
      return { type: "audio", content_type: contentType, data: output.data, duration: media.duration };
    }
    if (!media.hasVideo || !media.width || !media.height || !contentType) {
      throw notMedia(options.providerId, modality, "no picture in a format served here");
    }
    const { stdout: frame } = await runFfmpeg(
      options.ffmpegPath,
      ["-v", "error", "-i", file, "-frames:v", "1", "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "3", "pipe:1"],
      { signal: options.signal },
    );
    const poster = await sharp(frame).jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true });
    return {
      type: "video",
      content_type: contentType,
      data: output.data,
      width: media.width,
      height: media.height,
      duration: media.duration,
      poster: { content_type: "image/jpeg", data: poster.data, width: poster.info.width, height: poster.info.height },
    };
  });
}

/**
 * An output as the engine stores it. Already measured outputs pass through; fetched bytes must be
 * of the entry's modality, or the run fails with a message naming the provider (not charged).
 */
export async function measureOutput(
  output: ModelOutput | FetchedOutput,
  modality: Modality,
  options: MeasureOptions,
): Promise<ModelOutput> {
  if (output.type !== "file") return output;
  if (output.data.byteLength === 0) throw notMedia(options.providerId, modality, "it is empty");
  if (modality === "image") {
    const image = await imageOutputOf(output.data);
    if (!image) throw notMedia(options.providerId, modality, "PNG, JPEG, WebP, GIF or AVIF");
    return image;
  }
  if (modality === "video" || modality === "audio") return measureTimed(output, modality, options);
  if (modality === "3d") {
    const model = await readGlbOutput(output.data, { signal: options.signal }).catch((err: unknown) => {
      throw err instanceof GlbRefusal ? notMedia(options.providerId, modality, err.message) : err;
    });
    if (!model) throw notMedia(options.providerId, modality, "glTF binary .glb");
    return model;
  }
  throw notMedia(options.providerId, modality, `no ${modality} outputs are served`);
}
