import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { examplePictureDirectory, type PictureDirectory } from "../blobs/picture-directory";
import { findCatalogEntry } from "../core/catalog/catalog";
import {
  catalogCardImages,
  examplePlanOf,
  startExampleOutputs,
  EXAMPLE_THUMBNAIL_SIZE,
} from "../core/catalog/example-outputs";
import { defaultFfmpegPath } from "../media/ffmpeg";
import { installCatalog } from "./boot";
import { loadConfig } from "./config";
import { startExamplePictureProcess } from "./example-picture-process";

const ffmpegPath = defaultFfmpegPath(process.env.PATH ?? "");

let dir: string;
let pictures: PictureDirectory;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "atelier-picture-process-"));
  pictures = examplePictureDirectory(dir);
  installCatalog(loadConfig({ DATA_DIR: dir }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const keyOf = (modelId: string) => examplePlanOf(findCatalogEntry(modelId).definition)!.key;

describe("the catalog picture process", () => {
  it("makes a card picture in its own process, where this process's queue finds it", async () => {
    const maker = startExamplePictureProcess({ pictures, ffmpegPath });
    const queue = startExampleOutputs({ pictures, ffmpegPath, warm: false, maker: maker });
    try {
      expect(catalogCardImages(pictures, ["atelier/gradient"]).making).toBe(true);
      await queue.idle();
      const file = pictures.pathOf(keyOf("atelier/gradient"));
      expect(existsSync(file)).toBe(true);
      expect((await sharp(file).metadata()).width).toBe(EXAMPLE_THUMBNAIL_SIZE);
      expect(catalogCardImages(pictures, ["atelier/gradient"])).toEqual({
        images: { "atelier/gradient": `/api/examples/${keyOf("atelier/gradient")}.webp` },
        making: false,
      });
    } finally {
      await queue.stop();
      await maker.stop();
    }
  }, 60_000);

  it("answers each request, a failure as an error, and nothing once stopped", async () => {
    const maker = startExamplePictureProcess({ pictures, ffmpegPath });
    try {
      await expect(maker.make("acme/no-such-model")).rejects.toThrow(/No model or preset "acme\/no-such-model"/);
      // The process goes on after a failure.
      await expect(maker.make("atelier/type-card")).resolves.toBe(true);
      expect(existsSync(pictures.pathOf(keyOf("atelier/type-card")))).toBe(true);
    } finally {
      await maker.stop();
    }
    await expect(maker.make("atelier/gradient")).rejects.toThrow(/stopped/);
  }, 60_000);

  it("ends when idle, and starts again for the next picture", async () => {
    const maker = startExamplePictureProcess({ pictures, ffmpegPath, idleMs: 50 });
    try {
      expect(maker.running).toBe(false);
      await expect(maker.make("atelier/type-card")).resolves.toBe(true);
      expect(maker.running).toBe(true);
      const pid = maker.pid!;
      expect(pid).not.toBe(process.pid);
      await expect.poll(() => maker.running, { timeout: 10_000 }).toBe(false);
      // The process itself has ended, and what it held with it.
      await expect.poll(() => processExists(pid), { timeout: 10_000 }).toBe(false);
      // A page asking for a picture later gets one from a new process.
      await expect(maker.make("atelier/gradient")).resolves.toBe(true);
      expect(existsSync(pictures.pathOf(keyOf("atelier/gradient")))).toBe(true);
    } finally {
      await maker.stop();
    }
  }, 60_000);
});
