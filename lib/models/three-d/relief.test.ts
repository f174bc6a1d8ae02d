import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeIO } from "@gltf-transform/core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { renderArtwork } from "../image/artwork";
import { runModelForTest, testRunTools, type TestTools } from "../testing/test-tools";
import { expectSteadyProgress } from "../testing/test-progress";
import { ModelError } from "../../core/catalog/model-definition";
import { merged } from "./geometry";
import { relief3d, reliefGrid } from "./relief";
import { reliefGeometry, reliefTriangles } from "./relief-mesh";
import {
  countWithGltfTransform,
  expectBoxClose,
  expectPoster,
  expectValidGlb,
  glbJson,
  measureGlb,
  weldedEdges,
} from "./testing/test-3d";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

const FILE = "file_AAAAAAAAAAAAAAAAAAAAAAAA";

/** 120×80: a dark ground, a white disc left of centre and a black square right of it. */
async function picture(width = 120, height = 80): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="#808080"/>
<circle cx="${width * 0.3}" cy="${height / 2}" r="${height * 0.25}" fill="#ffffff"/>
<rect x="${width * 0.6}" y="${height * 0.3}" width="${height * 0.4}" height="${height * 0.4}" fill="#000000"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function run(input: Record<string, unknown>, file: Buffer, tools?: TestTools): Promise<ThreeDOutput> {
  const outputs = await runModelForTest(
    relief3d,
    { image: FILE, ...input },
    tools ?? testRunTools({ files: { [FILE]: { data: file, contentType: "image/png" } } }),
  );
  expect(outputs).toHaveLength(1);
  return outputs[0] as unknown as ThreeDOutput;
}

/** The front's height (z) at the vertex nearest (x, y). */
async function heightAt(glb: Buffer, x: number, y: number): Promise<number> {
  const doc = await new NodeIO().readBinary(new Uint8Array(glb));
  const front = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute("POSITION")!.getArray()!;
  let [best, z] = [Infinity, 0];
  for (let i = 0; i < front.length; i += 3) {
    const d = Math.hypot(front[i]! - x, front[i + 1]! - y);
    if (d < best) [best, z] = [d, front[i + 2]!];
  }
  return z;
}

