import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { runFfmpeg } from "../../media/ffmpeg";
import { ModelError } from "../../core/catalog/model-definition";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import { encodeWav } from "./wav";
import { columnPeaks, waveform } from "./waveform";

const FILE = "file_AAAAAAAAAAAAAAAAAAAAAAAA";

/** One second of silence, then one second of a loud 440 Hz tone. */
function silenceThenTone(sampleRate = 16000): Buffer {
  const samples = new Float32Array(sampleRate * 2);
  for (let i = sampleRate; i < samples.length; i++) samples[i] = 0.8 * Math.sin((2 * Math.PI * 440 * i) / sampleRate);
  return encodeWav([samples], sampleRate);
}

function draw(data: Buffer, contentType: string, input: Record<string, unknown> = {}) {
  const tools = testRunTools({ files: { [FILE]: { data, contentType } } });
  return runModelForTest(waveform, { audio: FILE, ...input }, tools);
}

/** The share of a column range's pixels that are not the white background. */
async function inkShare(image: Buffer, fromX: number, toX: number): Promise<number> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let ink = 0;
  let all = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = fromX; x < toX; x++) {
      const i = (y * info.width + x) * 3;
      all++;
      if (data[i]! < 200 || data[i + 1]! < 200) ink++;
    }
  }
  return ink / all;
}

describe("atelier/waveform", () => {
  it("finds the loudest sample of each slice", () => {
    expect(columnPeaks(Int16Array.from([0, 100, -32768, 5, 16384, 0]), 3)).toEqual([100 / 32768, 1, 0.5]);
  });

  it("draws silence flat and a tone tall, at the asked size", async () => {
    const [out] = await draw(silenceThenTone(), "audio/wav", { width: 400, height: 100 });
    if (out?.type !== "image") throw new Error("expected an image");
    const meta = await sharp(out.data).metadata();
    expect([meta.format, meta.width, meta.height, out.content_type]).toEqual(["png", 400, 100, "image/png"]);
    expect(await inkShare(out.data, 10, 190)).toBeLessThan(0.05);
    expect(await inkShare(out.data, 210, 390)).toBeGreaterThan(0.4);
  });

  it("reads sound in an MP4 container and draws an outline as JPEG", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "waveform-test-"));
    try {
      await writeFile(path.join(dir, "in.wav"), silenceThenTone());
      const tools = testRunTools();
      await runFfmpeg(tools.ffmpegPath, [
        "-v",
        "error",
        "-i",
        path.join(dir, "in.wav"),
        "-c:a",
        "aac",
        "-b:a",
        "64k",
        path.join(dir, "out.m4a"),
      ]);
      const [out] = await draw(await readFile(path.join(dir, "out.m4a")), "audio/mp4", {
        style: "outline",
        format: "jpeg",
        width: 300,
        height: 80,
      });
      const meta = await sharp(out!.data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 300, 80]);
      expect(await inkShare(out!.data, 170, 290)).toBeGreaterThan(await inkShare(out!.data, 10, 130));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails a run whose file is not sound with a clear message", async () => {
    const err = await draw(Buffer.from("not a sound at all"), "audio/wav").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toMatch(/could not be read/);
  });
});
