// A versioned pipeline: a promo video from a title and a few scene words. The poster (artwork
// with the title set over it) is published as the run's preview as soon as it exists, so from
// then on the run cannot be canceled (docs/api.md, "Previews and the cancel point"); then a pan-and-zoom video over it, and in
// @2 a music bed mixed under the picture.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { runFfmpeg } from "../../media/ffmpeg";
import { setText } from "../image/type-card-text";
import { objectSchema, SEED_FIELD } from "../common/fields";
import { seedOf } from "../common/random";
import {
  ModelError,
  type ImageOutput,
  type ModelDefinition,
  type ModelOutput,
  type RunTools,
  type VideoOutput,
} from "../../core/catalog/model-definition";
import { durationField, RESOLUTION_FIELD, videoSize, withTempDir, type Resolution } from "../video/encode";
import { panZoom, MOTION_LABELS, PAN_ZOOM_MOTIONS } from "../video/pan-zoom";
import { artwork } from "../image/artwork";
import { music as musicModel } from "../audio/music";
import { encodeProgress, stepProgress } from "../progress";

/** The ID the poster goes by when handed to the pan-and-zoom step (never a workspace file). */
const POSTER_FILE_ID = "file_PromoVideoPosterStep0000";

const ASPECTS = ["16:9", "9:16", "1:1"] as const;
type Aspect = (typeof ASPECTS)[number];

const FIELDS: Record<string, JsonSchemaObject> = {
  title: {
    type: "string",
    title: "Title",
    description: "The words on the poster and in the video, such as a product or event name.",
    minLength: 1,
    maxLength: 80,
    examples: ["Spring launch 2027"],
  },
  prompt: {
    type: "string",
    title: "Scene",
    description:
      "Words for the artwork behind the title: colours, moods and shapes (ocean, sunset, neon, mountains, stars…).",
    minLength: 1,
    maxLength: 500,
    examples: ["pastel mountains at sunrise"],
  },
  aspect_ratio: {
    type: "string",
    title: "Aspect ratio",
    description: "16:9 for players and slides, 9:16 for stories and reels, 1:1 for feeds.",
    enum: [...ASPECTS],
    default: "16:9",
  },
  duration: durationField(6),
  motion: {
    type: "string",
    title: "Camera move",
    description: "How the camera moves over the poster.",
    enum: [...PAN_ZOOM_MOTIONS],
    default: "zoom-in",
  },
  resolution: RESOLUTION_FIELD,
  seed: SEED_FIELD,
};

const PROMO_LABELS = { motion: MOTION_LABELS };

function isImage(output: ModelOutput | undefined): output is ImageOutput {
  return output?.type === "image";
}

function isVideo(output: ModelOutput | undefined): output is VideoOutput {
  return output?.type === "video";
}

/**
 * Where each part ends in the run's progress, in proportion to its time at the defaults (6 s,
 * 720p): the camera move takes most of a run; the artwork and title, and in @2 the music bed
 * (rendering it, then mixing it under the picture), the rest.
 */
const V1_SHARES = { poster: 0.14, video: 1 };
const V2_SHARES = { poster: 0.12, video: 0.89, bed: 1 };
/** Within the music bed: where the music step ends and mixing it under the picture begins. */
const BED_MUSIC_SHARE = 0.4;

/**
 * The artwork with the title set over a soft band, at the video's own size. Each part below takes
 * tools whose progress runs 0..1 over its own share of the run (stepProgress).
 */
async function makePoster(input: Record<string, unknown>, seed: number, tools: RunTools): Promise<ImageOutput> {
  const { width, height } = videoSize(input.aspect_ratio as Aspect, input.resolution as Resolution);
  const [art] = await tools.runStep(artwork.id, {
    prompt: input.prompt,
    aspect_ratio: input.aspect_ratio,
    size: 1024,
    seed,
    format: "png",
  });
  if (!isImage(art)) throw new ModelError("The artwork step made no image.");
  const box = { width: Math.round(width * 0.82), height: Math.round(height * (height > width ? 0.22 : 0.3)) };
  const text = await setText({
    text: input.title as string,
    font: "sansBold",
    colour: "#ffffff",
    width: box.width,
    height: box.height,
    maxPx: Math.round(Math.min(width, height) / 8),
    align: "center",
  });
  const band = Math.round(text.height + Math.min(width, height) * 0.12);
  const bandTop = Math.round((height - band) / 2);
  const shade = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="b" x1="0" y1="0" x2="0" y2="1">` +
      `<stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="0.5" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0"/>` +
      `</linearGradient></defs><rect y="${bandTop}" width="${width}" height="${band}" fill="url(#b)"/></svg>`,
  );
  const data = await sharp(art.data)
    .resize(width, height, { fit: "cover" })
    .composite([
      { input: shade, left: 0, top: 0 },
      { input: text.data, left: Math.round((width - text.width) / 2), top: Math.round((height - text.height) / 2) },
    ])
    .png()
    .toBuffer();
  tools.reportProgress(1);
  return { type: "image", content_type: "image/png", data, width, height };
}

async function panZoomOver(poster: ImageOutput, input: Record<string, unknown>, tools: RunTools): Promise<VideoOutput> {
  const [video] = await tools.runStep(
    panZoom.id,
    {
      image: POSTER_FILE_ID,
      motion: input.motion,
      duration: input.duration,
      fps: 24,
      aspect_ratio: input.aspect_ratio,
      resolution: input.resolution,
    },
    { [POSTER_FILE_ID]: { data: poster.data, contentType: poster.content_type } },
  );
  if (!isVideo(video)) throw new ModelError("The pan-and-zoom step made no video.");
  return video;
}

