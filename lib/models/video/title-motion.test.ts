import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { formatUsd } from "../../primitives/money";
import { priceInput } from "../../core/runs/pricing";
import { probeMedia } from "../../media/ffmpeg";
import { expectSteadyProgress } from "../testing/test-progress";
import { testRunTools } from "../testing/test-tools";
import type { VideoOutput } from "../../core/catalog/model-definition";
import { titleMotion } from "./title-motion";
import {
  asVideo,
  BUNDLED_FFMPEG,
  colourDistance,
  difference,
  frameAt,
  isFastStart,
  leftoversAfter,
  meanColour,
  NO_SYSTEM_FFMPEG,
  posterStats,
  scratch,
  SYSTEM_FFMPEG,
  tempDirAppears,
  videoFile,
} from "./testing/test-video";

const SHORT = { duration: 2, resolution: "480p" };

async function run(
  input: Record<string, unknown>,
  options: { ffmpegPath?: string; signal?: AbortSignal; progress?: number[] } = {},
): Promise<VideoOutput> {
  const validated = validateModelInput(titleMotion.input_schema, input, { modelId: titleMotion.id });
  const tools = testRunTools(options);
  const video = asVideo((await titleMotion.run(validated, tools))[0]);
  options.progress?.push(...tools.progress);
  return video;
}

/** Share of the poster's pixels that are near white: the title's letters. */
async function whiteShare(video: VideoOutput): Promise<number> {
  const { data } = await sharp(video.poster.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let white = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i]! > 225 && data[i + 1]! > 225 && data[i + 2]! > 225) white++;
  return white / (data.length / 3);
}

let work: Awaited<ReturnType<typeof scratch>>;
let ocean: VideoOutput;
beforeAll(async () => {
  work = await scratch();
  ocean = await run(
    { prompt: "ocean dusk over a quiet harbour", seed: 42, ...SHORT },
    { ffmpegPath: SYSTEM_FFMPEG ?? BUNDLED_FFMPEG! },
  );
});
afterAll(() => work.done());

