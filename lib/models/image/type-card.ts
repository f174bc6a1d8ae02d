// atelier/type-card: typographic cards and posters. The text is set with the bundled DejaVu
// fonts (type-card-text), fitted inside the margins, over a styled background
// (type-card-styles). The seed only picks decorative variants: same input + seed → same bytes.
import sharp, { type OverlayOptions } from "sharp";
import {
  FORMAT_FIELD,
  FORMAT_LABELS,
  objectSchema,
  SEED_FIELD,
  sizeFor,
  type AspectRatio,
  type ImageFormat,
} from "../common/fields";
import { seededRandom, seedOf } from "../common/random";
import { ModelError, type ImageOutput, type ModelDefinition } from "../../core/catalog/model-definition";
import { encodeImage, grain } from "./raster";
import { STYLES, type Block, type Frame, type StyleName } from "./type-card-styles";
import { setText, type TextImage } from "./type-card-text";

const LAYOUTS = { card: "1:1", poster: "3:4", banner: "16:9", story: "9:16" } as const satisfies Record<
  string,
  AspectRatio
>;
type Layout = keyof typeof LAYOUTS;
type Align = "left" | "center" | "right";

export interface TypeCardOptions {
  /** Empty renders the background and frame alone (tests compare against it). */
  text: string;
  subtitle?: string;
  layout: Layout;
  style: StyleName;
  align: Align;
  size: number;
  seed: number;
  format: ImageFormat;
}

function hexRgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

interface Placed {
  image: TextImage;
  left: number;
  top: number;
}

/** The text as one transparent full-size layer, recoloured, for glows and shadows. */
async function effectLayer(
  width: number,
  height: number,
  placed: Placed[],
  colour: string,
  opacity: number,
  blur: number,
  shift: number,
): Promise<Buffer> {
  const layer = await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(placed.map((p) => ({ input: p.image.data, left: p.left + shift, top: p.top + shift })))
    .png()
    .toBuffer();
  const [r, g, b] = hexRgb(colour);
  return sharp(layer).linear([0, 0, 0, opacity], [r, g, b, 0]).blur(blur).png().toBuffer();
}

export async function renderTypeCard(options: TypeCardOptions): Promise<ImageOutput> {
  const { width, height } = sizeFor(LAYOUTS[options.layout], options.size);
  const u = Math.min(width, height);
  const random = seededRandom(options.seed);
  const style = STYLES[options.style];
  const colours = style.colours(random);
  const margin = Math.round(u * 0.09);
  const box = style.box?.({ width, height, margin }) ?? {
    x: margin,
    y: margin,
    width: width - 2 * margin,
    height: height - 2 * margin,
  };
  const frame: Frame = { width, height, margin, box };
  const background = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${style.background(frame, colours, random)}</svg>`;
  const { align } = options;

  const placed: Placed[] = [];
  let block: Block | null = null;
  if (options.text) {
    const subtitleText = options.subtitle
      ? style.uppercaseSubtitle
        ? options.subtitle.toUpperCase()
        : options.subtitle
      : "";
    const sub = subtitleText
      ? await setText({
          text: subtitleText,
          font: style.subtitle,
          colour: colours.subtitle,
          width: box.width,
          height: box.height * 0.22,
          maxPx: u * 0.05,
          align,
          tracking: style.subtitleTracking,
        })
      : null;
    const gap = sub ? Math.round(u * 0.05) : 0;
    const above = Math.round(style.above * u);
    const title = await setText({
      text: options.text + (style.suffix ?? ""),
      font: style.title,
      colour: colours.text,
      width: box.width,
      height: box.height - above - (sub ? sub.height + gap : 0),
      maxPx: style.maxTitle * u,
      align,
    });
    const total = above + title.height + (sub ? gap + sub.height : 0);
    const top = Math.round(
      style.vertical === "top"
        ? box.y
        : style.vertical === "bottom"
          ? box.y + box.height - total
          : box.y + (box.height - total) / 2,
    );
    const x = (w: number) =>
      Math.round(align === "left" ? box.x : align === "right" ? box.x + box.width - w : box.x + (box.width - w) / 2);
    placed.push({ image: title, left: x(title.width), top: top + above });
    if (sub) placed.push({ image: sub, left: x(sub.width), top: top + above + title.height + gap });
    block = { x: box.x, y: top, width: box.width, height: total, subtitleY: sub ? placed[1]!.top : undefined, align };
  }

  const layers: OverlayOptions[] = [];
  if (style.grain) layers.push(grain(options.seed, style.grain));
  if (placed.length && style.effect === "glow") {
    // Only the title glows: a glow in another colour behind the subtitle makes it unreadable.
    const glow = await effectLayer(width, height, placed.slice(0, 1), colours.more[0]!, 1, Math.max(2, u * 0.014), 0);
    layers.push({ input: glow }, { input: glow });
  }
  if (placed.length && style.effect === "shadow") {
    layers.push({
      input: await effectLayer(width, height, placed, "#000000", 0.35, Math.max(1, u * 0.006), Math.round(u * 0.006)),
    });
  }
  for (const p of placed) layers.push({ input: p.image.data, left: p.left, top: p.top });
  const ornaments = style.ornaments(frame, colours, block);
  if (ornaments)
    layers.push({
      input: Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${ornaments}</svg>`,
      ),
      left: 0,
      top: 0,
    });

  const drawn = await sharp(Buffer.from(background)).composite(layers).raw().toBuffer({ resolveWithObject: true });
  const image = sharp(drawn.data, {
    raw: { width: drawn.info.width, height: drawn.info.height, channels: drawn.info.channels },
  }).removeAlpha();
  return encodeImage(image, options.format, width, height);
}

