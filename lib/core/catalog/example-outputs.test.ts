import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { examplePictureDirectory, type PictureDirectory } from "../../blobs/picture-directory";
import { defaultFfmpegPath } from "../../media/ffmpeg";
import { BUILT_IN_MODELS } from "../../models";
import type { ModelDefinition } from "./model-definition";
import { allCatalogEntries } from "./catalog";
import {
  catalogCardImages,
  createExampleMaker,
  examplePlanOf,
  exampleInputOf,
  isExampleKey,
  startExampleOutputs,
  EXAMPLE_THUMBNAIL_HEIGHT,
  EXAMPLE_THUMBNAIL_SIZE,
} from "./example-outputs";

const byId = (id: string) => BUILT_IN_MODELS.find((m) => m.id === id)!;
const ffmpegPath = defaultFfmpegPath(process.env.PATH ?? "");

let dir: string;
let pictures: PictureDirectory;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "atelier-examples-"));
  pictures = examplePictureDirectory(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function stored(definition: ModelDefinition) {
  const plan = examplePlanOf(definition)!;
  return sharp(pictures.pathOf(plan.key)).metadata();
}

describe("example inputs", () => {
  it("every listed built-in entry has a valid example input, file inputs filled with stand-ins", () => {
    for (const definition of BUILT_IN_MODELS.filter((m) => m.id !== "atelier/gradient-legacy")) {
      expect(exampleInputOf(definition), definition.id).not.toBeNull();
      expect(examplePlanOf(definition), definition.id).not.toBeNull();
    }
    expect(exampleInputOf(byId("atelier/upscale"))!.image).toMatch(/^file_/);
    expect(exampleInputOf(byId("atelier/waveform"))!.audio).toMatch(/^file_/);
  });

  it("the first example wins; a retired or remote entry gets no picture", () => {
    const gradient = byId("atelier/gradient");
    const own = { ...gradient, examples: [{ title: "Dusk", input: { prompt: "violet dusk" } }] };
    expect(exampleInputOf(own)!.prompt).toBe("violet dusk");
    expect(examplePlanOf(byId("atelier/gradient-legacy"))).toBeNull();
    expect(examplePlanOf({ ...gradient, id: "acme/gradient" })).toBeNull();
    expect(exampleInputOf({ ...gradient, examples: [{ title: "Bad", input: { nope: 1 } }] })).toBeNull();
  });

  it("the key follows the id, the revision and the input", () => {
    const gradient = byId("atelier/gradient");
    const key = examplePlanOf(gradient)!.key;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(examplePlanOf({ ...gradient })!.key).toBe(key);
    expect(examplePlanOf({ ...gradient, revision: "2099-01-01" })!.key).not.toBe(key);
    expect(examplePlanOf({ ...gradient, examples: [{ title: "Other", input: { prompt: "green" } }] })!.key).not.toBe(
      key,
    );
    expect(isExampleKey(key)).toBe(true);
    expect(isExampleKey("0".repeat(32))).toBe(false);
    expect(isExampleKey("../../etc/passwd")).toBe(false);
  });
});

describe("making card pictures", () => {
  it("an image model: its own output as a 16:10 WebP of the thumbnail size", async () => {
    const maker = createExampleMaker({ pictures, ffmpegPath });
    const gradient = byId("atelier/gradient");
    expect(maker.has(gradient)).toBe(false);
    expect(await maker.make(gradient)).toBe(true);
    expect(maker.has(gradient)).toBe(true);
    const meta = await stored(gradient);
    expect(meta.format).toBe("webp");
    expect([meta.width, meta.height]).toEqual([EXAMPLE_THUMBNAIL_SIZE, EXAMPLE_THUMBNAIL_HEIGHT]);
  });

  it("a model that takes a picture gets a stand-in; a sound is drawn as a waveform; a preset runs its steps; a video shows its poster; every shape fills the card", async () => {
    const maker = createExampleMaker({ pictures, ffmpegPath });
    for (const id of [
      "atelier/image-edit",
      "atelier/qr-code",
      "atelier/music",
      "atelier/gradient-poster@2",
      "atelier/title-motion",
    ]) {
      expect(await maker.make(byId(id)), id).toBe(true);
      const meta = await stored(byId(id));
      expect([meta.format, meta.width, meta.height], id).toEqual([
        "webp",
        EXAMPLE_THUMBNAIL_SIZE,
        EXAMPLE_THUMBNAIL_HEIGHT,
      ]);
    }
  }, 60_000);

  it("the queue makes what pages ask for and reports it as pending meanwhile", async () => {
    const queue = startExampleOutputs({ pictures, ffmpegPath, warm: false });
    try {
      const first = catalogCardImages(pictures, ["atelier/gradient-classic", "atelier/gradient", "acme/unknown"]);
      expect(first.images["atelier/gradient"]).toMatch(/^\/api\/examples\/[0-9a-f]{32}\.webp$/);
      expect(first.images["atelier/gradient-classic"]).toBeUndefined();
      expect(first.making).toBe(true);
      await queue.idle();
      const second = catalogCardImages(pictures, ["atelier/gradient-classic"]);
      expect(second.making).toBe(false);
      expect(existsSync(pictures.pathOf(second.images["atelier/gradient-classic"]!.slice(-37, -5)))).toBe(true);
    } finally {
      await queue.stop();
    }
    // Without a running queue, a missing picture is simply absent.
    expect(catalogCardImages(pictures, ["atelier/type-card"])).toEqual({ images: {}, making: false });
  }, 30_000);

  it("every catalog entry's key is unique", () => {
    const keys = allCatalogEntries()
      .map((d) => examplePlanOf(d)?.key)
      .filter(Boolean);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
