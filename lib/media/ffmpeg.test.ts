import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  bundledFfmpegPath,
  defaultFfmpegPath,
  FfmpegError,
  probeMedia,
  progressReader,
  runFfmpeg,
  systemFfmpegPath,
} from "./ffmpeg";

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
    await runFfmpeg(ffmpeg, [
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=64x48:rate=10:duration=1",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-y",
      file,
    ]);
    expect(await probeMedia(ffmpeg, file)).toMatchObject({
      width: 64,
      height: 48,
      videoCodec: "h264",
      audioCodec: null,
    });
    expect((await probeMedia(ffmpeg, file)).duration).toBeCloseTo(1, 1);
  });

  it("rejects with the tail of its error output on failure", async () => {
    const err = await runFfmpeg(ffmpeg, ["-i", path.join(dir, "missing.mp4"), "-f", "null", "-"]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FfmpegError);
    expect((err as FfmpegError).message).toMatch(/No such file/);
  });

  it("stops the process when the signal aborts, rejecting with the signal's reason", async () => {
    const controller = new AbortController();
    const running = runFfmpeg(ffmpeg, ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "null", "-"], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("canceled by test")), 200);
    await expect(running).rejects.toThrow("canceled by test");
  });
});

describe("ffmpeg's progress", () => {
  it("reads one time per report block, whole lines only, preferring out_time_us and skipping N/A", () => {
    const seconds: number[] = [];
    const read = progressReader((s) => seconds.push(s));
    const report = [
      "frame=0\nout_time_us=N/A\nout_time_ms=N/A\nout_time=N/A\nprogress=continue\n",
      "frame=12\nout_time_us=500000\nout_time_ms=500000\nout_time=00:00:00.500000\nprogress=continue\n",
      // Older builds give out_time_ms only, in microseconds despite its name.
      "frame=36\nout_time_ms=1500000\nout_time=00:00:01.500000\nprogress=continue\n",
      "frame=48\nout_time_us=1958333\nout_time_ms=1958333\nprogress=end\n",
    ].join("");
    // Fed in small pieces that split lines and keys anywhere.
    for (let i = 0; i < report.length; i += 7) read(report.slice(i, i + 7));
    expect(seconds).toEqual([0.5, 1.5, 1.958333]);
  });

  const builds = [
    ["bundled", bundledFfmpegPath()],
    ["system", systemFfmpegPath(process.env.PATH ?? "")],
  ] as const;
  it.each(builds.filter(([, found]) => found !== null))(
    "reports the seconds written up to the end while stdout carries the output (%s ffmpeg)",
    async (_, ffmpeg) => {
      const seconds: number[] = [];
      const { stdout, stderr } = await runFfmpeg(
        ffmpeg!,
        [
          "-v",
          "error",
          "-f",
          "lavfi",
          "-i",
          "testsrc=size=320x240:rate=24:duration=2",
          "-c:v",
          "libx264",
          "-pix_fmt",
          "yuv420p",
          "-f",
          "mpegts",
          "pipe:1",
        ],
        { onProgress: (s) => seconds.push(s) },
      );
      // MPEG-TS packets of 188 bytes, each starting with the sync byte: nothing else got into stdout.
      expect(stdout.length % 188).toBe(0);
      expect(stdout[0]).toBe(0x47);
      expect(stderr).not.toMatch(/progress=|out_time/);
      expect(seconds.length).toBeGreaterThan(0);
      expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
      expect(seconds.at(-1)).toBeGreaterThan(1.7);
      expect(seconds.at(-1)).toBeLessThanOrEqual(2.1);
    },
  );
});
