// atelier/gradient-poster@1/@2: the title is set in the bundled font, wrapped inside the margins,
// and the same input + seed gives the same bytes.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { renderGradient, TITLE_MARGIN } from "../image/gradient-render";
import { expectSteadyProgress } from "../testing/test-progress";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import type { ImageOutput } from "../../core/catalog/model-definition";
import { gradientPosterV1, gradientPosterV2 } from "./gradient-poster";

const LONG_TITLE = "The Harbour Festival of Lanterns, Boats and Music, June 2027";

async function pixels(data: Buffer) {
  return sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Bounding box of the pixels where the poster differs from its bare gradient: where the title is. */
async function titleBox(poster: ImageOutput, bare: ImageOutput) {
  const a = await pixels(poster.data);
  const b = await pixels(bare.data);
  const { width, height } = a.info;
  let box = { left: width, top: height, right: -1, bottom: -1, count: 0 };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const diff =
        Math.abs(a.data[i]! - b.data[i]!) +
        Math.abs(a.data[i + 1]! - b.data[i + 1]!) +
        Math.abs(a.data[i + 2]! - b.data[i + 2]!);
      if (diff <= 6) continue;
      box = {
        left: Math.min(box.left, x),
        top: Math.min(box.top, y),
        right: Math.max(box.right, x),
        bottom: Math.max(box.bottom, y),
        count: box.count + 1,
      };
    }
  }
  return box;
}

describe.each([
  [gradientPosterV1, { aspectRatio: "3:4", longSide: 768, frame: false }],
  [gradientPosterV2, { aspectRatio: "16:9", longSide: 1024, frame: true }],
] as const)("$id", (preset, shape) => {
  const input = {
    prompt: "harbour lanterns at night",
    title: LONG_TITLE,
    seed: 11,
    ...(preset === gradientPosterV2 ? { aspect_ratio: "16:9" } : {}),
  };

  it("wraps a 60-character title inside the margins", async () => {
    expect(LONG_TITLE).toHaveLength(60);
    const tools = testRunTools();
    const [poster] = (await runModelForTest(preset, input, tools)) as ImageOutput[];
    // One render, no steps: done at once.
    expectSteadyProgress(tools.progress);
    const bare = await renderGradient({ prompt: input.prompt, seed: 11, format: "png", ...shape });
    const { width, height } = poster!;
    expect([width, height]).toEqual([bare.width, bare.height]);
    const box = await titleBox(poster!, bare);
    expect(box.count, "the title is drawn").toBeGreaterThan(500);
    const [marginX, marginY] = [Math.floor(width * TITLE_MARGIN), Math.floor(height * TITLE_MARGIN)];
    expect(box.left).toBeGreaterThanOrEqual(marginX);
    expect(box.right).toBeLessThan(width - marginX);
    expect(box.top).toBeGreaterThanOrEqual(marginY);
    expect(box.bottom).toBeLessThan(height - marginY);
    // Wrapped onto more than one line rather than shrunk to a thin strip.
    expect(box.bottom - box.top).toBeGreaterThan(width / 12);
  });

  it("gives the same bytes for the same input and seed, other bytes for another title", async () => {
    const [a] = await runModelForTest(preset, input);
    const [b] = await runModelForTest(preset, input);
    const [c] = await runModelForTest(preset, { ...input, title: "Short" });
    expect(a!.data.equals(b!.data)).toBe(true);
    expect(a!.data.equals(c!.data)).toBe(false);
  });
});
