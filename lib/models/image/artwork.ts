// atelier/artwork: generative abstract art. Prompt words pick the palette (artwork-palette),
// the composition and the motifs; the seed places everything; sharp rasterises the SVG and
// adds grain. Same input + seed → the same bytes.
import sharp from "sharp";
import {
  ASPECT_RATIO_FIELD,
  FORMAT_FIELD,
  FORMAT_LABELS,
  NUM_IMAGES_FIELD,
  objectSchema,
  SEED_FIELD,
  sizeFor,
  type AspectRatio,
  type ImageFormat,
} from "../common/fields";
import { nthSeed, seededRandom, seedOf } from "../common/random";
import type { ImageOutput, ModelDefinition } from "../../core/catalog/model-definition";
import { MOTIF_WORDS, MOTIFS, type Motif } from "./artwork-motifs";
import { paletteFor, promptWords } from "./artwork-palette";
import { grid, radial, scatter, spiral } from "./artwork-patterns";
import { horizon, stripes, waves } from "./artwork-landscapes";
import { defs, pick, type Scene } from "./artwork-scene";
import { encodeImage, grain } from "./raster";

const COMPOSITIONS = { grid, radial, waves, spiral, scatter, stripes, horizon } as const;
type Composition = keyof typeof COMPOSITIONS;

/** Words (already singular) that name a composition; the first one in the prompt wins. */
const COMPOSITION_WORDS: Record<string, Composition> = {
  grid: "grid",
  mosaic: "grid",
  checker: "grid",
  quilt: "grid",
  radial: "radial",
  mandala: "radial",
  burst: "radial",
  sunburst: "radial",
  target: "radial",
  kaleidoscope: "radial",
  wave: "waves",
  flow: "waves",
  ripple: "waves",
  tide: "waves",
  dune: "waves",
  spiral: "spiral",
  swirl: "spiral",
  vortex: "spiral",
  whirl: "spiral",
  sunflower: "spiral",
  scatter: "scatter",
  float: "scatter",
  floating: "scatter",
  drift: "scatter",
  cloud: "scatter",
  stripe: "stripes",
  band: "stripes",
  horizon: "horizon",
  landscape: "horizon",
  valley: "horizon",
  vista: "horizon",
  lake: "horizon",
};

/** Softer hints: scene words that suggest a composition when none is named. */
const COMPOSITION_HINTS: Record<string, Composition> = {
  ocean: "waves",
  sea: "waves",
  beach: "waves",
  sunset: "horizon",
  sunrise: "horizon",
  dusk: "horizon",
  mountain: "horizon",
  galaxy: "spiral",
  confetti: "scatter",
};

const SIZES = [512, 768, 1024] as const;

interface Plan {
  composition: Composition;
  motifs: Motif[];
  ignore: Set<string>;
}

/** Reads the prompt's layout words; the seed decides whatever the prompt leaves open. */
export function planFor(prompt: string, random: () => number): Plan {
  const words = promptWords(prompt);
  const named = words
    .map((w) => (Object.hasOwn(COMPOSITION_WORDS, w) ? COMPOSITION_WORDS[w] : undefined))
    .find(Boolean);
  const hinted = words
    .map((w) => (Object.hasOwn(COMPOSITION_HINTS, w) ? COMPOSITION_HINTS[w] : undefined))
    .find(Boolean);
  const seeded = pick(random, Object.keys(COMPOSITIONS) as Composition[]);
  const motifs = [
    ...new Set(
      words
        .map((w) => (Object.hasOwn(MOTIF_WORDS, w) ? MOTIF_WORDS[w] : undefined))
        .filter((m): m is Motif => Boolean(m)),
    ),
  ];
  if (motifs.length === 0) {
    const pool = MOTIFS.filter((m) => m !== "mountain");
    const first = pick(random, pool);
    motifs.push(
      first,
      pick(
        random,
        pool.filter((m) => m !== first),
      ),
    );
  }
  const ignore = new Set(words.filter((w) => Object.hasOwn(COMPOSITION_WORDS, w) || Object.hasOwn(MOTIF_WORDS, w)));
  return { composition: named ?? hinted ?? seeded, motifs, ignore };
}

