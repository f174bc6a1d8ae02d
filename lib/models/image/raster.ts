// Finishing touches the drawn image models share: film grain (flat vector fills look like clip
// art without it) and encoding to the asked format.
import type { OverlayOptions, Sharp } from "sharp";
import { IMAGE_FORMATS, type ImageFormat } from "../common/fields";
import { seededRandom } from "../common/random";
import type { ImageOutput } from "../../core/catalog/model-definition";

const TILE = 256;

/** A tiling overlay of seeded grey specks; `strength` is the alpha (0–255) of each speck. */
export function grain(seed: number, strength: number): OverlayOptions {
  const random = seededRandom(seed ^ 0x5f3759df);
  const pixels = Buffer.alloc(TILE * TILE * 4);
  for (let i = 0; i < TILE * TILE; i++) {
    const v = Math.floor(random() * 256);
    pixels[i * 4] = v;
    pixels[i * 4 + 1] = v;
    pixels[i * 4 + 2] = v;
    pixels[i * 4 + 3] = Math.floor(strength * (0.4 + random() * 0.6));
  }
  return { input: pixels, raw: { width: TILE, height: TILE, channels: 4 }, tile: true, gravity: "northwest" };
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Encodes to the asked format; the same pixels always give the same bytes. */
export async function encodeImage(
  image: Sharp,
  format: ImageFormat,
  width: number,
  height: number,
): Promise<ImageOutput> {
  const encoded =
    format === "jpeg"
      ? image.jpeg({ quality: 90, mozjpeg: true })
      : format === "webp"
        ? image.webp({ quality: 90 })
        : image.png({ compressionLevel: 6 });
  const data = await encoded.toBuffer();
  return { type: "image", content_type: IMAGE_FORMATS[format], data, width, height };
}
