import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { formatUsd } from "../../primitives/money";
import { priceInput } from "../../core/runs/pricing";
import { probeMedia } from "../../media/ffmpeg";
import { expectSteadyProgress } from "../testing/test-progress";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import { ModelError } from "../../core/catalog/model-definition";
import { nearestAspect, panZoom } from "./pan-zoom";
import {
  asVideo,
  BUNDLED_FFMPEG,
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

const FILE_ID = "file_AAAAAAAAAAAAAAAAAAAAAAAA";

/** Red on the left fading to blue on the right, dotted all over so any move shows. */
async function picture(width: number, height: number): Promise<Buffer> {
  const dots: string[] = [];
  for (let x = 20; x < width; x += 40)
    for (let y = 20; y < height; y += 40) dots.push(`<circle cx="${x}" cy="${y}" r="6" fill="white"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#e01010"/><stop offset="1" stop-color="#1010e0"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>${dots.join("")}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function run(
  input: Record<string, unknown>,
  options: { image?: Buffer; ffmpegPath?: string; signal?: AbortSignal } = {},
) {
  const image = options.image ?? (await picture(960, 540));
  const tools = testRunTools({
    files: { [FILE_ID]: { data: image, contentType: "image/png" } },
    ffmpegPath: options.ffmpegPath,
    signal: options.signal,
  });
  const validated = validateModelInput(panZoom.input_schema, { image: FILE_ID, ...input }, { modelId: panZoom.id });
  return panZoom.run(validated, tools);
}

let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  work = await scratch();
});
afterAll(() => work.done());

describe("atelier/pan-zoom", () => {
  it("zooms in: an H.264 MP4 of the asked length and size that starts while loading, with a poster of its first frame (bundled ffmpeg)", async () => {
    const ffmpeg = BUNDLED_FFMPEG!;
    const video = asVideo(
      (
        await run({ motion: "zoom-in", duration: 2, resolution: "480p", aspect_ratio: "16:9" }, { ffmpegPath: ffmpeg })
      )[0],
    );
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 854, height: 480, duration: 2 });
    expect(isFastStart(video.data)).toBe(true);
    const file = await videoFile(work.dir, video);
    const info = await probeMedia(ffmpeg, file);
    expect(info).toMatchObject({ videoCodec: "h264", width: 854, height: 480, audioCodec: null });
    expect(Math.abs(info.duration! - 2)).toBeLessThanOrEqual(0.15);

    expect(video.poster).toMatchObject({ content_type: "image/jpeg", width: 854, height: 480 });
    const poster = await posterStats(video);
    expect(poster).toMatchObject({ format: "jpeg", width: 854, height: 480 });
    expect(poster.spread).toBeGreaterThan(20);

    const first = await frameAt(ffmpeg, file, 0);
    const last = await frameAt(ffmpeg, file, 1.95);
    expect(difference(first, last)).toBeGreaterThan(5);
    const posterPixels = await sharp(video.poster.data).removeAlpha().raw().toBuffer();
    expect(difference(first, { data: posterPixels })).toBeLessThan(6);
  });

  it.skipIf(NO_SYSTEM_FFMPEG)("pans the way it is told, at 30 frames per second (system ffmpeg)", async () => {
    const ffmpeg = SYSTEM_FFMPEG!;
    const video = asVideo(
      (
        await run(
          { motion: "pan-left", duration: 2, fps: 30, resolution: "480p", aspect_ratio: "1:1" },
          { ffmpegPath: ffmpeg },
        )
      )[0],
    );
    const file = await videoFile(work.dir, video);
    const info = await probeMedia(ffmpeg, file);
    expect(info).toMatchObject({ videoCodec: "h264", width: 480, height: 480 });
    expect(Math.abs(info.duration! - 2)).toBeLessThanOrEqual(0.15);
    // The view travels left: it starts on the blue right of the picture and ends on the red left.
    const [r0, , b0] = meanColour(await frameAt(ffmpeg, file, 0));
    const [r1, , b1] = meanColour(await frameAt(ffmpeg, file, 1.95));
    expect(b0 - r0).toBeGreaterThan(10);
    expect(r1 - b1).toBeGreaterThan(10);
  });

  it("reports how far it is: the picture ready, then the encode as ffmpeg tells it, then 1", async () => {
    const tools = testRunTools({ files: { [FILE_ID]: { data: await picture(960, 540), contentType: "image/png" } } });
    await runModelForTest(panZoom, { image: FILE_ID, duration: 3, resolution: "480p" }, tools);
    expectSteadyProgress(tools.progress, 2);
  });

  it("picks the aspect ratio closest to the picture's when left on auto", async () => {
    expect(nearestAspect(1920, 1080)).toBe("16:9");
    expect(nearestAspect(300, 400)).toBe("3:4");
    expect(nearestAspect(1000, 1100)).toBe("1:1");
    expect(nearestAspect(600, 2000)).toBe("9:16");
    const video = asVideo(
      (await run({ motion: "pan-down", duration: 2, resolution: "480p" }, { image: await picture(300, 400) }))[0],
    );
    expect([video.width, video.height]).toEqual([480, 640]);
  });

  it("cancels mid-encode with the signal's reason and leaves no temp files", async () => {
    const controller = new AbortController();
    const reason = new Error("canceled by the test");
    let outcome: unknown;
    const left = await leftoversAfter(async () => {
      const running = run({ duration: 10, resolution: "720p" }, { signal: controller.signal });
      await Promise.race([tempDirAppears("atelier-pan-zoom-"), running.catch(() => undefined)]);
      controller.abort(reason);
      outcome = await running.then(
        () => "finished",
        (err: unknown) => err,
      );
    });
    expect(outcome).toBe(reason);
    expect(left).toEqual([]);
  });

  it("does not start when already canceled", async () => {
    const reason = new Error("gone");
    await expect(run({}, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("refuses a file that is not a picture with a message for the person", async () => {
    await expect(run({ duration: 2 }, { image: Buffer.from("not an image at all") })).rejects.toBeInstanceOf(
      ModelError,
    );
  });

  it("defaults to a 5 s zoom-in at 720p, 24 fps, and prices $0.01 a second", () => {
    const input = validateModelInput(panZoom.input_schema, { image: FILE_ID }, { modelId: panZoom.id });
    expect(input).toMatchObject({ motion: "zoom-in", duration: 5, fps: 24, aspect_ratio: "auto", resolution: "720p" });
    expect(formatUsd(priceInput(panZoom.pricing, input))).toBe("0.05");
    expect(formatUsd(priceInput(panZoom.pricing, { ...input, duration: 10 }))).toBe("0.10");
    const check = (extra: Record<string, unknown>) => () =>
      validateModelInput(panZoom.input_schema, { image: FILE_ID, ...extra }, { modelId: panZoom.id });
    expect(check({ duration: 11 })).toThrow(/duration/);
    expect(check({ duration: 1 })).toThrow(/duration/);
    expect(check({ fps: 60 })).toThrow(/fps/);
    expect(check({ motion: "spin" })).toThrow(/motion/);
  });
});