describe("atelier/title-motion", () => {
  it.skipIf(NO_SYSTEM_FFMPEG)(
    "makes an H.264 MP4 of the asked length and size that starts while loading, with a poster (system ffmpeg)",
    async () => {
      expect(ocean).toMatchObject({ type: "video", content_type: "video/mp4", width: 854, height: 480, duration: 2 });
      expect(isFastStart(ocean.data)).toBe(true);
      const file = await videoFile(work.dir, ocean);
      const info = await probeMedia(SYSTEM_FFMPEG!, file);
      expect(info).toMatchObject({ videoCodec: "h264", width: 854, height: 480, audioCodec: null });
      expect(Math.abs(info.duration! - 2)).toBeLessThanOrEqual(0.15);

      expect(ocean.poster).toMatchObject({ content_type: "image/jpeg", width: 854, height: 480 });
      const poster = await posterStats(ocean);
      expect(poster).toMatchObject({ format: "jpeg", width: 854, height: 480 });
      expect(poster.spread).toBeGreaterThan(15);
    },
  );

  it("moves: the background drifts and the title rises in", async () => {
    const ffmpeg = SYSTEM_FFMPEG ?? BUNDLED_FFMPEG!;
    const file = await videoFile(work.dir, ocean);
    const early = await frameAt(ffmpeg, file, 0);
    const late = await frameAt(ffmpeg, file, 1.9);
    expect(difference(early, late)).toBeGreaterThan(4);
    // The title is set in white: there in the poster, absent when switched off.
    expect(await whiteShare(ocean)).toBeGreaterThan(0.01);
    const bare = await run({ prompt: "ocean dusk over a quiet harbour", seed: 42, show_title: false, ...SHORT });
    expect(await whiteShare(bare)).toBeLessThan(0.002);
    const bareFile = await videoFile(work.dir, bare);
    expect(difference(await frameAt(ffmpeg, bareFile, 0), await frameAt(ffmpeg, bareFile, 1.9))).toBeGreaterThan(2);
  });

  it("takes its colours from the prompt's words", async () => {
    const ffmpeg = SYSTEM_FFMPEG ?? BUNDLED_FFMPEG!;
    const other = await run({ prompt: "neon city nights", seed: 42, ...SHORT });
    const a = meanColour(await frameAt(ffmpeg, await videoFile(work.dir, ocean), 1));
    const b = meanColour(await frameAt(ffmpeg, await videoFile(work.dir, other), 1));
    expect(colourDistance(a, b)).toBeGreaterThan(25);
  });

  it("gives the same bytes for the same input and seed, and different ones for another seed", async () => {
    const again = await run(
      { prompt: "ocean dusk over a quiet harbour", seed: 42, ...SHORT },
      { ffmpegPath: SYSTEM_FFMPEG ?? BUNDLED_FFMPEG! },
    );
    expect(again.data.equals(ocean.data)).toBe(true);
    expect(again.poster.data.equals(ocean.poster.data)).toBe(true);
    const reseeded = await run(
      { prompt: "ocean dusk over a quiet harbour", seed: 43, ...SHORT },
      { ffmpegPath: SYSTEM_FFMPEG ?? BUNDLED_FFMPEG! },
    );
    expect(reseeded.data.equals(ocean.data)).toBe(false);
  });

  it.each([
    ["9:16", 480, 854],
    ["1:1", 480, 480],
  ])("renders %s at 30 fps with the bundled ffmpeg, %i×%i", async (aspect_ratio, width, height) => {
    const ffmpeg = BUNDLED_FFMPEG!;
    const video = await run(
      { prompt: "Spring launch", title: "Spring launch 2027", aspect_ratio, fps: 30, seed: 5, ...SHORT },
      { ffmpegPath: ffmpeg },
    );
    expect([video.width, video.height, video.poster.width, video.poster.height]).toEqual([
      width,
      height,
      width,
      height,
    ]);
    const info = await probeMedia(ffmpeg, await videoFile(work.dir, video));
    expect(info).toMatchObject({ videoCodec: "h264", width, height });
    expect(Math.abs(info.duration! - 2)).toBeLessThanOrEqual(0.15);
    const poster = await posterStats(video);
    expect([poster.format, poster.width, poster.height]).toEqual(["jpeg", width, height]);
    expect(await whiteShare(video)).toBeGreaterThan(0.01);
  });

  it("reports how far it is: frame by frame as it draws, then the encode as ffmpeg tells it, then 1", async () => {
    const progress: number[] = [];
    await run({ prompt: "progress", seed: 3, ...SHORT }, { progress });
    // Two seconds at 24 fps are drawn two frames at a time: 24 steps before the encode.
    expectSteadyProgress(progress, 24);
  });

  it("cancels mid-render with the signal's reason and leaves no temp files", async () => {
    const controller = new AbortController();
    const reason = new Error("canceled by the test");
    let outcome: unknown;
    const left = await leftoversAfter(async () => {
      const running = run(
        { prompt: "a long one", duration: 10, resolution: "720p", seed: 1 },
        { signal: controller.signal },
      );
      await Promise.race([tempDirAppears("atelier-title-motion-"), running.catch(() => undefined)]);
      controller.abort(reason);
      outcome = await running.then(
        () => "finished",
        (err: unknown) => err,
      );
    });
    expect(outcome).toBe(reason);
    expect(left).toEqual([]);
  });

  it("defaults to 4 s of 16:9 720p at 24 fps, prices $0.008 a second, and bounds its fields", () => {
    const input = validateModelInput(titleMotion.input_schema, { prompt: "hello" }, { modelId: titleMotion.id });
    expect(input).toMatchObject({ duration: 4, fps: 24, aspect_ratio: "16:9", resolution: "720p", show_title: true });
    expect(formatUsd(priceInput(titleMotion.pricing, input))).toBe("0.032");
    expect(formatUsd(priceInput(titleMotion.pricing, { ...input, duration: 10 }))).toBe("0.08");
    const check = (extra: Record<string, unknown>) => () =>
      validateModelInput(titleMotion.input_schema, { prompt: "hi", ...extra }, { modelId: titleMotion.id });
    expect(check({ prompt: "" })).toThrow(/prompt/);
    expect(check({ title: "x".repeat(81) })).toThrow(/title/);
    expect(check({ duration: 11 })).toThrow(/duration/);
    expect(check({ aspect_ratio: "4:3" })).toThrow(/aspect_ratio/);
  });
});
