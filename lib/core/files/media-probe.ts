// Measures an uploaded video or sound with ffmpeg, reading the container's header only (no
// decode, so a 5 GB upload completes in a moment). music-metadata was used before, but it finds
// no duration in an MP4 without a sound track: exactly what a silent screen recording or our own
// video models make.
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg";
import { parseFfmpegInfo } from "../../media/probe-output";

export interface UploadedMedia {
  /** Seconds, > 0. */
  duration: number;
  /** Pixels of the first video stream (not cover art); null for a sound. */
  width: number | null;
  height: number | null;
  hasVideo: boolean;
  hasAudio: boolean;
  /** ffmpeg's demuxer names for the container, such as "mov,mp4,m4a,3gp,3g2,mj2" or "wav". */
  container: string;
}

/** null when ffmpeg cannot read the bytes as a timed media file. */
export async function probeUploadedMedia(ffmpegPath: string, file: string): Promise<UploadedMedia | null> {
  let stderr: string;
  try {
    // `-t 0` stops before the first frame: ffmpeg reads the header, prints the streams, exits 0.
    ({ stderr } = await runFfmpeg(ffmpegPath, ["-v", "info", "-i", file, "-t", "0", "-f", "null", "-"]));
  } catch (err) {
    if (err instanceof FfmpegError) return null;
    throw err;
  }
  // Only the input's description: ffmpeg goes on to list the (null) output's streams.
  const input = stderr.split(/\n(?:Stream mapping:|Output #0)/)[0] ?? "";
  const info = parseFfmpegInfo(input);
  // An MP3's or M4A's cover art shows up as a one-frame video stream "(attached pic)".
  const hasVideo = /Stream #[^\n]*Video: (?![^\n]*\(attached pic\))/.test(input);
  const hasAudio = info.audioCodec !== null;
  if (info.duration === null || !(info.duration > 0) || (!hasVideo && !hasAudio)) return null;
  return {
    duration: Math.round(info.duration * 1000) / 1000,
    width: hasVideo ? info.width : null,
    height: hasVideo ? info.height : null,
    hasVideo,
    hasAudio,
    container: /Input #0, ([^\n]+?), from/.exec(input)?.[1] ?? "",
  };
}

/** Whether what the bytes hold fits the declared media type's family: a video has a picture, a sound has audio. */
export function fitsDeclaredType(media: UploadedMedia, contentType: string): boolean {
  return contentType.startsWith("video/") ? media.hasVideo : media.hasAudio;
}
