import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { runModelForTest } from "../testing/test-tools";
import { ModelError, type ModelOutput } from "../../core/catalog/model-definition";
import { STYLES, type StyleName } from "./type-card-styles";
import { renderTypeCard, typeCard, type TypeCardOptions } from "./type-card";

const BASE: TypeCardOptions = {
  text: "",
  layout: "card",
  style: "ink-on-paper",
  align: "center",
  size: 512,
  seed: 3,
  format: "png",
};
const LONG =
  "Every good poster says one thing clearly, and this one keeps on talking far past the point where a designer would have cut it, just to prove the words wrap and shrink to stay inside the margins of the card.";

function run(input: Record<string, unknown>): Promise<ModelOutput[]> {
  return runModelForTest(typeCard, { size: 512, ...input });
}

async function rgb(data: Buffer) {
  return sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Pixels that differ clearly between two renders, and the box around them. */
async function changed(a: Buffer, b: Buffer) {
  const [pa, pb] = [await rgb(a), await rgb(b)];
  const { width } = pa.info;
  let count = 0;
  const bounds = { left: Infinity, top: Infinity, right: -1, bottom: -1 };
  for (let i = 0; i < pa.data.length; i += 3) {
    const d =
      Math.abs(pa.data[i]! - pb.data[i]!) +
      Math.abs(pa.data[i + 1]! - pb.data[i + 1]!) +
      Math.abs(pa.data[i + 2]! - pb.data[i + 2]!);
    if (d < 90) continue;
    count++;
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    bounds.left = Math.min(bounds.left, x);
    bounds.right = Math.max(bounds.right, x);
    bounds.top = Math.min(bounds.top, y);
    bounds.bottom = Math.max(bounds.bottom, y);
  }
  return { count, bounds };
}

/** Mean absolute difference per channel, 0–255, of two images scaled down to 64×64. */
async function coarseDifference(a: Buffer, b: Buffer): Promise<number> {
  const small = (data: Buffer) => sharp(data).removeAlpha().resize(64, 64, { fit: "fill" }).raw().toBuffer();
  const [pa, pb] = [await small(a), await small(b)];
  let sum = 0;
  for (let i = 0; i < pa.length; i++) sum += Math.abs(pa[i]! - pb[i]!);
  return sum / pa.length;
}

describe("atelier/type-card", () => {
  it("makes a PNG card of the asked size by default", async () => {
    const [image] = await run({ text: "Make something wonderful", seed: 1 });
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 512 });
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 512]);
  });

  it.each([
    ["poster", 384, 512],
    ["banner", 512, 288],
    ["story", 288, 512],
  ])("the %s layout is %i×%i", async (layout, width, height) => {
    const [image] = await run({ text: "Hello", layout, seed: 1, format: "webp" });
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", width, height]);
  });

  it.each(Object.keys(STYLES))(
    "%s: the text is really drawn, and long text stays inside the margins",
    async (style) => {
      const options = { ...BASE, style: style as StyleName };
      const background = await renderTypeCard(options);
      const short = await changed((await renderTypeCard({ ...options, text: "Hello world" })).data, background.data);
      expect(short.count).toBeGreaterThan(512 * 512 * 0.01);
      const long = await changed(
        (await renderTypeCard({ ...options, text: LONG, subtitle: "A subtitle under it all" })).data,
        background.data,
      );
      expect(long.count).toBeGreaterThan(short.count);
      const margin = Math.round(512 * 0.09);
      // A glow may bleed a few pixels past the letters it surrounds.
      const bleed = STYLES[style as StyleName].effect === "none" ? 0 : 10;
      expect(long.bounds.left).toBeGreaterThanOrEqual(margin - bleed);
      expect(long.bounds.top).toBeGreaterThanOrEqual(margin - bleed);
      expect(long.bounds.right).toBeLessThan(512 - margin + bleed);
      expect(long.bounds.bottom).toBeLessThan(512 - margin + bleed);
    },
  );

  it("aligns lines to the left or the right margin", async () => {
    const background = (await renderTypeCard({ ...BASE, style: "minimal" })).data;
    const left = await changed(
      (await renderTypeCard({ ...BASE, style: "minimal", text: "Left", align: "left" })).data,
      background,
    );
    const right = await changed(
      (await renderTypeCard({ ...BASE, style: "minimal", text: "Right", align: "right" })).data,
      background,
    );
    const margin = Math.round(512 * 0.09);
    expect(left.bounds.left).toBeLessThan(margin + 10);
    expect(left.bounds.right).toBeLessThan(300);
    expect(right.bounds.right).toBeGreaterThan(512 - margin - 10);
    expect(right.bounds.left).toBeGreaterThan(200);
  });

  it("gives identical bytes for the same input and seed; other words or seeds differ", async () => {
    const input = { text: "Open studio", subtitle: "Saturday", style: "colour-block", seed: 11 };
    const [a] = await run(input);
    const [b] = await run(input);
    expect(Buffer.compare(a!.data, b!.data)).toBe(0);
    const [other] = await run({ ...input, text: "Closed studio" });
    expect((await changed(a!.data, other!.data)).count).toBeGreaterThan(500);
    const seeds = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(async (seed) => (await run({ ...input, seed }))[0]!.data.toString("base64")),
    );
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });

  it("renders with its bundled fonts when the machine has none", { timeout: 30_000 }, async () => {
    // A child process whose fontconfig sees no system fonts must draw the same card.
    const dir = mkdtempSync(path.join(tmpdir(), "type-card-fonts-"));
    const config = path.join(dir, "fonts.conf");
    writeFileSync(config, `<?xml version="1.0"?><fontconfig><cachedir>${dir}/cache</cachedir></fontconfig>`);
    const script = path.join(dir, "render.mts");
    const options = { ...BASE, text: "Fonts travel with the code", subtitle: "DejaVu" };
    writeFileSync(
      script,
      `import { renderTypeCard } from ${JSON.stringify(path.join(__dirname, "type-card.ts"))};\nconst out = await renderTypeCard(${JSON.stringify(options)});\nprocess.stdout.write(out.data.toString("base64"));\n`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, FONTCONFIG_FILE: config },
      cwd: path.resolve(__dirname, "../../.."),
      maxBuffer: 64 * 1024 * 1024,
    });
    const here = await renderTypeCard(options);
    const alone = Buffer.from(stdout, "base64");
    // The machine's fontconfig hinting may shift glyph edges by a pixel, so compare at a coarse
    // scale: the same letters in the same places, and far from the card without text.
    expect(await coarseDifference(alone, here.data)).toBeLessThan(4);
    expect(await coarseDifference(alone, (await renderTypeCard({ ...BASE })).data)).toBeGreaterThan(8);
  });

  it("refuses blank text and validates its fields", async () => {
    await expect(run({ text: "   " })).rejects.toBeInstanceOf(ModelError);
    const check = (input: Record<string, unknown>) =>
      validateModelInput(typeCard.input_schema, input, { modelId: typeCard.id });
    expect(check({ text: "Hi" })).toMatchObject({
      layout: "card",
      style: "ink-on-paper",
      align: "center",
      size: 1024,
      format: "png",
    });
    expect(() => check({ text: "x".repeat(281) })).toThrow();
    expect(() => check({ text: "Hi", layout: "square" })).toThrow();
    expect(() => check({ text: "Hi", subtitle: "x".repeat(121) })).toThrow();
    expect(typeCard.pricing).toMatchObject({ unit: "image", usd: "0.002", drivers: [] });
  });
});
