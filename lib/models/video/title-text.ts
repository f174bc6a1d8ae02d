// The title's lines, set once with Pango (through sharp) and then moved frame by frame as images:
// wrapped to fit, shrunk when long, each line with a soft shadow so it reads on any colour.
import sharp from "sharp";
import { bundledFontFile } from "../common/font-dir";

export interface TitleLine {
  /** White text on transparent, PNG. */
  png: Buffer;
  /** The blurred black silhouette drawn beneath, PNG, `shadowPad` larger on every side. */
  shadow: Buffer;
  width: number;
  height: number;
}

export interface TitleLayout {
  lines: TitleLine[];
  fontSize: number;
  shadowPad: number;
}

const MAX_CHARS = 80;

/** The bundled font (lib/models/fonts: same look on every machine), else fontconfig's sans. */
function titleFont(): { name: string; file?: string } {
  const file = bundledFontFile("DejaVuSans-Bold.ttf");
  return file ? { name: "DejaVu Sans Bold", file } : { name: "Sans Bold" };
}

const FONT = titleFont();

function escapeMarkup(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function setLine(text: string, size: number): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp({
    text: {
      text: `<span foreground="white">${escapeMarkup(text)}</span>`,
      font: `${FONT.name} ${size}`,
      ...(FONT.file ? { fontfile: FONT.file } : {}),
      rgba: true,
      dpi: 72,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * The text the title shows: one line of words, cut at a word near MAX_CHARS. Emoji (the
 * supplementary-plane ones) go: no font here has them, and Pango would draw empty boxes.
 */
export function titleText(text: string): string {
  const words = text
    .replace(/[\u{1F000}-\u{1FAFF}]|\u{FE0F}|\u{200D}/gu, "")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  let out = "";
  for (const word of words) {
    const next = out ? `${out} ${word}` : word;
    if (next.length > MAX_CHARS) return `${(out || word.slice(0, MAX_CHARS - 1)).replace(/[\s.,;:!?-]+$/u, "")}…`;
    out = next;
  }
  return out;
}

/** Greedy wrap with widths measured at `size`; also tells the widest line (one long word can overflow). */
async function wrap(words: string[], size: number, maxWidth: number): Promise<{ lines: string[]; widest: number }> {
  const lines: string[] = [];
  let line = "";
  let lineWidth = 0;
  let widest = 0;
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    const width = (await setLine(candidate, size)).width;
    if (!line || width <= maxWidth) {
      line = candidate;
      lineWidth = width;
    } else {
      lines.push(line);
      widest = Math.max(widest, lineWidth);
      line = word;
      lineWidth = (await setLine(word, size)).width;
    }
  }
  if (line) lines.push(line);
  return { lines, widest: Math.max(widest, lineWidth) };
}

async function shadowOf(
  line: { data: Buffer; width: number; height: number },
  pad: number,
  sigma: number,
): Promise<Buffer> {
  const padded = await sharp({
    create: {
      width: line.width + 2 * pad,
      height: line.height + 2 * pad,
      channels: 4,
      background: { r: 0, g: 0, b: 0, alpha: 0 },
    },
  })
    .composite([{ input: line.data, left: pad, top: pad }])
    .png()
    .toBuffer();
  // Black where the letters are, then softened.
  return sharp(padded).linear([0, 0, 0, 1], [0, 0, 0, 0]).blur(sigma).png().toBuffer();
}

/**
 * Lays `text` out in at most `maxLines` lines no wider than `maxWidth`, starting at `fontSize` and
 * shrinking to half that until it fits (what still overflows is scaled down when drawn).
 */
export async function layoutTitle(
  text: string,
  fontSize: number,
  maxWidth: number,
  maxLines: number,
): Promise<TitleLayout> {
  const words = titleText(text).split(" ").filter(Boolean);
  let size = Math.round(fontSize);
  let { lines, widest } = await wrap(words, size, maxWidth);
  while ((lines.length > maxLines || widest > maxWidth) && size > fontSize * 0.5) {
    size = Math.round(size * 0.88);
    ({ lines, widest } = await wrap(words, size, maxWidth));
  }
  if (lines.length > maxLines) lines = [...lines.slice(0, maxLines - 1), `${lines[maxLines - 1]}…`];
  const shadowPad = Math.ceil(size * 0.3);
  const set = await Promise.all(
    lines.map(async (text) => {
      const line = await setLine(text, size);
      return {
        png: line.data,
        shadow: await shadowOf(line, shadowPad, size * 0.09),
        width: line.width,
        height: line.height,
      };
    }),
  );
  return { lines: set, fontSize: size, shadowPad };
}
