import jsQR from "jsqr";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { runModelForTest } from "../testing/test-tools";
import { ModelError, type ModelOutput } from "../../core/catalog/model-definition";
import { contrastRatio, qrCode } from "./qr-code";

function run(input: Record<string, unknown>): Promise<ModelOutput[]> {
  return runModelForTest(qrCode, { size: 256, ...input });
}

/** What a scanner reads from the image, or null. */
async function scan(output: ModelOutput): Promise<string | null> {
  const { data, info } = await sharp(output.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}

const URL = "https://example.com/menu?table=12&lang=en";

describe("atelier/qr-code", () => {
  it("makes a PNG of the asked size that scans back to the exact content", async () => {
    const [image] = await run({ content: URL });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 256, height: 256 });
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 256, 256]);
    expect(await scan(image!)).toBe(URL);
  });

  it.each(["square", "rounded", "dots"])("%s modules scan at every error correction level", async (module_style) => {
    for (const error_correction of ["L", "M", "Q", "H"]) {
      const [image] = await run({ content: URL, module_style, error_correction });
      expect(await scan(image!)).toBe(URL);
    }
  });

  it("keeps colours, margin and unicode text, and scans as JPEG too", async () => {
    const content = "Café ☕ — menu du jour: soupe à l'oignon, 12 €";
    const [image] = await run({
      content,
      foreground: "#1d3557",
      background: "#f1faee",
      module_style: "rounded",
      margin: 2,
      format: "jpeg",
    });
    expect(image!.content_type).toBe("image/jpeg");
    expect(await scan(image!)).toBe(content);
    // The corner pixel is the background colour; the quiet zone is there.
    const { data } = await sharp(image!.data).raw().toBuffer({ resolveWithObject: true });
    expect(Math.abs(data[0]! - 0xf1)).toBeLessThan(6);
    expect(Math.abs(data[2]! - 0xee)).toBeLessThan(6);
  });

  it("draws a wider quiet zone for a larger margin", async () => {
    const darkColumns = async (margin: number) => {
      const [image] = await run({ content: "hello", margin });
      const { data, info } = await sharp(image!.data).greyscale().raw().toBuffer({ resolveWithObject: true });
      let first = info.width;
      for (let i = 0; i < data.length; i++) if (data[i]! < 128) first = Math.min(first, i % info.width);
      return first;
    };
    expect(await darkColumns(8)).toBeGreaterThan(await darkColumns(1));
  });

  it("gives identical bytes for the same input", async () => {
    const [a] = await run({ content: URL, module_style: "dots" });
    const [b] = await run({ content: URL, module_style: "dots" });
    expect(Buffer.compare(a!.data, b!.data)).toBe(0);
    const [c] = await run({ content: `${URL}x`, module_style: "dots" });
    expect(a!.data.equals(c!.data)).toBe(false);
  });

  it("refuses colours too close to scan, and content too dense for the size", async () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    await expect(run({ content: URL, foreground: "#777777", background: "#888888" })).rejects.toBeInstanceOf(
      ModelError,
    );
    await expect(run({ content: "x".repeat(2000), error_correction: "H", size: 256 })).rejects.toThrow(
      /too long|too dense/,
    );
    await expect(run({ content: "x".repeat(800), size: 128 })).rejects.toThrow(/at least \d+/);
  });

  it("validates its fields", () => {
    const check = (input: Record<string, unknown>) =>
      validateModelInput(qrCode.input_schema, input, { modelId: qrCode.id });
    expect(check({ content: "hi" })).toMatchObject({
      size: 512,
      error_correction: "M",
      foreground: "#000000",
      background: "#ffffff",
      margin: 4,
    });
    expect(() => check({ content: "hi", foreground: "red" })).toThrow();
    expect(() => check({ content: "hi", margin: 11 })).toThrow();
    expect(() => check({ content: "" })).toThrow();
    expect(qrCode.pricing).toMatchObject({ unit: "image", usd: "0.001", drivers: [] });
  });
});