/** The video with the music under it (AAC); the picture is copied, not encoded again. */
async function withMusicBed(
  video: VideoOutput,
  input: Record<string, unknown>,
  seed: number,
  tools: RunTools,
): Promise<VideoOutput> {
  const [music] = await stepProgress(tools, 0, BED_MUSIC_SHARE).runStep(musicModel.id, {
    prompt: (input.music as string | undefined) ?? input.prompt,
    duration: input.duration,
    format: "wav",
    seed,
  });
  if (music?.type !== "audio") throw new ModelError("The music step made no sound.");
  return withTempDir("promo-video", async (dir) => {
    const [videoFile, musicFile, out] = ["video.mp4", "music.wav", "promo.mp4"].map((name) =>
      path.join(/*turbopackIgnore: true*/ dir, name),
    ) as [string, string, string];
    await Promise.all([writeFile(videoFile, video.data), writeFile(musicFile, music.data)]);
    await runFfmpeg(
      tools.ffmpegPath,
      [
        "-v",
        "error",
        "-i",
        videoFile,
        "-i",
        musicFile,
        "-map",
        "0:v:0",
        "-map",
        "1:a:0",
        "-c:v",
        "copy",
        "-c:a",
        "aac",
        "-b:a",
        "160k",
        "-shortest",
        "-movflags",
        "+faststart",
        "-y",
        out,
      ],
      { signal: tools.signal, onProgress: encodeProgress(stepProgress(tools, BED_MUSIC_SHARE, 1), video.duration) },
    );
    return { ...video, data: await readFile(out) };
  });
}

const common: Pick<ModelDefinition, "type" | "name" | "creator" | "modality" | "tasks" | "status" | "lifecycle"> = {
  type: "preset",
  name: "Promo Video",
  creator: "Atelier",
  modality: "video",
  tasks: ["text-to-video"],
  status: "stable",
  lifecycle: null,
};

export const promoVideoV1: ModelDefinition = {
  ...common,
  id: "atelier/promo-video@1",
  description:
    "A promo clip from a title: artwork with the title (shown as the preview first), then a slow camera move over it. Silent.",
  revision: "2026-11-22",
  // artwork $0.003 + pan-and-zoom $0.01 a second, rounded to a per-second price.
  pricing: { unit: "second", usd: "0.011", drivers: ["duration"], overrides: [] },
  steps: [artwork, panZoom],
  examples: [
    { title: "Spring launch", input: { title: "Spring launch", prompt: "pastel mountains at sunrise" } },
    {
      title: "Night market story",
      input: { title: "Night Market", prompt: "neon night city stars", aspect_ratio: "9:16", motion: "pan-up" },
    },
    {
      title: "Ocean week, square",
      input: { title: "Ocean Week", prompt: "ocean waves spiral", aspect_ratio: "1:1", motion: "zoom-out" },
    },
  ],
  enumLabels: PROMO_LABELS,
  input_schema: objectSchema(FIELDS, ["title", "prompt"]),
  async run(input, tools) {
    const seed = seedOf(input);
    const poster = await makePoster(input, seed, stepProgress(tools, 0, V1_SHARES.poster));
    await tools.publishPreview(poster);
    const video = await panZoomOver(poster, input, stepProgress(tools, V1_SHARES.poster, V1_SHARES.video));
    tools.reportProgress(1);
    return [video];
  },
};

export const promoVideoV2: ModelDefinition = {
  ...common,
  id: "atelier/promo-video@2",
  description:
    "A promo clip from a title: artwork with the title (shown as the preview first), a slow camera move over it, and a music bed in the mood of the scene.",
  revision: "2026-11-22",
  // @1's steps plus music at $0.001 a second.
  pricing: { unit: "second", usd: "0.012", drivers: ["duration"], overrides: [] },
  steps: [artwork, panZoom, musicModel],
  examples: [
    { title: "Spring launch", input: { title: "Spring launch", prompt: "pastel mountains at sunrise" } },
    {
      title: "Night market, upbeat",
      input: {
        title: "Night Market",
        prompt: "neon night city stars",
        aspect_ratio: "9:16",
        motion: "pan-up",
        music: "upbeat energetic synth",
      },
    },
    {
      title: "Ocean week, calm",
      input: {
        title: "Ocean Week",
        prompt: "ocean waves spiral",
        aspect_ratio: "1:1",
        motion: "zoom-out",
        music: "calm ocean waves",
      },
    },
  ],
  enumLabels: PROMO_LABELS,
  input_schema: objectSchema(
    {
      ...FIELDS,
      music: {
        type: "string",
        title: "Music",
        description:
          "Words for the music bed: mood, tempo and sounds (calm, upbeat, lo-fi, rain…). Leave empty to use the scene's words.",
        minLength: 1,
        maxLength: 300,
        examples: ["upbeat bright synth"],
      },
    },
    ["title", "prompt"],
  ),
  async run(input, tools) {
    const seed = seedOf(input);
    const poster = await makePoster(input, seed, stepProgress(tools, 0, V2_SHARES.poster));
    await tools.publishPreview(poster);
    const video = await panZoomOver(poster, input, stepProgress(tools, V2_SHARES.poster, V2_SHARES.video));
    const promo = await withMusicBed(video, input, seed, stepProgress(tools, V2_SHARES.video, V2_SHARES.bed));
    tools.reportProgress(1);
    return [promo];
  },
};
