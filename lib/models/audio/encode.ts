// The audio models' output formats: WAV as rendered, or MP3 through ffmpeg's libmp3lame.
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { runFfmpeg } from "../../media/ffmpeg";
import { encodeProgress } from "../progress";
import type { AudioOutput, RunTools } from "../../core/catalog/model-definition";
import { parseWav } from "./wav";

export const AUDIO_FORMATS = { wav: "audio/wav", mp3: "audio/mpeg" } as const;
export type AudioFormat = keyof typeof AUDIO_FORMATS;

export function audioFormatField(defaultFormat: AudioFormat): JsonSchemaObject {
  return {
    type: "string",
    title: "Format",
    description: "File format of the audio: WAV is uncompressed, MP3 is about ten times smaller.",
    enum: Object.keys(AUDIO_FORMATS),
    default: defaultFormat,
  };
}

/**
 * The WAV as an output in `format`. Its duration comes from the WAV header, which MP3 encoding
 * keeps (bar the encoder's few milliseconds of padding). `progress` hears how far the MP3 encode
 * is, 0 to 1 (a WAV is ready at once).
 */
export async function audioOutput(
  wav: Buffer,
  format: AudioFormat,
  options: {
    ffmpegPath: string;
    signal: AbortSignal;
    bitrateKbps: number;
    progress?: Pick<RunTools, "reportProgress">;
  },
): Promise<AudioOutput> {
  const { duration } = parseWav(wav);
  if (format === "wav") return { type: "audio", content_type: AUDIO_FORMATS.wav, data: wav, duration };
  // Bit-exact flags and one thread: the same WAV always gives the same MP3 bytes (seeds promise it),
  // with the system ffmpeg and the bundled one alike.
  const { stdout } = await runFfmpeg(
    options.ffmpegPath,
    [
      "-v",
      "error",
      "-f",
      "wav",
      "-i",
      "pipe:0",
      "-map_metadata",
      "-1",
      "-fflags",
      "+bitexact",
      "-flags:a",
      "+bitexact",
      "-threads",
      "1",
      "-c:a",
      "libmp3lame",
      "-b:a",
      `${options.bitrateKbps}k`,
      "-f",
      "mp3",
      "pipe:1",
    ],
    { signal: options.signal, stdin: wav, onProgress: options.progress && encodeProgress(options.progress, duration) },
  );
  return { type: "audio", content_type: AUDIO_FORMATS.mp3, data: stdout, duration };
}
