// The pixel limit on images, said the same way wherever an image comes in: a file upload, or a
// model's input image.
import { LIMITS } from "./limits";

/** Why an image of this size cannot be taken (it is over LIMITS.imagePixels), or null when it can. */
export function pixelLimitMessage(width: number, height: number): string | null {
  const pixels = width * height;
  if (pixels <= LIMITS.imagePixels) return null;
  const side = Math.floor(Math.sqrt(LIMITS.imagePixels));
  const n = (value: number) => value.toLocaleString("en-US");
  return (
    `The image is ${width}×${height} pixels (${n(pixels)}), over the limit of ${n(LIMITS.imagePixels)} pixels ` +
    `(${n(side)}×${n(side)}).`
  );
}
