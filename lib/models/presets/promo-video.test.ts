import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { probeMedia } from "../../media/ffmpeg";
import { music } from "../audio/music";
import { artwork } from "../image/artwork";
import { expectSteadyProgress } from "../testing/test-progress";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import type { VideoOutput } from "../../core/catalog/model-definition";
import { panZoom } from "../video/pan-zoom";
import { promoVideoV1, promoVideoV2 } from "./promo-video";

const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-promo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STEPS = [artwork, panZoom, music];
const input = {
  title: "Spring launch",
  prompt: "pastel mountains at sunrise",
  duration: 2,
  resolution: "480p",
  seed: 7,
};

async function probe(video: VideoOutput, name: string) {
  const tools = testRunTools();
  const file = path.join(dir, name);
  writeFileSync(file, video.data);
  return probeMedia(tools.ffmpegPath, file);
}

describe("atelier/promo-video presets", () => {
  it("@1: publishes the titled poster as its preview first, then a silent pan-and-zoom video over it", async () => {
    // Only its declared steps: the catalog takes it out of service when one of those is out.
    const tools = testRunTools({ models: promoVideoV1.steps });
    const [video] = await runModelForTest(promoVideoV1, input, tools);
    expect(tools.steps).toEqual(["atelier/artwork", "atelier/pan-zoom"]);
    // The poster, then the camera move's own progress within its share: never back, ending at 1.
    expectSteadyProgress(tools.progress, 3);
    expect(tools.previews).toHaveLength(1);
    expect(tools.uncancelableReasons).toEqual(["preview"]);
    const preview = tools.previews[0]!;
    expect([preview.width, preview.height]).toEqual([854, 480]);
    // The title band darkens the middle of the poster compared with the bare artwork.
    const stats = await sharp(preview.data).stats();
    expect(stats.channels[0]!.stdev).toBeGreaterThan(5);

    expect(video?.type).toBe("video");
    const v = video as VideoOutput;
    expect([v.width, v.height, v.duration]).toEqual([854, 480, 2]);
    const media = await probe(v, "v1.mp4");
    expect(media).toMatchObject({ videoCodec: "h264", width: 854, height: 480, audioCodec: null });
    expect(media.duration).toBeCloseTo(2, 0);
  });

  it("@2: the same, with a music bed mixed under the picture", async () => {
    const tools = testRunTools({ models: promoVideoV2.steps });
    const [video] = await runModelForTest(
      promoVideoV2,
      { ...input, aspect_ratio: "9:16", music: "upbeat bright synth" },
      tools,
    );
    expect(tools.steps).toEqual(["atelier/artwork", "atelier/pan-zoom", "atelier/music"]);
    // The music step's rendering stages fill the share after the camera move's.
    expectSteadyProgress(tools.progress, 10);
    expect(tools.previews).toHaveLength(1);
    const v = video as VideoOutput;
    expect([v.width, v.height]).toEqual([480, 854]);
    const media = await probe(v, "v2.mp4");
    expect(media).toMatchObject({ videoCodec: "h264", audioCodec: "aac", width: 480, height: 854 });
    expect(media.duration).toBeGreaterThan(1.8);
    expect(media.duration).toBeLessThan(2.2);
  });

  it("the same input and seed give the same preview; a different title gives a different one", async () => {
    const a = testRunTools({ models: STEPS });
    const b = testRunTools({ models: STEPS });
    const c = testRunTools({ models: STEPS });
    await runModelForTest(promoVideoV1, input, a);
    await runModelForTest(promoVideoV1, input, b);
    await runModelForTest(promoVideoV1, { ...input, title: "Autumn sale" }, c);
    expect(a.previews[0]!.data.equals(b.previews[0]!.data)).toBe(true);
    expect(a.previews[0]!.data.equals(c.previews[0]!.data)).toBe(false);
  });
});