export async function renderArtwork(options: {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  format: ImageFormat;
}): Promise<ImageOutput> {
  const { width, height, seed } = options;
  const random = seededRandom(seed);
  const plan = planFor(options.prompt, random);
  const palette = paletteFor(options.prompt, plan.ignore, random);
  const scene: Scene = { width, height, palette, motifs: plan.motifs, random };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${defs(scene)}
<rect width="100%" height="100%" fill="url(#ground)"/>${COMPOSITIONS[plan.composition](scene)}<rect width="100%" height="100%" fill="url(#vignette)"/></svg>`;
  const drawn = await sharp(Buffer.from(svg))
    .composite([grain(seed, palette.dark ? 26 : 20)])
    .raw()
    .toBuffer({ resolveWithObject: true });
  const image = sharp(drawn.data, {
    raw: { width: drawn.info.width, height: drawn.info.height, channels: drawn.info.channels },
  }).removeAlpha();
  return encodeImage(image, options.format, width, height);
}

export const artwork: ModelDefinition = {
  id: "atelier/artwork",
  type: "model",
  name: "Artwork",
  creator: "Atelier",
  modality: "image",
  tasks: ["text-to-image"],
  description:
    "Generative abstract art: colour and mood words (ocean, sunset, neon, pastel…) set the palette, layout words (grid, radial, waves, spiral, scatter, stripes, horizon) the composition, and shape words (circles, stars, triangles, mountains…) the motifs.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "image", usd: "0.003", drivers: ["num_images"], overrides: [] },
  lifecycle: null,
  examples: [
    { title: "Neon grid", input: { prompt: "neon night grid of circles and stars" } },
    { title: "Pastel sunrise", input: { prompt: "pastel mountains at sunrise", aspect_ratio: "16:9" } },
    { title: "Ocean spiral", input: { prompt: "ocean spiral of dots and waves", aspect_ratio: "1:1" } },
    {
      title: "Golden forest poster",
      input: { prompt: "gold forest stripes with triangles", aspect_ratio: "3:4", num_images: 2 },
    },
  ],
  enumLabels: { format: FORMAT_LABELS },
  input_schema: objectSchema(
    {
      prompt: {
        type: "string",
        title: "Prompt",
        description:
          "What to paint. Colour words (ocean, sunset, forest, neon, pastel, night, fire, ice, gold…) pick the palette, layout words (grid, radial, waves, spiral, scatter, stripes, horizon) the composition, shape words (circles, triangles, stars, squares, lines, dots, mountains, flowers) the motifs.",
        minLength: 1,
        maxLength: 1000,
        examples: ["neon night grid of circles and stars", "pastel mountains at sunrise"],
      },
      aspect_ratio: ASPECT_RATIO_FIELD,
      size: {
        type: "integer",
        title: "Size",
        description: "Pixels on the long side of each image.",
        enum: [...SIZES],
        default: 768,
      },
      num_images: NUM_IMAGES_FIELD,
      format: FORMAT_FIELD,
      seed: SEED_FIELD,
    },
    ["prompt"],
  ),
  async run(input, tools) {
    const seed = seedOf(input);
    const { width, height } = sizeFor(input.aspect_ratio as AspectRatio, input.size as number);
    const outputs: ImageOutput[] = [];
    for (let i = 0; i < (input.num_images as number); i++) {
      tools.signal.throwIfAborted();
      const imageSeed = nthSeed(seed, i);
      outputs.push(
        await renderArtwork({
          prompt: input.prompt as string,
          width,
          height,
          seed: imageSeed,
          format: input.format as ImageFormat,
        }),
      );
    }
    return outputs;
  },
};
