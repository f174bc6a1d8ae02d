// atelier/qr-code: QR codes for text or links. The `qrcode` package computes the module matrix;
// we draw the modules ourselves (SVG → sharp) so colours, module shapes and the quiet zone are
// ours, while the three finder "eyes" keep the 1:1:3:1:1 proportions scanners look for.
import QRCode from "qrcode";
import sharp from "sharp";
import { FORMAT_FIELD, FORMAT_LABELS, colorField, objectSchema, type ImageFormat } from "../common/fields";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";
import { encodeImage } from "./raster";

/** Below this WCAG contrast ratio phone cameras often fail to tell modules from background. */
export const MIN_CONTRAST = 3;
/** Pixels per module below which codes stop scanning reliably. */
const MIN_MODULE_PIXELS = 3;

type ModuleStyle = "square" | "rounded" | "dots";

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** WCAG 2 contrast ratio of two #rrggbb colours, 1–21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

function isFinder(row: number, col: number, n: number): boolean {
  return (row < 7 && col < 7) || (row < 7 && col >= n - 7) || (row >= n - 7 && col < 7);
}

/** Modules of the small 5×5 alignment patterns: reserved, and not timing, format or version bits. */
function isAlignment(
  matrix: { size: number; isReserved(row: number, col: number): number },
  row: number,
  col: number,
): boolean {
  const n = matrix.size;
  if (!matrix.isReserved(row, col) || row === 6 || col === 6) return false;
  const nearFinder = (row <= 8 && col <= 8) || (row <= 8 && col >= n - 8) || (row >= n - 8 && col <= 8);
  const versionBits = (row < 6 && col >= n - 11) || (col < 6 && row >= n - 11);
  return !nearFinder && !versionBits;
}

/** One finder eye at module (row, col): a 7×7 ring and a 3×3 centre, rounded to match the style. */
function eye(x: number, y: number, cell: number, style: ModuleStyle, colour: string): string {
  const outer = style === "square" ? 0 : style === "rounded" ? cell * 1.6 : cell * 2.6;
  const inner = style === "square" ? 0 : style === "rounded" ? cell * 0.8 : cell * 1.5;
  const ring = `M${x},${y + outer}a${outer},${outer} 0 0 1 ${outer},${-outer}h${7 * cell - 2 * outer}a${outer},${outer} 0 0 1 ${outer},${outer}v${7 * cell - 2 * outer}a${outer},${outer} 0 0 1 ${-outer},${outer}h${-(7 * cell - 2 * outer)}a${outer},${outer} 0 0 1 ${-outer},${-outer}Z`;
  const o2 = Math.max(0, outer - cell);
  const hole = `M${x + cell},${y + cell + o2}v${5 * cell - 2 * o2}a${o2},${o2} 0 0 0 ${o2},${o2}h${5 * cell - 2 * o2}a${o2},${o2} 0 0 0 ${o2},${-o2}v${-(5 * cell - 2 * o2)}a${o2},${o2} 0 0 0 ${-o2},${-o2}h${-(5 * cell - 2 * o2)}a${o2},${o2} 0 0 0 ${-o2},${o2}Z`;
  return `<path d="${ring}${hole}" fill="${colour}" fill-rule="evenodd"/><rect x="${x + 2 * cell}" y="${y + 2 * cell}" width="${3 * cell}" height="${3 * cell}" rx="${inner}" fill="${colour}"/>`;
}

export function qrSvg(options: {
  content: string;
  level: "L" | "M" | "Q" | "H";
  size: number;
  margin: number;
  style: ModuleStyle;
  foreground: string;
  background: string;
}): string {
  let matrix;
  try {
    matrix = QRCode.create(options.content, { errorCorrectionLevel: options.level }).modules;
  } catch {
    throw new ModelError(
      `The content is too long for a QR code at error correction ${options.level}: shorten it or choose a lower level (L holds the most).`,
    );
  }
  const n = matrix.size;
  // Whole pixels per module: uneven module widths are what makes small codes fail to scan.
  const cell = Math.floor(options.size / (n + 2 * options.margin));
  if (cell < MIN_MODULE_PIXELS) {
    const needed = MIN_MODULE_PIXELS * (n + 2 * options.margin);
    throw new ModelError(
      `This content needs a ${n}×${n} code, too dense to scan at ${options.size} pixels: choose a size of at least ${needed}, a lower error correction, or shorter content.`,
    );
  }
  const offset = Math.floor((options.size - cell * n) / 2);
  const at = (i: number) => offset + i * cell;
  const dark = (row: number, col: number) =>
    row >= 0 && col >= 0 && row < n && col < n && matrix.get(row, col) === 1 && !isFinder(row, col, n);
  const shapes: string[] = [];
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (!dark(row, col)) continue;
      const x = at(col);
      const y = at(row);
      if (options.style === "square") {
        shapes.push(`M${x},${y}h${cell}v${cell}h${-cell}Z`);
      } else if (options.style === "dots" && isAlignment(matrix, row, col)) {
        // Alignment patterns stay solid: scanners find the grid's far corner by them.
        shapes.push(`M${x},${y}h${cell}v${cell}h${-cell}Z`);
      } else if (options.style === "dots") {
        const r = cell * 0.45;
        shapes.push(`M${x + cell / 2 - r},${y + cell / 2}a${r},${r} 0 1 1 ${2 * r},0a${r},${r} 0 1 1 ${-2 * r},0Z`);
      } else {
        // Rounded: a disc per module, bridged to dark neighbours, so only outer corners round.
        const r = cell / 2;
        // Every subpath winds clockwise, so overlaps add up under the nonzero rule instead of cancelling.
        shapes.push(`M${x},${y + r}a${r},${r} 0 1 1 ${cell},0a${r},${r} 0 1 1 ${-cell},0Z`);
        if (dark(row, col + 1)) shapes.push(`M${x + r},${y}h${cell}v${cell}h${-cell}Z`);
        if (dark(row + 1, col)) shapes.push(`M${x},${y + r}h${cell}v${cell}h${-cell}Z`);
      }
    }
  }
  const eyes = [
    [0, 0],
    [0, n - 7],
    [n - 7, 0],
  ].map(([row, col]) => eye(at(col!), at(row!), cell, options.style, options.foreground));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${options.size}" height="${options.size}" viewBox="0 0 ${options.size} ${options.size}" shape-rendering="${options.style === "square" ? "crispEdges" : "geometricPrecision"}">
