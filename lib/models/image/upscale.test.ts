import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { ModelError } from "../../core/catalog/model-definition";
import { upscale } from "./upscale";
import { testRunTools } from "../testing/test-tools";

async function testImage(width: number, height: number): Promise<Buffer> {
  // Left half red, right half blue: enlarging must keep the split, not blur it into one colour.
  const left = await sharp({ create: { width: width / 2, height, channels: 3, background: "#ff0000" } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: "#0000ff" } })
    .composite([{ input: left, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

function runWith(file: Buffer, input: Record<string, unknown>) {
  const validated = validateModelInput(
    upscale.input_schema,
    { image: "file_AAAAAAAAAAAAAAAAAAAAAAAA", ...input },
    { modelId: upscale.id },
  );
  return upscale.run(
    validated,
    testRunTools({ files: { file_AAAAAAAAAAAAAAAAAAAAAAAA: { data: file, contentType: "image/png" } } }),
  );
}

describe("atelier/upscale", () => {
  it("enlarges 2× by default and keeps the picture", async () => {
    const [out] = await runWith(await testImage(64, 32), {});
    if (out?.type !== "image") throw new Error("expected an image output");
    const meta = await sharp(out!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 128, 64]);
    expect([out.width, out.height]).toEqual([128, 64]);
    const { data } = await sharp(out!.data).raw().toBuffer({ resolveWithObject: true });
    const channels = meta.channels!;
    const pixel = (x: number, y: number) => [...data.subarray((y * 128 + x) * channels, (y * 128 + x) * channels + 3)];
    expect(pixel(10, 32)).toEqual([255, 0, 0]);
    expect(pixel(118, 32)).toEqual([0, 0, 255]);
  });

  it("enlarges 4× into the asked format", async () => {
    const [out] = await runWith(await testImage(32, 32), { scale: 4, format: "webp", sharpen: false });
    const meta = await sharp(out!.data).metadata();
    expect([meta.format, meta.width, meta.height, out!.content_type]).toEqual(["webp", 128, 128, "image/webp"]);
  });

  it("refuses a result larger than 8192 pixels with a message for the person", async () => {
    await expect(runWith(await testImage(4000, 10), { scale: 4 })).rejects.toBeInstanceOf(ModelError);
  });

  it("enlarges a phone photo the way it is shown (EXIF orientation), not sideways", async () => {
    // Stored 80×40 (red left, blue right) with orientation 6: shown 40×80, red on top.
    const photo = await sharp(await testImage(80, 40))
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const [out] = await runWith(photo, { sharpen: false });
    expect(out).toMatchObject({ type: "image", width: 80, height: 160 });
    const { data, info } = await sharp(out!.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([80, 160]);
    const pixel = (x: number, y: number) => [...data.subarray((y * 80 + x) * 3, (y * 80 + x) * 3 + 3)];
    const [topR, , topB] = pixel(40, 20) as [number, number, number];
    const [bottomR, , bottomB] = pixel(40, 140) as [number, number, number];
    expect(topR).toBeGreaterThan(200);
    expect(topB).toBeLessThan(60);
    expect(bottomB).toBeGreaterThan(200);
    expect(bottomR).toBeLessThan(60);
  });

  it("fails a damaged or unreadable file with a message for the person", async () => {
    const png = await testImage(64, 32);
    const cut = png.subarray(0, Math.floor(png.length / 2));
    const damaged = await runWith(cut, {}).catch((err: unknown) => err);
    expect(damaged).toBeInstanceOf(ModelError);
    expect((damaged as Error).message).toBe(
      "The input image is damaged or cut short and could not be decoded: upload it again.",
    );
    const junk = await runWith(Buffer.from("this is not an image"), {}).catch((err: unknown) => err);
    expect(junk).toBeInstanceOf(ModelError);
    expect((junk as Error).message).toBe(
      "The input image could not be read: upload a PNG, JPEG, WebP, GIF, AVIF or TIFF file.",
    );
  });

  it("names the pixel limit for an image over it, rather than calling it unreadable", async () => {
    // Only the header is read, so a huge picture costs nothing to refuse: a 20000×20000 PNG of one row.
    const oneRow = await sharp({ create: { width: 20_000, height: 1, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const huge = Buffer.from(oneRow);
    huge.writeUInt32BE(20_000, 20); // IHDR height; sharp reads the header before any pixel
    const refused = await runWith(huge, {}).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ModelError);
    expect((refused as Error).message).toBe(
      "The input image is too large. The image is 20000×20000 pixels (400,000,000), over the limit of 268,402,689 pixels (16,383×16,383). Scale it down and run again.",
    );
  });

  it("takes only a file ID as its image", () => {
    expect(() =>
      validateModelInput(upscale.input_schema, { image: "https://example.com/a.png" }, { modelId: upscale.id }),
    ).toThrow(/expects a file ID/);
  });
});
