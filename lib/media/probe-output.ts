// What ffmpeg prints about its input (`ffmpeg -i FILE …` on stderr), read into numbers. Kept apart
// from ffmpeg.ts so black-box tests can read the same way without loading the runner.
export interface MediaInfo {
  /** Seconds. */
  duration: number | null;
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
}

export function parseFfmpegInfo(stderr: string): MediaInfo {
  const duration = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  const video = /Stream #[^\n]*Video: (\w+)[^\n]*?, (\d{2,5})x(\d{2,5})/.exec(stderr);
  const audio = /Stream #[^\n]*Audio: (\w+)/.exec(stderr);
  return {
    duration: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null,
    width: video ? Number(video[2]) : null,
    height: video ? Number(video[3]) : null,
    videoCodec: video ? video[1]! : null,
    audioCodec: audio ? audio[1]! : null,
  };
}