<rect width="100%" height="100%" fill="${options.background}"/><path d="${shapes.join("")}" fill="${options.foreground}" fill-rule="nonzero"/>${eyes.join("")}</svg>`;
}

export const qrCode: ModelDefinition = {
  id: "atelier/qr-code",
  type: "model",
  name: "QR code",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description: "A scannable QR code for a link or any text, in your colours, with square, rounded or dotted modules.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "image", usd: "0.001", drivers: [], overrides: [] },
  lifecycle: null,
  examples: [
    { title: "Link to a menu", input: { content: "https://example.com/menu" } },
    {
      title: "Guest Wi-Fi, rounded",
      input: { content: "WIFI:T:WPA;S:Atelier Guest;P:welcome-2027;;", module_style: "rounded", foreground: "#1e3a8a" },
    },
    {
      title: "Dotted, on cream",
      input: {
        content: "https://atelier.example/launch",
        module_style: "dots",
        foreground: "#7c2d12",
        background: "#fff7ed",
        error_correction: "H",
      },
    },
  ],
  enumLabels: {
    error_correction: { L: "L · 7%", M: "M · 15%", Q: "Q · 25%", H: "H · 30%" },
    module_style: { square: "Squares", rounded: "Rounded", dots: "Dots" },
    format: FORMAT_LABELS,
  },
  input_schema: objectSchema(
    {
      content: {
        type: "string",
        title: "Content",
        description: "The text or URL the code holds; a phone camera shows it when scanned.",
        minLength: 1,
        maxLength: 2000,
        examples: ["https://example.com/menu"],
      },
      size: {
        type: "integer",
        title: "Size",
        description: "Width and height of the image in pixels.",
        minimum: 128,
        maximum: 2048,
        default: 512,
      },
      error_correction: {
        type: "string",
        title: "Error correction",
        description:
          "How much of the code may be damaged or covered and still scan: L 7%, M 15%, Q 25%, H 30%. Higher levels make denser codes.",
        enum: ["L", "M", "Q", "H"],
        default: "M",
      },
      foreground: colorField(
        "Foreground colour",
        "Colour of the modules, as #rrggbb. Keep it darker than the background.",
        "#000000",
      ),
      background: colorField("Background colour", "Colour behind the modules, as #rrggbb.", "#ffffff"),
      module_style: {
        type: "string",
        title: "Module style",
        description: "Shape of the small squares: plain squares, rounded and joined, or separate dots.",
        enum: ["square", "rounded", "dots"],
        default: "square",
      },
      margin: {
        type: "integer",
        title: "Margin",
        description:
          "Quiet zone around the code, in modules. Scanners need about 4 unless the code sits on a plain background.",
        minimum: 0,
        maximum: 10,
        default: 4,
      },
      format: FORMAT_FIELD,
    },
    ["content"],
  ),
  async run(input, tools) {
    const foreground = input.foreground as string;
    const background = input.background as string;
    const ratio = contrastRatio(foreground, background);
    if (ratio < MIN_CONTRAST) {
      throw new ModelError(
        `The colours ${foreground} and ${background} are too close (contrast ${ratio.toFixed(1)}:1, at least ${MIN_CONTRAST}:1 is needed) for the code to scan. Pick a darker foreground or a lighter background.`,
      );
    }
    const size = input.size as number;
    const svg = qrSvg({
      content: input.content as string,
      level: input.error_correction as "L" | "M" | "Q" | "H",
      size,
      margin: input.margin as number,
      style: input.module_style as ModuleStyle,
      foreground,
      background,
    });
    tools.signal.throwIfAborted();
    return [await encodeImage(sharp(Buffer.from(svg)).removeAlpha(), input.format as ImageFormat, size, size)];
  },
};