export const typeCard: ModelDefinition = {
  id: "atelier/type-card",
  type: "model",
  name: "Type card",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description:
    "Typographic cards, posters, banners and stories: your words set in a bundled typeface over a styled background, wrapped to stay inside the margins.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "image", usd: "0.002", drivers: [], overrides: [] },
  lifecycle: null,
  examples: [
    { title: "Motivation card", input: { text: "Make something wonderful today", subtitle: "Atelier" } },
    {
      title: "Event poster",
      input: {
        text: "Summer Jazz Night",
        subtitle: "Friday 8 pm · The Old Mill",
        layout: "poster",
        style: "neon-night",
      },
    },
    {
      title: "Sale banner",
      input: { text: "Everything 20% off this weekend", layout: "banner", style: "colour-block", align: "left" },
    },
    {
      title: "Story quote",
      input: {
        text: "Simplicity is the ultimate sophistication.",
        subtitle: "Leonardo da Vinci",
        layout: "story",
        style: "sunset-gradient",
      },
    },
  ],
  enumLabels: {
    layout: { card: "Card 1:1", poster: "Poster 3:4", banner: "Banner 16:9", story: "Story 9:16" },
    style: {
      "ink-on-paper": "Ink on paper",
      "neon-night": "Neon night",
      "colour-block": "Colour block",
      minimal: "Minimal",
      terminal: "Terminal",
      "sunset-gradient": "Sunset gradient",
    },
    align: { left: "Left", center: "Centre", right: "Right" },
    format: FORMAT_LABELS,
  },
  input_schema: objectSchema(
    {
      text: {
        type: "string",
        title: "Text",
        description:
          "The words on the card, shown exactly as written. Long text wraps and shrinks to fit; a line break starts a new line.",
        minLength: 1,
        maxLength: 280,
        examples: ["Make something wonderful today"],
      },
      subtitle: {
        type: "string",
        title: "Subtitle",
        description: "A smaller line under the text: a name, a date, a place. Optional.",
        maxLength: 120,
      },
      layout: {
        type: "string",
        title: "Layout",
        description: "Card 1:1, poster 3:4, banner 16:9 or story 9:16.",
        enum: Object.keys(LAYOUTS),
        default: "card",
      },
      style: {
        type: "string",
        title: "Style",
        description: "The look: ink on paper, neon night, bold colour block, minimal, terminal, or sunset gradient.",
        enum: Object.keys(STYLES),
        default: "ink-on-paper",
      },
      align: {
        type: "string",
        title: "Alignment",
        description: "How the lines line up.",
        enum: ["left", "center", "right"],
        default: "center",
      },
      size: {
        type: "integer",
        title: "Size",
        description: "Pixels on the long side.",
        enum: [512, 1024, 2048],
        default: 1024,
      },
      format: FORMAT_FIELD,
      seed: {
        ...SEED_FIELD,
        description:
          "Picks the colour variant and ornaments of the style; the same input and seed give the same image.",
      },
    },
    ["text"],
  ),
  async run(input, tools) {
    const text = (input.text as string).trim();
    if (!text) throw new ModelError("The text is blank: write the words the card should show.");
    tools.signal.throwIfAborted();
    const subtitle = typeof input.subtitle === "string" ? input.subtitle.trim() : "";
    return [
      await renderTypeCard({
        text,
        subtitle: subtitle || undefined,
        layout: input.layout as Layout,
        style: input.style as StyleName,
        align: input.align as Align,
        size: input.size as number,
        seed: seedOf(input),
        format: input.format as ImageFormat,
      }),
    ];
  },
};
