// Shared renderer of the gradient family: prompt words pick the palette, the seed places
// the shapes, sharp rasterises the SVG. Same prompt + seed + options → the same bytes.
import { createHash } from "node:crypto";
import sharp, { type OverlayOptions } from "sharp";
import type { ImageOutput } from "../../core/catalog/model-definition";
import { ASPECT_RATIOS, IMAGE_FORMATS, type AspectRatio, type ImageFormat } from "../common/fields";
import { seededRandom } from "../common/random";
import { setText } from "./type-card-text";

export { ASPECT_RATIOS, IMAGE_FORMATS, type AspectRatio, type ImageFormat } from "../common/fields";
export { seededRandom, seedOf } from "../common/random";

export interface GradientOptions {
  prompt: string;
  aspectRatio: AspectRatio;
  longSide: number;
  seed: number;
  format: ImageFormat;
  /** Text set over the gradient (presets). */
  title?: string;
  frame?: boolean;
}

/** Each word of the prompt becomes a hue; so "ocean dusk" and "forest fire" look different. */
export function paletteFromPrompt(prompt: string): string[] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ["atelier"];
  return words.slice(0, 6).map((word, i) => {
    const digest = createHash("sha256").update(word).digest();
    const hue = (digest[0]! * 360) / 256;
    const saturation = 55 + (digest[1]! % 35);
    const lightness = 35 + (digest[2]! % 30) + (i % 2) * 5;
    return `hsl(${hue.toFixed(1)}, ${saturation}%, ${lightness}%)`;
  });
}

export function dimensions(aspectRatio: AspectRatio, longSide: number): { width: number; height: number } {
  const [w, h] = ASPECT_RATIOS[aspectRatio];
  return w >= h
    ? { width: longSide, height: Math.round((longSide * h) / w) }
    : { width: Math.round((longSide * w) / h), height: longSide };
}

export function gradientSvg(options: GradientOptions): string {
  const { width, height } = dimensions(options.aspectRatio, options.longSide);
  const random = seededRandom(options.seed);
  const palette = paletteFromPrompt(options.prompt);
  const colors = palette.length >= 2 ? palette : [...palette, palette[0]!.replace(/(\d+)%\)$/, "80%)")];
  const stops = colors
    .map((color, i) => `<stop offset="${((i / (colors.length - 1)) * 100).toFixed(1)}%" stop-color="${color}"/>`)
    .join("");
  const angle = Math.floor(random() * 360);
  const shapes: string[] = [];
  const count = 3 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const color = colors[Math.floor(random() * colors.length)]!;
    const r = (0.05 + random() * 0.25) * Math.min(width, height);
    shapes.push(
      `<circle cx="${(random() * width).toFixed(1)}" cy="${(random() * height).toFixed(1)}" r="${r.toFixed(1)}" fill="${color}" fill-opacity="${(0.25 + random() * 0.5).toFixed(2)}"/>`,
    );
  }
  const frame = options.frame
    ? `<rect x="${width * 0.04}" y="${height * 0.04}" width="${width * 0.92}" height="${height * 0.92}" fill="none" stroke="white" stroke-width="${Math.max(2, width / 120)}"/>`
    : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><linearGradient id="g" gradientTransform="rotate(${angle} 0.5 0.5)">${stops}</linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>${shapes.join("")}${frame}</svg>`;
}

/** Of each side, the share left clear around the title: inside @2's frame (at 4%) with room to spare. */
export const TITLE_MARGIN = 0.1;

/**
 * The title set in the bundled DejaVu Sans Bold (never a system font, so every machine draws the
 * same bytes), wrapped and shrunk to stay inside the margins, centred on the gradient.
 */
async function titleOverlay(title: string, width: number, height: number): Promise<OverlayOptions> {
  const box = {
    width: Math.floor(width * (1 - 2 * TITLE_MARGIN)),
    height: Math.floor(height * (1 - 2 * TITLE_MARGIN)),
  };
  const text = await setText({
    text: title.slice(0, 60),
    font: "sansBold",
    colour: "#ffffff",
    width: box.width,
    height: box.height,
    maxPx: Math.round(width / 12),
    align: "center",
  });
  return { input: text.data, left: Math.round((width - text.width) / 2), top: Math.round((height - text.height) / 2) };
}

export async function renderGradient(options: GradientOptions): Promise<ImageOutput> {
  const { width, height } = dimensions(options.aspectRatio, options.longSide);
  const image = sharp(Buffer.from(gradientSvg(options)));
  if (options.title) image.composite([await titleOverlay(options.title, width, height)]);
  const data = await (
    options.format === "jpeg"
      ? image.jpeg({ quality: 90 })
      : options.format === "webp"
        ? image.webp({ quality: 90 })
        : image.png()
  ).toBuffer();
  return { type: "image", content_type: IMAGE_FORMATS[options.format], data, width, height };
}
