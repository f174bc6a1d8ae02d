import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { runModelForTest } from "../testing/test-tools";
import type { ModelOutput } from "../../core/catalog/model-definition";
import { gradient } from "./gradient";

function run(input: Record<string, unknown>): Promise<ModelOutput[]> {
  return runModelForTest(gradient, input);
}

async function decode(output: ModelOutput) {
  const meta = await sharp(output.data).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
}

describe("atelier/gradient", () => {
  it("makes one PNG by default, 512 pixels square", async () => {
    const outputs = await run({ prompt: "ocean dusk", seed: 42 });
    expect(outputs).toHaveLength(1);
    const [image] = outputs;
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 512 });
    expect(image!.data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(await decode(image!)).toEqual({ format: "png", width: 512, height: 512 });
  });

  it.each([
    ["1:1", "standard", 512, 512],
    ["16:9", "standard", 512, 288],
    ["9:16", "standard", 288, 512],
    ["4:3", "standard", 512, 384],
    ["3:4", "hd", 768, 1024],
    ["16:9", "hd", 1024, 576],
  ])("aspect ratio %s at %s resolution is %i×%i", async (aspect_ratio, resolution, width, height) => {
    const [image] = await run({ prompt: "forest fire", aspect_ratio, resolution, seed: 1 });
    expect(await decode(image!)).toEqual({ format: "png", width, height });
    expect(image).toMatchObject({ width, height });
  });

  it("gives identical bytes for the same prompt and seed", async () => {
    const [a] = await run({ prompt: "quiet harbour at dawn", seed: 1234 });
    const [b] = await run({ prompt: "quiet harbour at dawn", seed: 1234 });
    expect(Buffer.compare(a!.data, b!.data)).toBe(0);
  });

  it("gives different bytes for different prompts, or different seeds", async () => {
    const [a] = await run({ prompt: "ocean dusk", seed: 7 });
    const [b] = await run({ prompt: "forest fire", seed: 7 });
    const [c] = await run({ prompt: "ocean dusk", seed: 8 });
    expect(a!.data.equals(b!.data)).toBe(false);
    expect(a!.data.equals(c!.data)).toBe(false);
  });

  it("makes num_images images, each different", async () => {
    const outputs = await run({ prompt: "ocean dusk", num_images: 2, seed: 99 });
    expect(outputs).toHaveLength(2);
    for (const output of outputs) expect(await decode(output)).toEqual({ format: "png", width: 512, height: 512 });
    expect(outputs[0]!.data.equals(outputs[1]!.data)).toBe(false);
    // The first of a batch is the single image of the same seed.
    const [single] = await run({ prompt: "ocean dusk", seed: 99 });
    expect(outputs[0]!.data.equals(single!.data)).toBe(true);
  });

  it("remakes any image of a batch alone from its seed, which stays in range past the largest seed", async () => {
    const batch = await run({ prompt: "ocean dusk", num_images: 3, seed: 2147483646 });
    const [second] = await run({ prompt: "ocean dusk", seed: 2147483647 });
    // seed + 2 would be 2147483648, which the schema refuses: it wraps to 0.
    const [third] = await run({ prompt: "ocean dusk", seed: 0 });
    expect(batch[1]!.data.equals(second!.data)).toBe(true);
    expect(batch[2]!.data.equals(third!.data)).toBe(true);
  });

  it("writes the format asked for", async () => {
    const [jpeg] = await run({ prompt: "ocean", format: "jpeg", seed: 3 });
    expect(jpeg!.content_type).toBe("image/jpeg");
    expect((await decode(jpeg!)).format).toBe("jpeg");
    const [webp] = await run({ prompt: "ocean", format: "webp", seed: 3 });
    expect(webp!.content_type).toBe("image/webp");
    expect((await decode(webp!)).format).toBe("webp");
  });
});
