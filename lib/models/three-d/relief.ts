// atelier/relief-3d: an uploaded picture carved as a bas-relief tile. Its brightness becomes
// height (light stands out, or dark with `invert`), the picture itself is the front's texture,
// and side walls and a flat back close the solid, so it can be printed as well as viewed.
import sharp from "sharp";
import { fileInputField } from "../../core/catalog/file-inputs";
import { decodingInput, displayedImage, displayedSize } from "../image/input-image";
import { objectSchema, SEED_FIELD } from "../common/fields";
import type { ModelDefinition, RunTools } from "../../core/catalog/model-definition";
import { DETAIL_FIELD, DETAIL_LABELS, DETAIL_PRICING, type DetailLevel } from "./fields";
import { sceneOutput } from "./output";
import { reliefGeometry, type HeightField } from "./relief-mesh";
import { linearRgb, type Material, type Part, type Texture } from "./scene";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

/** Grid cells along the longer side, and the most texture pixels along it. */
const GRID: Record<DetailLevel, { cells: number; texture: number }> = {
  low: { cells: 64, texture: 512 },
  medium: { cells: 128, texture: 1024 },
  high: { cells: 256, texture: 1024 },
};

/** Solid backing behind the lowest point, as a fraction of the width. */
const BASE = 0.025;

/** Cells across and down for a picture of this shape: the longer side gets `cells`. */
export function reliefGrid(width: number, height: number, detail: DetailLevel): { cols: number; rows: number } {
  const cells = GRID[detail].cells;
  return width >= height
    ? { cols: cells, rows: Math.max(2, Math.round((cells * height) / width)) }
    : { cols: Math.max(2, Math.round((cells * width) / height)), rows: cells };
}

/** Brightness at every grid vertex, softened a little and stretched to use the whole depth. */
async function heightField(data: Buffer, cols: number, rows: number, invert: boolean): Promise<HeightField> {
  const grey = await decodingInput(() =>
    displayedImage(data)
      .flatten({ background: "#ffffff" })
      .greyscale()
      .resize(cols + 1, rows + 1, { fit: "fill" })
      .blur(1)
      .raw()
      .toBuffer(),
  );
  let [lo, hi] = [255, 0];
  for (const v of grey) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  const span = hi - lo || 1;
  const heights = Float32Array.from(grey, (v) => (invert ? hi - v : v - lo) / span);
  return { heights, cols, rows };
}

/**
 * The picture as the front's texture, each side a power of two (the texture coordinates stretch
 * to fit, so nothing shows it; older viewers cannot mipmap other sizes), no larger than `longSide`.
 */
async function texture(data: Buffer, picture: { width: number; height: number }, longSide: number): Promise<Texture> {
  const scale = Math.min(1, longSide / Math.max(picture.width, picture.height));
  const pot = (n: number) => 2 ** Math.max(0, Math.round(Math.log2(n * scale)));
  const { data: rgb, info } = await decodingInput(() =>
    displayedImage(data)
      .flatten({ background: "#ffffff" })
      .resize(pot(picture.width), pot(picture.height), { fit: "fill" })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  const png = await sharp(rgb, { raw: { width: info.width, height: info.height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return { png, rgb, width: info.width, height: info.height };
}

/** Makes the output of one run; `input` is validated with defaults filled. */
export async function makeRelief(
  input: Record<string, unknown>,
  tools: Pick<RunTools, "signal" | "reportProgress" | "readFile">,
): Promise<ThreeDOutput> {
  const { data } = await tools.readFile(input.image as string);
  const picture = await displayedSize(data);
  tools.reportProgress(0.05);
  tools.signal.throwIfAborted();
  const detail = input.detail as DetailLevel;
  const { cols, rows } = reliefGrid(picture.width, picture.height, detail);
  const [field, image] = await Promise.all([
    heightField(data, cols, rows, input.invert as boolean),
    texture(data, picture, GRID[detail].texture),
  ]);
  tools.reportProgress(0.3);
  tools.signal.throwIfAborted();

  // The longer side is `size` metres; depth is a fraction of the width.
  const size = input.size as number;
  const [width, height] =
    picture.width >= picture.height
      ? [size, (size * picture.height) / picture.width]
      : [(size * picture.width) / picture.height, size];
  const { front, sides } = reliefGeometry(field, {
    width,
    height,
    depth: (input.depth as number) * width,
    base: BASE * width,
  });
  const face: Material = {
    name: "Relief",
    color: [1, 1, 1, 1],
    metallic: 0,
    roughness: 0.62,
    blend: false,
    texture: image,
  };
  const plaster: Material = {
    name: "Relief sides",
    color: [...linearRgb("#e9e3d8"), 1],
    metallic: 0,
    roughness: 0.85,
    blend: false,
  };
  const parts: Part[] = [
    {
      name: "relief",
      translation: [0, 0, 0],
      primitives: [
        { geometry: front, material: face },
        { geometry: sides, material: plaster },
      ],
    },
  ];
  tools.reportProgress(0.45);
  return sceneOutput(parts, tools, 0.45, { azimuth: 28, elevation: 14 });
}

export const relief3d: ModelDefinition = {
  id: "atelier/relief-3d",
  type: "model",
  name: "Relief 3D",
  creator: "Atelier",
  modality: "3d",
  tasks: ["image-to-3d"],
  description:
    "Carves a picture into a textured bas-relief tile as a glTF binary: brightness becomes height, the picture colours the front, and side walls and a flat back make it a closed solid.",
  revision: "2026-11-24",
  status: "beta",
  pricing: DETAIL_PRICING,
  lifecycle: null,
  // No example can carry an image: each sets the other fields, and the studio asks for the image.
  examples: [
    { title: "Gentle relief", input: { depth: 0.06 } },
    { title: "Deep, dark stands out", input: { depth: 0.15, invert: true } },
    { title: "Fine detail, half a metre", input: { detail: "high", depth: 0.08, size: 0.5 } },
  ],
  enumLabels: { detail: DETAIL_LABELS },
  input_schema: objectSchema(
    {
      image: fileInputField("image/*", "Image", "The picture to carve: a file ID from POST /v1/files."),
      depth: {
        type: "number",
        title: "Depth",
        description: "How far the highest point stands out from the lowest, as a fraction of the width.",
        minimum: 0.01,
        maximum: 0.5,
        default: 0.08,
      },
      detail: {
        ...DETAIL_FIELD,
        description: "How fine the carving grid is: 64, 128 or 256 cells along the longer side.",
      },
      invert: {
        type: "boolean",
        title: "Invert",
        description: "Dark parts stand out instead of light ones.",
        default: false,
      },
      size: {
        type: "number",
        title: "Size",
        description: "Metres along the longer side of the tile.",
        minimum: 0.05,
        maximum: 10,
        default: 0.3,
      },
      seed: {
        ...SEED_FIELD,
        description:
          "Accepted like every model's; the relief depends only on the picture and the settings, so every seed gives the same result.",
      },
    },
    ["image"],
  ),
  async run(input, tools) {
    return [await makeRelief(input, tools)];
  },
};
