import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import type { ImageOutput, ModelOutput } from "../../core/catalog/model-definition";
import { artwork, planFor } from "./artwork";
import { paletteFor } from "./artwork-palette";
import { seededRandom } from "../common/random";

function run(input: Record<string, unknown>): Promise<ModelOutput[]> {
  return runModelForTest(artwork, { size: 512, ...input });
}

async function pixels(output: ModelOutput) {
  const { data, info } = await sharp(output.data)
    .removeAlpha()
    .resize(64, 64, { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, info };
}

/** Mean absolute difference per channel, 0–255, of two images scaled to the same small size. */
async function difference(a: ModelOutput, b: ModelOutput): Promise<number> {
  const [pa, pb] = [await pixels(a), await pixels(b)];
  let sum = 0;
  for (let i = 0; i < pa.data.length; i++) sum += Math.abs(pa.data[i]! - pb.data[i]!);
  return sum / pa.data.length;
}

describe("atelier/artwork", () => {
  it("paints one PNG at the asked size that is a picture, not a flat field", async () => {
    const [image] = await run({ prompt: "neon night grid of circles and stars", seed: 42 });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 512 });
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 512]);
    const stats = await sharp(image!.data).stats();
    for (const channel of stats.channels.slice(0, 3)) expect(channel.stdev).toBeGreaterThan(20);
  });

  it.each([
    ["16:9", 512, 288],
    ["9:16", 288, 512],
    ["3:4", 384, 512],
  ])("aspect ratio %s is %i×%i", async (aspect_ratio, width, height) => {
    const [image] = await run({ prompt: "ocean waves", aspect_ratio, seed: 1 });
    const meta = await sharp(image!.data).metadata();
    const { width: w, height: h } = image as ImageOutput;
    expect([meta.width, meta.height, w, h]).toEqual([width, height, width, height]);
  });

  it("gives identical bytes for the same prompt and seed", async () => {
    const [a] = await run({ prompt: "forest mandala of flowers", seed: 1234 });
    const [b] = await run({ prompt: "forest mandala of flowers", seed: 1234 });
    expect(Buffer.compare(a!.data, b!.data)).toBe(0);
  });

  it("looks different for different prompts with the same seed", async () => {
    const [fire] = await run({ prompt: "fire", seed: 7 });
    const [ice] = await run({ prompt: "ice", seed: 7 });
    expect(await difference(fire!, ice!)).toBeGreaterThan(25);
    // Fire is warm (more red than blue), ice is cool.
    const [f, i] = [await sharp(fire!.data).stats(), await sharp(ice!.data).stats()];
    expect(f.channels[0]!.mean - f.channels[2]!.mean).toBeGreaterThan(i.channels[0]!.mean - i.channels[2]!.mean);
    expect(i.channels[2]!.mean).toBeGreaterThan(i.channels[0]!.mean);
  });

  it("reads colour, composition and motif words, and falls back to word hashes", () => {
    const plan = planFor("pastel spiral of stars and triangles", seededRandom(1));
    expect(plan.composition).toBe("spiral");
    expect(plan.motifs).toEqual(["star", "triangle"]);
    expect(planFor("a quiet mountain lake", seededRandom(1)).composition).toBe("horizon");
    const fox = paletteFor("fox", new Set(), seededRandom(3));
    const kite = paletteFor("kite", new Set(), seededRandom(3));
    expect(fox.inks).not.toEqual(kite.inks);
  });

  it("makes num_images different images; the first is the single image of that seed", async () => {
    const outputs = await run({ prompt: "gold stripes at night", num_images: 3, seed: 99 });
    expect(outputs).toHaveLength(3);
    expect(outputs[0]!.data.equals(outputs[1]!.data)).toBe(false);
    expect(outputs[1]!.data.equals(outputs[2]!.data)).toBe(false);
    expect(await difference(outputs[0]!, outputs[1]!)).toBeGreaterThan(5);
    const [single] = await run({ prompt: "gold stripes at night", seed: 99 });
    expect(outputs[0]!.data.equals(single!.data)).toBe(true);
  });

  it("writes JPEG and WebP when asked", async () => {
    for (const [format, type] of [
      ["jpeg", "image/jpeg"],
      ["webp", "image/webp"],
    ] as const) {
      const [image] = await run({ prompt: "tropical waves", format, seed: 3 });
      expect(image!.content_type).toBe(type);
      expect((await sharp(image!.data).metadata()).format).toBe(format);
    }
  });

  it("prices each image and bounds its fields", () => {
    expect(artwork.pricing).toMatchObject({ unit: "image", usd: "0.003", drivers: ["num_images"] });
    const check = (input: Record<string, unknown>) =>
      validateModelInput(artwork.input_schema, input, { modelId: artwork.id });
    expect(check({ prompt: "sea" })).toMatchObject({ size: 768, num_images: 1, aspect_ratio: "1:1", format: "png" });
    expect(() => check({ prompt: "" })).toThrow();
    expect(() => check({ prompt: "sea", num_images: 5 })).toThrow();
    expect(() => check({ prompt: "sea", size: 300 })).toThrow();
  });

  it("stops when the run is canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runModelForTest(artwork, { prompt: "sea", size: 512 }, testRunTools({ signal: controller.signal })),
    ).rejects.toThrow();
  });
});
