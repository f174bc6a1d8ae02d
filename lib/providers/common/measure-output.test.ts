import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFfmpegPath, runFfmpeg } from "../../media/ffmpeg";
import { withGlbJson } from "../../models/three-d/testing/glb-test-json";
import { FAKE_GLB, fakeGlb } from "../testing/fake-media";
import { measureOutput } from "./measure-output";
import type { FetchedOutput } from "./types";

const ffmpegPath = defaultFfmpegPath(process.env.PATH ?? "");
const options = { providerId: "gpu-box", ffmpegPath, signal: new AbortController().signal };
let dir: string;

function fetched(data: Buffer, contentType: string | null = "application/octet-stream"): FetchedOutput {
  return { type: "file", data, content_type: contentType };
}

/** Real media made by ffmpeg: `args` are its input and encoding, `name` the output file. */
async function made(name: string, args: string[]): Promise<Buffer> {
  const file = path.join(dir, name);
  await runFfmpeg(ffmpegPath, ["-v", "error", ...args, "-y", file]);
  return readFile(file);
}

describe("measuring a provider's output bytes", () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "measure-output-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("an image: its size and a type read from the bytes, not the header the provider sent", async () => {
    const png = await sharp({ create: { width: 40, height: 24, channels: 3, background: "#3366aa" } })
      .png()
      .toBuffer();
    const image = await measureOutput(fetched(png, "image/jpeg"), "image", options);
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 40, height: 24 });
  });

  it("a video: size, duration and a poster from its first frame", async () => {
    const mp4 = await made("clip.mp4", ["-f", "lavfi", "-i", "color=c=red:s=64x48:d=1.5:r=10", "-pix_fmt", "yuv420p"]);
    const video = await measureOutput(fetched(mp4, null), "video", options);
    expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 64, height: 48 });
    if (video.type !== "video") throw new Error("not a video");
    expect(video.duration).toBeCloseTo(1.5, 1);
    expect(video.poster).toMatchObject({ content_type: "image/jpeg", width: 64, height: 48 });
    const { data, info } = await sharp(video.poster.data).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(64);
    expect(data[0]).toBeGreaterThan(200); // the red first frame
    expect(data[2]).toBeLessThan(60);
  });

  it("a sound: its duration and the container's type", async () => {
    const wav = await made("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=0.8"]);
    const audio = await measureOutput(fetched(wav, "audio/x-unknown"), "audio", options);
    expect(audio).toMatchObject({ type: "audio", content_type: "audio/wav" });
    if (audio.type !== "audio") throw new Error("not a sound");
    expect(audio.duration).toBeCloseTo(0.8, 1);
  });

  it("bytes of another kind than the entry's, or none, fail the run naming the provider", async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const wav = await made("short.wav", ["-f", "lavfi", "-i", "sine=duration=0.3"]);
    await expect(measureOutput(fetched(Buffer.from("<html>not media</html>")), "image", options)).rejects.toMatchObject(
      {
        name: "ProviderError",
        transient: false,
        message: expect.stringContaining(
          "The provider gpu-box returned a result that is not an image Atelier serves (PNG",
        ) as unknown,
      },
    );
    await expect(measureOutput(fetched(wav), "video", options)).rejects.toThrow(/not a video Atelier serves/);
    await expect(measureOutput(fetched(png), "audio", options)).rejects.toThrow(/not a sound Atelier serves/);
    await expect(measureOutput(fetched(Buffer.alloc(0)), "audio", options)).rejects.toThrow(/it is empty/);
  });

  it("a 3D model: a glb's counts, world-space box and a rendered poster, whatever type the provider said", async () => {
    const glb = await fakeGlb("a teapot");
    const model = await measureOutput(fetched(glb, "application/octet-stream"), "3d", options);
    expect(model).toMatchObject({
      type: "3d",
      content_type: "model/gltf-binary",
      vertices: FAKE_GLB.vertices,
      triangles: FAKE_GLB.triangles,
      bounding_box: FAKE_GLB.bounding_box,
    });
    if (model.type !== "3d") throw new Error("not a 3D model");
    expect(model.data.equals(glb)).toBe(true);
    expect(model.poster).toMatchObject({ content_type: "image/webp", width: 768, height: 576 });
    expect((await sharp(model.poster.data).metadata()).format).toBe("webp");
  });

  it("fails a 3D entry's run on what is not a glb it serves, saying why", async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    await expect(measureOutput(fetched(png, "model/gltf-binary"), "3d", options)).rejects.toMatchObject({
      name: "ProviderError",
      transient: false,
      message: "The provider gpu-box returned a result that is not a 3D model Atelier serves (glTF binary .glb).",
    });
    const gltf = Buffer.from(
      JSON.stringify({ asset: { version: "2.0" }, buffers: [{ uri: "model.bin", byteLength: 8 }] }),
    );
    await expect(measureOutput(fetched(gltf, "model/gltf+json"), "3d", options)).rejects.toThrow(
      /not a 3D model Atelier serves \(glTF binary \.glb\)/,
    );
    // A glb naming another file for its data: refused with the reason.
    const external = withGlbJson(await fakeGlb("external"), (json) => (json.buffers[0].uri = "x.bin"));
    await expect(measureOutput(fetched(external), "3d", options)).rejects.toThrow(
      'The provider gpu-box returned a result that is not a 3D model Atelier serves (it refers to another file ("x.bin"); only self-contained .glb files are served).',
    );
  });

  it("passes an output an adapter already measured through unchanged", async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#fff" } })
      .png()
      .toBuffer();
    const image = { type: "image" as const, content_type: "image/png", data: png, width: 4, height: 4 };
    expect(await measureOutput(image, "image", options)).toBe(image);
  });
});