describe("atelier/relief-3d", () => {
  it("carves a valid, textured glb of the picture's grid, and states its counts and box", async () => {
    const out = await run({ seed: 1 }, await picture());
    const report = await expectValidGlb(out.data);
    expect(report.issues.messages, "not even an information or a hint").toEqual([]);
    const { cols, rows } = reliefGrid(120, 80, "medium");
    expect([cols, rows]).toEqual([128, 85]);
    expect(out.triangles).toBe(reliefTriangles(cols, rows));
    const measured = measureGlb(out.data);
    expect([measured.vertices, measured.triangles]).toEqual([out.vertices, out.triangles]);
    expect(await countWithGltfTransform(out.data)).toEqual({ vertices: out.vertices, triangles: out.triangles });
    expectBoxClose(measured.bounding_box, out.bounding_box);
    // 0.3 m wide (the default size), two thirds as tall, 2.5 % of the width of backing plus the 8 % relief.
    expectBoxClose(out.bounding_box, { min: [-0.15, 0, 0], max: [0.15, 0.2, 0.3 * 0.105] });
    const json = glbJson(out.data);
    const [front, sides] = json.meshes[0]!.primitives;
    expect(Object.keys(front!.attributes).sort()).toEqual(["NORMAL", "POSITION", "TEXCOORD_0"]);
    expect(Object.keys(sides!.attributes).sort()).toEqual(["NORMAL", "POSITION"]);
    expect(json.materials[front!.material!]!.pbrMetallicRoughness!.baseColorTexture).toEqual({ index: 0 });
    expect(json.images).toEqual([expect.objectContaining({ mimeType: "image/png" })]);
  });

  it("raises light parts by default and dark ones when inverted", async () => {
    const file = await picture();
    const [disc, square] = [
      [-0.3 * 0.2, 0.1],
      [0.3 * 0.2 + 0.02, 0.1],
    ] as const;
    const plain = await run({}, file);
    expect(await heightAt(plain.data, ...disc)).toBeGreaterThan((await heightAt(plain.data, ...square)) + 0.015);
    const inverted = await run({ invert: true }, file);
    expect(await heightAt(inverted.data, ...square)).toBeGreaterThan((await heightAt(inverted.data, ...disc)) + 0.015);
  });

  it("is the same for the same input whatever the seed, and finer with detail", async () => {
    const file = await picture();
    const [a, b, c] = [await run({ seed: 1 }, file), await run({ seed: 1 }, file), await run({ seed: 2 }, file)];
    expect(a.data.equals(b.data)).toBe(true);
    expect(a.poster.data.equals(b.poster.data)).toBe(true);
    expect(a.data.equals(c.data)).toBe(true);
    const low = await run({ detail: "low" }, file);
    const high = await run({ detail: "high" }, file);
    expect(low.triangles).toBeLessThan(a.triangles);
    expect(a.triangles).toBeLessThan(high.triangles);
  });

  it("writes 32-bit indices past 65,535 vertices and stays valid", async () => {
    const out = await run({ detail: "high" }, await picture(90, 90));
    await expectValidGlb(out.data);
    const json = glbJson(out.data);
    expect(json.accessors[json.meshes[0]!.primitives[0]!.indices!]!.componentType).toBe(5125);
    expect(json.accessors[json.meshes[0]!.primitives[1]!.indices!]!.componentType).toBe(5123);
    expect(out.triangles).toBe(reliefTriangles(256, 256));
  });

  it("is a closed solid: every edge of front, walls and back borders two triangles", () => {
    const heights = Float32Array.from({ length: 11 * 7 }, (_, i) => ((i * 37) % 11) / 10);
    const { front, sides } = reliefGeometry(
      { heights, cols: 10, rows: 6 },
      { width: 1, height: 0.6, depth: 0.1, base: 0.02 },
    );
    const solid = merged([front, sides]);
    expect([...weldedEdges(solid)].filter(([, n]) => n !== 2)).toEqual([]);
    expect(solid.indices.length / 3).toBe(reliefTriangles(10, 6));
  });

  it("refuses a file that is not a picture, or a damaged one, with a message for the person", async () => {
    const junk = await run({}, Buffer.from("certainly not an image")).catch((err: unknown) => err);
    expect(junk).toBeInstanceOf(ModelError);
    expect((junk as Error).message).toMatch(/could not be read/);
    const png = await picture();
    const cut = await run({}, png.subarray(0, Math.floor(png.length / 2))).catch((err: unknown) => err);
    expect(cut).toBeInstanceOf(ModelError);
    expect((cut as Error).message).toMatch(/damaged/);
  });

  it("renders a poster of the tile, and writes one for review", async () => {
    const art = await renderArtwork({
      prompt: "pastel mountains at sunrise",
      width: 768,
      height: 512,
      seed: 3,
      format: "png",
    });
    const out = await run(relief3d.examples![0]!.input, art.data);
    await expectPoster(out.poster);
    writeFileSync(join(tmpdir(), "3d-relief-poster.webp"), out.poster.data);
    await sharp(out.poster.data).png().toFile(join(tmpdir(), "3d-relief-poster.png"));
  });

  it("reports steady progress and stops when the run is canceled", async () => {
    const files = { [FILE]: { data: await picture(), contentType: "image/png" } };
    const tools = testRunTools({ files });
    await run({ detail: "low" }, Buffer.alloc(0), tools);
    expectSteadyProgress(tools.progress, 2);
    const controller = new AbortController();
    controller.abort();
    await expect(run({}, Buffer.alloc(0), testRunTools({ files, signal: controller.signal }))).rejects.toThrow();
  });

  it("prices by detail, takes only a file ID as its image and bounds its fields", () => {
    expect(relief3d.pricing.overrides).toEqual([
      { when: { detail: "low" }, usd: "0.01" },
      { when: { detail: "high" }, usd: "0.04" },
    ]);
    const check = (input: Record<string, unknown>) =>
      validateModelInput(relief3d.input_schema, input, { modelId: relief3d.id });
    expect(check({ image: FILE })).toEqual({ image: FILE, depth: 0.08, detail: "medium", invert: false, size: 0.3 });
    expect(() => check({ image: "https://example.com/a.png" })).toThrow(/expects a file ID/);
    expect(() => check({ image: FILE, depth: 0.6 })).toThrow();
    expect(() => check({ image: FILE, size: 0 })).toThrow();
    for (const example of relief3d.examples!)
      expect(() => check({ ...structuredClone(example.input), image: FILE })).not.toThrow();
  });
});
