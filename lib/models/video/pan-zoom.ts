// Ken Burns: a slow pan or zoom over a still. sharp crops the picture to the video's shape at
// 1.3× the video's size (so the closest view still has a source pixel per output pixel), and
// ffmpeg's perspective filter cuts each frame's view out of it at fractional positions: the
// camera glides instead of stepping whole pixels (zoompan's way, which shows as a judder).
import path from "node:path";
import sharp from "sharp";
import { fileInputField } from "../../core/catalog/file-inputs";
import { runFfmpeg } from "../../media/ffmpeg";
import { ASPECT_RATIOS, objectSchema, type AspectRatio } from "../common/fields";
import { encodeProgress, stepProgress } from "../progress";
import type { ModelDefinition } from "../../core/catalog/model-definition";
import {
  durationField,
  FPS_FIELD,
  h264OutputArgs,
  RESOLUTION_FIELD,
  videoOutput,
  videoSize,
  withTempDir,
  type Resolution,
} from "./encode";
import { decodingInput, displayedImage, displayedSize } from "../image/input-image";

/** How far in the camera goes: the closest view shows 1/1.3 of the picture. */
const MAX_ZOOM = 1.3;

/**
 * Where the encode starts and ends in the run's progress: decoding and enlarging the picture come
 * before it and the poster after it, both short beside it.
 */
const ENCODE_FROM = 0.05;
const ENCODE_TO = 0.98;

export const PAN_ZOOM_MOTIONS = ["zoom-in", "zoom-out", "pan-left", "pan-right", "pan-up", "pan-down"] as const;
export type PanZoomMotion = (typeof PAN_ZOOM_MOTIONS)[number];

/** The camera moves in words, for the studio's form (`enumLabels`). */
export const MOTION_LABELS: Readonly<Record<PanZoomMotion, string>> = {
  "zoom-in": "Zoom in",
  "zoom-out": "Zoom out",
  "pan-left": "Pan left",
  "pan-right": "Pan right",
  "pan-up": "Pan up",
  "pan-down": "Pan down",
};

const ASPECTS = ["16:9", "9:16", "1:1", "4:3", "3:4"] as const satisfies readonly AspectRatio[];

/** The listed shape closest to the picture's own, so little of it is cropped away. */
export function nearestAspect(width: number, height: number): AspectRatio {
  const ratio = Math.log(width / height);
  const distance = (a: AspectRatio) => Math.abs(Math.log(ASPECT_RATIOS[a][0] / ASPECT_RATIOS[a][1]) - ratio);
  return ASPECTS.reduce((best, a) => (distance(a) < distance(best) ? a : best));
}

/**
 * Each move from start to end: the zoom, and where the view sits in the room left around it
 * (0 = left or top edge, 1 = right or bottom edge).
 */
const MOVES: Record<PanZoomMotion, { zoom: [number, number]; x: [number, number]; y: [number, number] }> = {
  "zoom-in": { zoom: [1, MAX_ZOOM], x: [0.5, 0.5], y: [0.5, 0.5] },
  "zoom-out": { zoom: [MAX_ZOOM, 1], x: [0.5, 0.5], y: [0.5, 0.5] },
  "pan-left": { zoom: [MAX_ZOOM, MAX_ZOOM], x: [1, 0], y: [0.5, 0.5] },
  "pan-right": { zoom: [MAX_ZOOM, MAX_ZOOM], x: [0, 1], y: [0.5, 0.5] },
  "pan-up": { zoom: [MAX_ZOOM, MAX_ZOOM], x: [0.5, 0.5], y: [1, 0] },
  "pan-down": { zoom: [MAX_ZOOM, MAX_ZOOM], x: [0.5, 0.5], y: [0, 1] },
};

/**
 * The view as ffmpeg expressions of the frame number `in` (width W, height H of the enlarged
 * picture). The cosine ease starts and ends the move gently; zoom runs on a log scale so it feels
 * equally fast throughout.
 */
export function viewExpressions(motion: PanZoomMotion, frames: number): { x: string; y: string; w: string; h: string } {
  const move = MOVES[motion];
  const ease = `(0.5-0.5*cos(PI*in/${frames - 1}))`;
  const lerp = ([a, b]: [number, number]) => (a === b ? `${a}` : `(${a}+${b - a}*${ease})`);
  const [z0, z1] = move.zoom.map(Math.log) as [number, number];
  const zoom = z0 === z1 ? `${move.zoom[0]}` : `exp(${z0.toFixed(6)}+${(z1 - z0).toFixed(6)}*${ease})`;
  const w = `(W/${zoom})`;
  const h = `(H/${zoom})`;
  return { x: `((W-${w})*${lerp(move.x)})`, y: `((H-${h})*${lerp(move.y)})`, w, h };
}

