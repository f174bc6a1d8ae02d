// Setting text for atelier/type-card with the fonts bundled in lib/models/fonts (never the
// machine's own): Pango through sharp's text input, fitted into a box and capped in size.
import path from "node:path";
import sharp, { type OutputInfo } from "sharp";
import { bundledFontDir } from "../common/font-dir";
import { escapeXml } from "./raster";

export const FONTS = {
  serif: { family: "DejaVu Serif", file: "DejaVuSerif.ttf" },
  serifItalic: { family: "DejaVu Serif Italic", file: "DejaVuSerif-Italic.ttf" },
  sans: { family: "DejaVu Sans", file: "DejaVuSans.ttf" },
  sansBold: { family: "DejaVu Sans Bold", file: "DejaVuSans-Bold.ttf" },
  sansLight: { family: "DejaVu Sans Light", file: "DejaVuSans-ExtraLight.ttf" },
  monoBold: { family: "DejaVu Sans Mono Bold", file: "DejaVuSansMono-Bold.ttf" },
} as const;
export type FontName = keyof typeof FONTS;

/** The bundled fonts folder (lib/models/fonts). */
export function fontDir(): string {
  const dir = bundledFontDir();
  if (dir === null) throw new Error("type-card: the bundled fonts (lib/models/fonts) were not found");
  return dir;
}

export interface SetText {
  text: string;
  font: FontName;
  colour: string;
  /** The box the text must stay inside. */
  width: number;
  height: number;
  /** The largest font size in pixels, so a short word does not fill the whole card. */
  maxPx: number;
  align: "left" | "center" | "right";
  /** Extra space between letters as a fraction of the font size (spaced-out labels). */
  tracking?: number;
}

export interface TextImage {
  data: Buffer;
  width: number;
  height: number;
  /** Font size in pixels the text was set at. */
  px: number;
}

/** Pango sets a font of `SIZE` points at `dpi`; 12 points at 72 dpi is 12 pixels. */
const SIZE = 12;

function markup(options: SetText): string {
  // Pango's letter_spacing is in 1/1024 points; in em it scales with whatever size autofit picks.
  const spacing = options.tracking ? ` letter_spacing="${Math.round(options.tracking * SIZE * 1024)}"` : "";
  return `<span foreground="${options.colour}"${spacing}>${escapeXml(options.text)}</span>`;
}

async function render(options: SetText, dpi: number, fit: boolean): Promise<{ data: Buffer; info: OutputInfo }> {
  const font = FONTS[options.font];
  return sharp({
    text: {
      text: markup(options),
      font: `${font.family} ${SIZE}`,
      fontfile: path.join(/*turbopackIgnore: true*/ fontDir(), font.file),
      ...(options.width > 0 ? { width: Math.floor(options.width) } : {}),
      ...(fit ? { height: Math.floor(options.height) } : { dpi }),
      align: options.align,
      rgba: true,
      wrap: "word-char",
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
}

/** The largest dpi at which each of the longest words fits on one line of the box. */
async function widestWordDpi(options: SetText): Promise<number> {
  const words = [...new Set(options.text.split(/\s+/).filter(Boolean))].sort((a, b) => b.length - a.length).slice(0, 3);
  let widest = 1;
  for (const word of words) {
    const { info } = await render({ ...options, text: word, width: 0 }, 72, false);
    widest = Math.max(widest, info.width);
  }
  return Math.floor((72 * options.width * 0.98) / widest);
}

/**
 * The text as a transparent PNG no larger than the box: Pango's autofit finds the size that
 * fills the box, capped at `maxPx`; words wrap, and a word too long for a line breaks.
 */
export async function setText(options: SetText): Promise<TextImage> {
  const fitted = await render(options, 72, true);
  const fitDpi = fitted.info.textAutofitDpi ?? 72;
  let dpi = Math.max(8, Math.min(fitDpi, Math.floor((options.maxPx * 72) / SIZE)));
  // Autofit happily breaks a word to set the rest larger ("Synthw-ave"); rather shrink until the
  // widest word fits a line, unless that would make the text tiny (one very long word).
  const wordDpi = await widestWordDpi(options);
  if (wordDpi < dpi && (wordDpi * SIZE) / 72 >= options.maxPx * 0.3) dpi = wordDpi;
  let { data, info } = dpi === fitDpi ? fitted : await render(options, dpi, false);
  if (info.width > options.width || info.height > options.height) {
    // Rounding can leave a line a pixel or two over: shrink rather than cross the margin.
    const resized = await sharp(data)
      .resize(Math.floor(options.width), Math.floor(options.height), { fit: "inside" })
      .png()
      .toBuffer({ resolveWithObject: true });
    ({ data, info } = resized);
  }
  return { data, width: info.width, height: info.height, px: (SIZE * dpi) / 72 };
}
