// Decoding and measuring audio outputs in the audio models' tests: real decoders only
// (the WAV parser, music-metadata and ffmpeg), then plain sample statistics.
import { parseBuffer } from "music-metadata";
import { defaultFfmpegPath, runFfmpeg } from "../../../media/ffmpeg";
import type { AudioOutput, ModelOutput } from "../../../core/catalog/model-definition";
import { decodeWav } from "../wav";

export function asAudio(output: ModelOutput | undefined): AudioOutput {
  if (output?.type !== "audio") throw new Error(`expected an audio output, got ${output?.type}`);
  return output;
}

/** What music-metadata reads from an MP3: duration, rate, channels. */
export async function mp3Meta(data: Buffer) {
  const { format } = await parseBuffer(data, { mimeType: "audio/mpeg" });
  return {
    container: format.container,
    codec: format.codec,
    duration: format.duration,
    sampleRate: format.sampleRate,
    channels: format.numberOfChannels,
  };
}

/** Any output's samples, per channel; MP3 is decoded by ffmpeg. */
export async function samplesOf(output: AudioOutput): Promise<{ sampleRate: number; channels: Float32Array[] }> {
  if (output.content_type === "audio/wav") return decodeWav(output.data);
  const { stdout } = await runFfmpeg(
    defaultFfmpegPath(process.env.PATH ?? ""),
    ["-v", "error", "-i", "pipe:0", "-c:a", "pcm_s16le", "-f", "wav", "pipe:1"],
    {
      stdin: output.data,
    },
  );
  // ffmpeg streaming to a pipe leaves the sizes open, which the parser tolerates.
  return decodeWav(stdout);
}

export function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

export function peak(samples: Float32Array): number {
  let max = 0;
  for (const v of samples) max = Math.max(max, Math.abs(v));
  return max;
}

/** Share of samples at (or within a hair of) full scale. */
export function clippedShare(samples: Float32Array): number {
  let clipped = 0;
  for (const v of samples) if (Math.abs(v) >= 0.999) clipped++;
  return clipped / samples.length;
}

/** RMS of each `windowSeconds` window: the loudness contour. */
export function envelope(samples: Float32Array, sampleRate: number, windowSeconds: number): number[] {
  const size = Math.max(1, Math.round(sampleRate * windowSeconds));
  const out: number[] = [];
  for (let at = 0; at + size <= samples.length; at += size) out.push(rms(samples, at, at + size));
  return out;
}

/** Zero crossings per second: a rough measure of how bright (high-pitched) a sound is. */
export function zeroCrossingRate(samples: Float32Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings * sampleRate) / samples.length;
}

/** RMS of the sample-to-sample change over RMS: rises with the share of high frequencies. */
export function brightness(samples: Float32Array): number {
  let change = 0;
  for (let i = 1; i < samples.length; i++) change += (samples[i]! - samples[i - 1]!) ** 2;
  return Math.sqrt(change / samples.length) / Math.max(1e-9, rms(samples));
}

/** RMS of the difference of two signals, relative to their own RMS (0 = identical). */
export function relativeDifference(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let diff = 0;
  let energy = 0;
  for (let i = 0; i < n; i++) {
    diff += (a[i]! - b[i]!) ** 2;
    energy += (a[i]! ** 2 + b[i]! ** 2) / 2;
  }
  return Math.sqrt(diff / Math.max(1e-12, energy));
}

/**
 * Median fundamental frequency (Hz) of the loud frames, by autocorrelation over 60–500 Hz:
 * enough to tell a high voice from a low one.
 */
export function medianPitch(samples: Float32Array, sampleRate: number): number {
  const frame = Math.round(sampleRate * 0.04);
  const minLag = Math.floor(sampleRate / 500);
  const maxLag = Math.ceil(sampleRate / 60);
  const overall = rms(samples);
  const pitches: number[] = [];
  for (let at = 0; at + frame + maxLag <= samples.length; at += frame) {
    if (rms(samples, at, at + frame) < overall) continue;
    let bestLag = 0;
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let sum = 0;
      let energy = 0;
      for (let i = at; i < at + frame; i++) {
        sum += samples[i]! * samples[i + lag]!;
        energy += samples[i + lag]! ** 2;
      }
      const score = sum / Math.sqrt(energy + 1e-12);
      if (score > best) [best, bestLag] = [score, lag];
    }
    if (bestLag) pitches.push(sampleRate / bestLag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)] ?? 0;
}
