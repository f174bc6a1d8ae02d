// A sound's waveform as an image: the first built-in model that takes a sound file, so the
// direct-upload path (POST /v1/uploads) has a model to feed.
import path from "node:path";
import { writeFile } from "node:fs/promises";
import sharp from "sharp";
import { fileInputField } from "../../core/catalog/file-inputs";
import { runFfmpeg } from "../../media/ffmpeg";
import {
  FORMAT_FIELD,
  FORMAT_LABELS,
  IMAGE_FORMATS,
  colorField,
  objectSchema,
  type ImageFormat,
} from "../common/fields";
import { withTempDir } from "../video/encode";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";

/** Samples per second the sound is read at: plenty for a picture of its loudness. */
const SAMPLE_RATE = 8000;
/** The longest stretch of sound drawn; longer sounds are drawn up to here. */
const MAX_SECONDS = 600;

/** The loudest sample of each of `columns` equal slices, 0..1. */
export function columnPeaks(samples: Int16Array, columns: number): number[] {
  const peaks: number[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * samples.length) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * samples.length) / columns));
    let peak = 0;
    for (let i = from; i < to && i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]!));
    peaks.push(Math.min(1, peak / 32768));
  }
  return peaks;
}

function waveformSvg(
  peaks: number[],
  o: { width: number; height: number; style: string; color: string; background: string; barWidth: number },
): string {
  const mid = o.height / 2;
  const reach = (o.height / 2) * 0.92;
  let marks = "";
  if (o.style === "bars") {
    const gap = Math.max(1, Math.round(o.barWidth / 2));
    for (let i = 0; i < peaks.length; i++) {
      const h = Math.max(1, peaks[i]! * reach * 2);
      marks += `<rect x="${i * (o.barWidth + gap)}" y="${(mid - h / 2).toFixed(2)}" width="${o.barWidth}" height="${h.toFixed(2)}" rx="${o.barWidth / 2}"/>`;
    }
  } else {
    const step = o.width / Math.max(1, peaks.length - 1);
    const top = peaks.map((p, i) => `${(i * step).toFixed(2)},${(mid - p * reach).toFixed(2)}`);
    const bottom = peaks.map((p, i) => `${(i * step).toFixed(2)},${(mid + p * reach).toFixed(2)}`).reverse();
    marks = `<polygon points="${[...top, ...bottom].join(" ")}"/>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${o.width}" height="${o.height}"><rect width="100%" height="100%" fill="${o.background}"/><g fill="${o.color}">${marks}</g></svg>`;
}

export const waveform: ModelDefinition = {
  id: "atelier/waveform",
  type: "model",
  name: "Waveform",
  creator: "Atelier",
  modality: "image",
  tasks: ["audio-to-image"],
  description: "Draws a sound's waveform as an image, as bars or a filled outline: cover art for a podcast or a track.",
  revision: "2026-11-23",
  status: "stable",
  pricing: { unit: "image", usd: "0.002", drivers: [], overrides: [] },
  lifecycle: null,
  // No example can carry a sound: each sets the other fields, and the studio asks for the sound.
  examples: [
    { title: "Podcast bars", input: { style: "bars", color: "#4f46e5", background: "#ffffff" } },
    {
      title: "Dark outline banner",
      input: { style: "outline", color: "#22d3ee", background: "#0f172a", width: 1600, height: 400 },
    },
    {
      title: "Square cover art",
      input: { style: "bars", color: "#e11d48", background: "#fff1f2", width: 1024, height: 1024 },
    },
  ],
  enumLabels: { style: { bars: "Bars", outline: "Outline" }, format: FORMAT_LABELS },
  input_schema: objectSchema(
    {
      audio: fileInputField(
        "audio/*",
        "Sound",
        "The sound to draw: a file ID from a direct upload (POST /v1/uploads).",
      ),
      style: {
        type: "string",
        title: "Style",
        description: "Rounded bars, or one filled outline.",
        enum: ["bars", "outline"],
        default: "bars",
      },
      color: colorField("Colour", "Colour of the waveform, as #rrggbb.", "#4f46e5"),
      background: colorField("Background", "Background colour, as #rrggbb.", "#ffffff"),
      width: {
        type: "integer",
        title: "Width",
        description: "Width of the image in pixels.",
        minimum: 256,
        maximum: 2048,
        default: 1200,
      },
      height: {
        type: "integer",
        title: "Height",
        description: "Height of the image in pixels.",
        minimum: 64,
        maximum: 1024,
        default: 300,
      },
      format: FORMAT_FIELD,
    },
    ["audio"],
  ),
  async run(input, tools) {
    const { data } = await tools.readFile(input.audio as string);
    const width = input.width as number;
    const height = input.height as number;
    // ffmpeg reads some containers (MP4's moov at the end) only from a seekable file.
    const pcm = await withTempDir("waveform", async (dir) => {
      const file = path.join(dir, "in");
      await writeFile(file, data);
      const { stdout } = await runFfmpeg(
        tools.ffmpegPath,
        [
          "-v",
          "error",
          "-i",
          file,
          "-t",
          String(MAX_SECONDS),
          "-vn",
          "-ac",
          "1",
          "-ar",
          String(SAMPLE_RATE),
          "-f",
          "s16le",
          "pipe:1",
        ],
        {
          signal: tools.signal,
        },
      ).catch((err: unknown) => {
        if (tools.signal.aborted) throw err;
        throw new ModelError("The sound could not be read: it is not an audio file ffmpeg can decode.");
      });
      return stdout;
    });
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.byteLength / 2));
    if (samples.length === 0) throw new ModelError("The sound is empty: there is nothing to draw.");
    const barWidth = Math.max(2, Math.round(width / 200));
    const columns =
      input.style === "bars"
        ? Math.floor(width / (barWidth + Math.max(1, Math.round(barWidth / 2))))
        : Math.min(width, 1024);
    const svg = waveformSvg(columnPeaks(samples, columns), {
      width,
      height,
      style: input.style as string,
      color: input.color as string,
      background: input.background as string,
      barWidth,
    });
    const format = input.format as ImageFormat;
    const out = await sharp(Buffer.from(svg))
      .toFormat(format, format === "png" ? {} : { quality: 92 })
      .toBuffer();
    return [{ type: "image", content_type: IMAGE_FORMATS[format], data: out, width, height }];
  },
};
