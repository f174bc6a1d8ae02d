import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundledFfmpegPath, defaultFfmpegPath, FfmpegError, probeMedia, runFfmpeg, systemFfmpegPath } from "./ffmpeg";

const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-ffmpeg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("finding ffmpeg", () => {
  it("finds an executable ffmpeg on the search path, skipping directories without one", () => {
    const bin = path.join(dir, "bin");
    writeFileSync(path.join(dir, "ffmpeg"), "not executable");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "ffmpeg"), "#!/bin/sh\n");
    chmodSync(path.join(bin, "ffmpeg"), 0o755);
    expect(systemFfmpegPath([path.join(dir, "none"), dir, bin].join(path.delimiter))).toBe(path.join(bin, "ffmpeg"));
    expect(systemFfmpegPath("")).toBeNull();
  });

  it("falls back to the binary the npm package ships, which runs", async () => {
    const bundled = bundledFfmpegPath();
    expect(bundled).toMatch(/@ffmpeg-installer/);
    expect(defaultFfmpegPath("")).toBe(bundled);
    const { stdout } = await runFfmpeg(bundled!, ["-version"]);
    expect(stdout.toString()).toMatch(/^ffmpeg version/);
  });
});

describe("running ffmpeg", () => {
  const ffmpeg = bundledFfmpegPath()!;

  it("makes and probes a real clip", async () => {
    const file = path.join(dir, "clip.mp4");
    await runFfmpeg(ffmpeg, ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-y", file]);
    expect(await probeMedia(ffmpeg, file)).toMatchObject({ width: 64, height: 48, videoCodec: "h264", audioCodec: null });
    expect((await probeMedia(ffmpeg, file)).duration).toBeCloseTo(1, 1);
  });

  it("rejects with the tail of its error output on failure", async () => {
    const err = await runFfmpeg(ffmpeg, ["-i", path.join(dir, "missing.mp4"), "-f", "null", "-"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FfmpegError);
    expect((err as FfmpegError).message).toMatch(/No such file/);
  });

  it("stops the process when the signal aborts, rejecting with the signal's reason", async () => {
    const controller = new AbortController();
    const running = runFfmpeg(ffmpeg, ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "null", "-"], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("canceled by test")), 200);
    await expect(running).rejects.toThrow("canceled by test");
  });
});