/** The first frame's view, as a crop of the enlarged picture: the poster shows what playback starts with. */
function firstView(
  motion: PanZoomMotion,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  const move = MOVES[motion];
  const w = Math.round(width / move.zoom[0]);
  const h = Math.round(height / move.zoom[0]);
  return { left: Math.round((width - w) * move.x[0]), top: Math.round((height - h) * move.y[0]), width: w, height: h };
}

export const panZoom: ModelDefinition = {
  id: "atelier/pan-zoom",
  type: "model",
  name: "Pan and Zoom",
  creator: "Atelier",
  modality: "video",
  tasks: ["image-to-video"],
  description:
    "Brings a still to life with a slow, smooth camera move: a zoom in or out, or a pan across the picture (the Ken Burns effect).",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "second", usd: "0.01", drivers: ["duration"], overrides: [] },
  lifecycle: null,
  // No example can carry an image: each sets the other fields, and the studio asks for the image.
  examples: [
    { title: "Slow zoom in", input: { motion: "zoom-in", duration: 5 } },
    { title: "Pan across, widescreen", input: { motion: "pan-right", aspect_ratio: "16:9", duration: 6 } },
    { title: "Story, zoom out", input: { motion: "zoom-out", aspect_ratio: "9:16", duration: 4 } },
  ],
  enumLabels: { motion: MOTION_LABELS, aspect_ratio: { auto: "Auto" } },
  input_schema: objectSchema(
    {
      image: fileInputField("image/*", "Image", "The picture to move over: a file ID from POST /v1/files."),
      motion: {
        type: "string",
        title: "Motion",
        description:
          "The camera move: zoom in or out at the centre, or pan so the view travels left, right, up or down across the picture.",
        enum: [...PAN_ZOOM_MOTIONS],
        default: "zoom-in",
      },
      duration: durationField(5),
      fps: FPS_FIELD,
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description:
          "Width to height of the video; auto picks the one closest to the picture's. The picture is cropped to fill it.",
        enum: ["auto", ...ASPECTS],
        default: "auto",
      },
      resolution: RESOLUTION_FIELD,
    },
    ["image"],
  ),
  async run(input, tools) {
    const { signal } = tools;
    signal.throwIfAborted();
    const { data } = await tools.readFile(input.image as string);
    const { width: sourceWidth, height: sourceHeight } = await displayedSize(data);

    const motion = input.motion as PanZoomMotion;
    const fps = input.fps as number;
    const duration = input.duration as number;
    const frames = duration * fps;
    const aspect =
      input.aspect_ratio === "auto" ? nearestAspect(sourceWidth, sourceHeight) : (input.aspect_ratio as AspectRatio);
    const { width, height } = videoSize(aspect, input.resolution as Resolution);
    const even = (n: number) => Math.round(n / 2) * 2;
    const big = { width: even(width * MAX_ZOOM), height: even(height * MAX_ZOOM) };

    // Transparent parts turn black, as a player would show them.
    const canvas = await decodingInput(() =>
      displayedImage(data)
        .flatten({ background: "#000000" })
        .resize(big.width, big.height, { fit: "cover", position: "centre", kernel: "lanczos3" })
        .removeAlpha()
        .raw()
        .toBuffer(),
    );
    signal.throwIfAborted();
    tools.reportProgress(ENCODE_FROM);

    const { x, y, w, h } = viewExpressions(motion, frames);
    const corners = { x0: x, y0: y, x1: `${x}+${w}`, y1: y, x2: x, y2: `${y}+${h}`, x3: `${x}+${w}`, y3: `${y}+${h}` };
    const perspective = Object.entries(corners)
      .map(([key, value]) => `${key}='${value}'`)
      .join(":");
    return withTempDir("pan-zoom", async (dir) => {
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
          `${big.width}x${big.height}`,
          "-framerate",
          String(fps),
          "-i",
          "pipe:0",
          // Convert once, then repeat the one frame; each copy gets its own view.
          "-vf",
          [
            "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
            `loop=loop=${frames - 1}:size=1:start=0`,
            `setpts=N/(${fps}*TB)`,
            `perspective=${perspective}:interpolation=linear:eval=frame`,
            `scale=${width}:${height}:flags=bicubic`,
          ].join(","),
          "-r",
          String(fps),
          ...h264OutputArgs(file, frames),
        ],
        { signal, stdin: canvas, onProgress: encodeProgress(stepProgress(tools, ENCODE_FROM, ENCODE_TO), duration) },
      );
      const poster = sharp(canvas, { raw: { ...big, channels: 3 } })
        .extract(firstView(motion, big.width, big.height))
        .resize(width, height, { kernel: "lanczos3" });
      const output = await videoOutput(file, poster, { width, height, duration });
      tools.reportProgress(1);
      return [output];
    });
  },
};
