// An animated title card from a prompt. Each frame is drawn by sharp from SVG in two layers: the
// soft gradient at a quarter of the size (it has no edges to lose, and that makes it far cheaper)
// and the shapes and title at full size on transparent. ffmpeg enlarges the one, lays the other
// over it and encodes.
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { runFfmpeg } from "../../media/ffmpeg";
import { objectSchema, SEED_FIELD, type AspectRatio } from "../common/fields";
import { seedOf } from "../common/random";
import { encodeProgress, stepProgress } from "../progress";
import type { ModelDefinition } from "../../core/catalog/model-definition";
import {
  durationField,
  FPS_FIELD,
  h264OutputArgs,
  RESOLUTION_FIELD,
  TO_BT709,
  videoOutput,
  videoSize,
  withTempDir,
  type Resolution,
} from "./encode";
import { backgroundSvg, createScene, foregroundSvg, titleTiming, type Scene } from "./title-scene";
import { layoutTitle } from "./title-text";

const BACKGROUND_SCALE = 4;
/** Frames drawn at once: sharp renders on libuv's pool, so two keep both cores busy. */
const PARALLEL = 2;
/**
 * Where drawing the frames ends and the encode begins, and where the encode ends, in proportion to
 * the time each part takes (alike at 480p and 720p); the short poster comes last.
 */
const ENCODE_FROM = 0.3;
const ENCODE_TO = 0.97;

async function renderBackground(scene: Scene, t: number, w: number, h: number): Promise<Buffer> {
  return sharp(Buffer.from(backgroundSvg(scene, t, w, h)))
    .removeAlpha()
    .raw()
    .toBuffer();
}

async function renderForeground(scene: Scene, t: number): Promise<Buffer> {
  return sharp(Buffer.from(foregroundSvg(scene, t)))
    .png({ compressionLevel: 1 })
    .toBuffer();
}

export const titleMotion: ModelDefinition = {
  id: "atelier/title-motion",
  type: "model",
  name: "Title Motion",
  creator: "Atelier",
  modality: "video",
  tasks: ["text-to-video"],
  description:
    "An animated title card: a drifting gradient in the prompt's colours, floating shapes, and the title rising into place.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "second", usd: "0.008", drivers: ["duration"], overrides: [] },
  lifecycle: null,
  examples: [
    { title: "Launch title", input: { prompt: "pastel spring bloom", title: "Spring launch 2027" } },
    { title: "Story intro", input: { prompt: "neon night city", title: "Tonight only", aspect_ratio: "9:16" } },
    { title: "Background loop, no text", input: { prompt: "ocean dusk calm waves", show_title: false, duration: 6 } },
  ],
  input_schema: objectSchema(
    {
      prompt: {
        type: "string",
        title: "Prompt",
        description: "Words that steer the colours (each word adds one); also the title shown, unless Title is given.",
        minLength: 1,
        maxLength: 1000,
        examples: ["ocean dusk over a quiet harbour"],
      },
      title: {
        type: "string",
        title: "Title",
        description: "Text shown instead of the prompt, up to 80 characters; it wraps to at most three lines.",
        maxLength: 80,
      },
      show_title: {
        type: "boolean",
        title: "Show title",
        description: "Off gives the moving background alone, e.g. to set your own text over it.",
        default: true,
      },
      duration: durationField(4),
      fps: FPS_FIELD,
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description: "Width to height of the video: 16:9 landscape, 9:16 for phones and stories, 1:1 square.",
        enum: ["16:9", "9:16", "1:1"],
        default: "16:9",
      },
      resolution: RESOLUTION_FIELD,
      seed: SEED_FIELD,
    },
    ["prompt"],
  ),
  async run(input, tools) {
    const { signal } = tools;
    signal.throwIfAborted();
    const seed = seedOf(input);
    const prompt = input.prompt as string;
    const duration = input.duration as number;
    const fps = input.fps as number;
    const frames = duration * fps;
    const { width, height } = videoSize(input.aspect_ratio as AspectRatio, input.resolution as Resolution);
    // A prompt is often all lower case; as a title it starts with a capital.
    const text =
      typeof input.title === "string" && input.title.trim()
        ? input.title
        : prompt.trim().replace(/^\p{Ll}/u, (c) => c.toUpperCase());
    const unit = Math.min(width, height);
    const title =
      input.show_title === false
        ? null
        : await layoutTitle(text, unit * (width > height ? 0.11 : 0.1), width * 0.84, height > width ? 5 : 3);
    const scene = createScene({ prompt, seed, width, height, duration, title });
    const small = { width: Math.ceil(width / BACKGROUND_SCALE), height: Math.ceil(height / BACKGROUND_SCALE) };

    const drawing = stepProgress(tools, 0, ENCODE_FROM);
    return withTempDir("title-motion", async (dir) => {
      const backgrounds = await open(path.join(dir, "background.rgb"), "w");
      try {
        for (let first = 0; first < frames; first += PARALLEL) {
          signal.throwIfAborted();
          const batch = Array.from({ length: Math.min(PARALLEL, frames - first) }, (_, k) => first + k);
          const drawn = await Promise.all(
            batch.map(async (n) => {
              const [background, foreground] = await Promise.all([
                renderBackground(scene, n / fps, small.width, small.height),
                renderForeground(scene, n / fps),
              ]);
              await writeFile(path.join(dir, `fg-${String(n).padStart(5, "0")}.png`), foreground);
              return background;
            }),
          );
          for (const background of drawn) await backgrounds.appendFile(background);
          drawing.reportProgress((first + batch.length) / frames);
        }
      } finally {
        await backgrounds.close();
      }
      signal.throwIfAborted();

      const file = path.join(dir, "video.mp4");
      await runFfmpeg(
        tools.ffmpegPath,
        [
          "-v",
          "error",
          "-f",
          "rawvideo",
          "-pix_fmt",
          "rgb24",
          "-s",
          `${small.width}x${small.height}`,
          "-framerate",
          String(fps),
          "-i",
          path.join(dir, "background.rgb"),
          "-framerate",
          String(fps),
          "-start_number",
          "0",
          "-i",
          path.join(dir, "fg-%05d.png"),
          "-filter_complex",
          `[0:v]scale=${width}:${height}:flags=bicubic[bg];[bg][1:v]overlay=format=rgb,${TO_BT709}[v]`,
          "-map",
          "[v]",
          ...h264OutputArgs(file, frames),
        ],
        { signal, onProgress: encodeProgress(stepProgress(tools, ENCODE_FROM, ENCODE_TO), duration) },
      );

      // The poster shows the title settled (or the middle, for a background alone).
      const at = Math.min(title ? titleTiming(scene).settled + 0.2 : duration / 2, duration - 1 / fps);
      const [background, foreground] = await Promise.all([
        renderBackground(scene, at, small.width, small.height),
        renderForeground(scene, at),
      ]);
      const poster = sharp(background, { raw: { ...small, channels: 3 } })
        .resize(width, height, { fit: "fill", kernel: "cubic" })
        .composite([{ input: foreground }]);
      const output = await videoOutput(file, poster, { width, height, duration });
      tools.reportProgress(1);
      return [output];
    });
  },
};
