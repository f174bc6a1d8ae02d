// Reading a person's uploaded image the way they see it: phone photos carry their rotation in
// EXIF, so sizes and pixels are taken after auto-orient; and a file that cannot be decoded fails
// the run with a message for the person, not an unexpected error.
import sharp, { type Metadata, type Sharp } from "sharp";
import { pixelLimitMessage } from "../../primitives/image-pixels";
import { ModelError } from "../../core/catalog/model-definition";

const UNREADABLE = "The input image could not be read: upload a PNG, JPEG, WebP, GIF, AVIF or TIFF file.";
const DAMAGED = "The input image is damaged or cut short and could not be decoded: upload it again.";

/** What libvips says when the header read fine but the pixels did not (truncated or damaged file). */
const DECODE_FAILURE = /input|corrupt|premature|truncated|read error|bogus|unsupported image/i;

/** The image's size as displayed (EXIF rotation applied); a ModelError when it is not an image sharp reads. */
export async function displayedSize(data: Buffer): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    // The header alone, whatever its size, so an image over the pixel limit is told so, not called unreadable.
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    throw new ModelError(UNREADABLE);
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) throw new ModelError(UNREADABLE);
  const overLimit = pixelLimitMessage(width, height);
  if (overLimit) throw new ModelError(`The input image is too large. ${overLimit} Scale it down and run again.`);
  return { width, height };
}

/** The image as displayed, ready for a pipeline (build it on this, never on `sharp(data)`). */
export function displayedImage(data: Buffer): Sharp {
  return sharp(data, { autoOrient: true });
}

/** Runs the work that decodes the input's pixels; a decoding failure becomes a ModelError for the person. */
export async function decodingInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Error && !(err instanceof ModelError) && DECODE_FAILURE.test(err.message))
      throw new ModelError(DAMAGED);
    throw err;
  }
}
