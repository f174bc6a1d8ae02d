// Measures uploaded video and sound: container parsed by music-metadata (MP4/QuickTime, WebM,
// WAV, MP3, Ogg, FLAC, AAC). Returns null when the bytes are not a media file it knows.
export async function probeMediaDuration(file: string): Promise<number | null> {
  try {
    const { parseFile } = await import("music-metadata");
    const meta = await parseFile(file, { duration: true, skipCovers: true });
    const duration = meta.format.duration;
    return typeof duration === "number" && Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) / 1000 : null;
  } catch {
    return null;
  }
}
