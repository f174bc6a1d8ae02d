import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { testRunTools } from "../testing/test-tools";
import { ModelError, type ImageOutput, type ModelOutput } from "../../core/catalog/model-definition";
import { cropBox, imageEdit } from "./image-edit";

const FILE = "file_AAAAAAAAAAAAAAAAAAAAAAAA";

/** Left half red, right half blue, with a white stripe across the middle for edges. */
async function testImage(width: number, height: number): Promise<Buffer> {
  const left = await sharp({ create: { width: width / 2, height, channels: 3, background: "#e02020" } })
    .png()
    .toBuffer();
  const stripe = await sharp({ create: { width, height: 4, channels: 3, background: "#ffffff" } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: "#2040e0" } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: stripe, left: 0, top: Math.floor(height / 2) - 2 },
    ])
    .png()
    .toBuffer();
}

function runWith(file: Buffer, input: Record<string, unknown>): Promise<ModelOutput[]> {
  const validated = validateModelInput(imageEdit.input_schema, { image: FILE, ...input }, { modelId: imageEdit.id });
  return imageEdit.run(validated, testRunTools({ files: { [FILE]: { data: file, contentType: "image/png" } } }));
}

async function rgb(output: ModelOutput) {
  const { data, info } = await sharp(output.data)
    .toColourspace("srgb")
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    data,
    info,
    mean: (c: number) => {
      let s = 0;
      for (let i = c; i < data.length; i += 3) s += data[i]!;
      return s / (data.length / 3);
    },
  };
}

describe("atelier/image-edit", () => {
  it("keeps the image as it is by default", async () => {
    const [out] = await runWith(await testImage(120, 80), {});
    expect(out).toMatchObject({ type: "image", content_type: "image/png", width: 120, height: 80 });
    const meta = await sharp(out!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 120, 80]);
    const { data } = await rgb(out!);
    expect([...data.subarray(0, 3)]).toEqual([0xe0, 0x20, 0x20]);
  });

  it.each([
    ["1:1", 80, 80],
    ["16:9", 120, 68],
    ["9:16", 45, 80],
    ["4:3", 107, 80],
  ])("crops to %s as %i×%i", async (aspect_ratio, width, height) => {
    const [out] = await runWith(await testImage(120, 80), { aspect_ratio });
    const meta = await sharp(out!.data).metadata();
    const { width: w, height: h } = out as ImageOutput;
    expect([meta.width, meta.height, w, h]).toEqual([width, height, width, height]);
    expect(cropBox(120, 80, aspect_ratio as "1:1")).toEqual({ width, height });
  });

  it("crops from the side the gravity names", async () => {
    const image = await testImage(120, 40);
    const [left] = await runWith(image, { aspect_ratio: "1:1", gravity: "left" });
    const [right] = await runWith(image, { aspect_ratio: "1:1", gravity: "right" });
    const l = await rgb(left!);
    const r = await rgb(right!);
    expect(l.mean(0)).toBeGreaterThan(l.mean(2));
    expect(r.mean(2)).toBeGreaterThan(r.mean(0));
  });

  it("resizes to a width, the height following the crop", async () => {
    const [out] = await runWith(await testImage(120, 80), { aspect_ratio: "1:1", width: 32, format: "webp" });
    const meta = await sharp(out!.data).metadata();
    expect([meta.format, meta.width, meta.height, out!.content_type]).toEqual(["webp", 32, 32, "image/webp"]);
  });

  it("grayscale makes red, green and blue equal", async () => {
    const [out] = await runWith(await testImage(64, 32), { filter: "grayscale" });
    const { data } = await rgb(out!);
    let unequal = 0;
    for (let i = 0; i < data.length; i += 3) if (data[i] !== data[i + 1] || data[i + 1] !== data[i + 2]) unequal++;
    expect(unequal).toBe(0);
    expect((await sharp(out!.data).stats()).channels[0]!.stdev).toBeGreaterThan(5);
  });

  it("sepia turns grey into warm browns", async () => {
    const grey = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#808080" } })
      .png()
      .toBuffer();
    const [out] = await runWith(grey, { filter: "sepia" });
    const { data } = await rgb(out!);
    const [r, g, b] = [data[0]!, data[1]!, data[2]!];
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
    expect(r - b).toBeGreaterThan(30);
  });

  it("blur softens edges, more with more strength; sharpen does the opposite", async () => {
    const image = await testImage(64, 64);
    const edge = async (input: Record<string, unknown>) => {
      const [out] = await runWith(image, input);
      const { data } = await rgb(out!);
      // Red channel just left and right of the red/blue boundary on a row away from the stripe.
      const at = (x: number) => data[(10 * 64 + x) * 3]!;
      return at(31) - at(32);
    };
    const sharpEdge = await edge({});
    const soft = await edge({ filter: "blur", blur_strength: 1 });
    const softer = await edge({ filter: "blur", blur_strength: 6 });
    expect(soft).toBeLessThan(sharpEdge);
    expect(softer).toBeLessThan(soft);
    expect(await edge({ filter: "sharpen" })).toBeGreaterThanOrEqual(sharpEdge);
  });

  it("gives identical bytes for the same input", async () => {
    const image = await testImage(64, 48);
    const [a] = await runWith(image, { filter: "sepia", aspect_ratio: "3:4", format: "jpeg" });
    const [b] = await runWith(image, { filter: "sepia", aspect_ratio: "3:4", format: "jpeg" });
    expect(Buffer.compare(a!.data, b!.data)).toBe(0);
  });

  it("follows the EXIF orientation of a phone photo", async () => {
    const photo = await sharp(await testImage(80, 40))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const [out] = await runWith(photo, {});
    const { width, height } = out as ImageOutput;
    expect([width, height]).toEqual([40, 80]);
  });

  it("refuses results over 8192 pixels and files that are not images", async () => {
    const tall = await sharp({ create: { width: 20, height: 2000, channels: 3, background: "#123456" } })
      .png()
      .toBuffer();
    await expect(runWith(tall, { width: 100 })).rejects.toBeInstanceOf(ModelError);
    await expect(runWith(Buffer.from("not an image at all"), {})).rejects.toBeInstanceOf(ModelError);
  });

  it("validates its fields and prices one image", () => {
    const check = (input: Record<string, unknown>) =>
      validateModelInput(imageEdit.input_schema, { image: FILE, ...input }, { modelId: imageEdit.id });
    expect(() => check({ width: 8 })).toThrow();
    expect(() => check({ width: 5000 })).toThrow();
    expect(() => check({ filter: "vintage" })).toThrow();
    expect(() => check({ aspect_ratio: "2:1" })).toThrow();
    expect(imageEdit.pricing).toMatchObject({ unit: "image", usd: "0.001", drivers: [] });
  });
});
