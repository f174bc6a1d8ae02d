// What comes back from a provider, checked before we keep it: bodies read up to a size limit
// (a misbehaving provider cannot fill the memory), and images recognised by their bytes, not by
// what a header claims.
import sharp, { type Metadata } from "sharp";
import type { ImageOutput } from "../../core/catalog/model-definition";
import { BodyReadError, readCappedStream } from "../../primitives/http/read-capped";

/** Thrown when a body is larger than its limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${Math.round(limit / 1024 / 1024)} MB`);
    this.name = "BodyTooLargeError";
  }
}

export async function readCapped(response: Response, limit: number): Promise<Buffer> {
  try {
    return await readCappedStream(
      response.body,
      response.headers.get("content-length"),
      limit,
      () => new BodyTooLargeError(limit),
    );
  } catch (err) {
    // A provider's failures are sorted by the fetch's own error (abort, timeout, reset).
    throw err instanceof BodyReadError ? err.cause : err;
  }
}

const CONTENT_TYPES: Partial<Record<string, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
};

/** The bytes as an image output, or null when they are not an image format we serve. */
export async function imageOutputOf(data: Buffer): Promise<ImageOutput | null> {
  let meta: Metadata;
  try {
    meta = await sharp(data).metadata();
  } catch {
    return null;
  }
  const contentType = meta.format === "heif" && meta.compression === "av1" ? "image/avif" : CONTENT_TYPES[meta.format];
  if (!contentType || !meta.autoOrient?.width || !meta.autoOrient.height) return null;
  return {
    type: "image",
    content_type: contentType,
    data,
    width: meta.autoOrient.width,
    height: meta.autoOrient.height,
  };
}
