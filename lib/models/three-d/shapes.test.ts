import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { runModelForTest, testRunTools, type TestTools } from "../testing/test-tools";
import { expectSteadyProgress } from "../testing/test-progress";
import { shapes3d } from "./shapes";
import {
  countWithGltfTransform,
  expectBoxClose,
  expectPoster,
  expectValidGlb,
  glbJson,
  measureGlb,
} from "./testing/test-3d";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

async function run(input: Record<string, unknown>, tools: TestTools = testRunTools()): Promise<ThreeDOutput> {
  const outputs = await runModelForTest(shapes3d, input, tools);
  expect(outputs).toHaveLength(1);
  return outputs[0] as unknown as ThreeDOutput;
}

describe("atelier/shapes-3d", () => {
  it("makes a valid glTF binary whose counts and box are what it states", async () => {
    const out = await run({ prompt: "three red cubes and a glass sphere", seed: 5 });
    expect(out).toMatchObject({ type: "3d", content_type: "model/gltf-binary" });
    const report = await expectValidGlb(out.data);
    expect(report.issues.messages, "not even an information or a hint").toEqual([]);
    const measured = measureGlb(out.data);
    expect([measured.vertices, measured.triangles]).toEqual([out.vertices, out.triangles]);
    expectBoxClose(measured.bounding_box, out.bounding_box);
    expect(await countWithGltfTransform(out.data)).toEqual({ vertices: out.vertices, triangles: out.triangles });
    expect(report.info?.totalVertexCount).toBe(out.vertices);
    expect(report.info?.totalTriangleCount).toBe(out.triangles);
    const json = glbJson(out.data);
    expect(json.asset).toEqual({ version: "2.0", generator: "Atelier" });
    // A plinth and four objects; the sphere is glass (blended), the cubes are not.
    expect(json.nodes.map((n) => json.meshes[n.mesh!]!.primitives.length)).toEqual([1, 1, 1, 1, 1]);
    expect(json.materials.map((m) => m.alphaMode ?? "OPAQUE").sort()).toEqual(["BLEND", "OPAQUE", "OPAQUE"]);
  });

  it("stands on the plinth, `size` metres across, with y up from the floor", async () => {
    const one = await run({ prompt: "a tall tower", seed: 1 });
    expect(one.bounding_box.min[1]).toBe(0);
    expect(one.bounding_box.max[0] - one.bounding_box.min[0]).toBeCloseTo(1, 5);
    const two = await run({ prompt: "a tall tower", seed: 1, size: 2.5 });
    expect(two.bounding_box.max[0] - two.bounding_box.min[0]).toBeCloseTo(2.5, 5);
    expect(two.bounding_box.max[1]).toBeCloseTo(one.bounding_box.max[1] * 2.5, 4);
    expect(two.triangles).toBe(one.triangles);
  });

  it("gives identical bytes for the same input and seed, and another scene for another seed", async () => {
    const input = { prompt: "a row of five chrome capsules", detail: "low" };
    const [a, b, c] = [
      await run({ ...input, seed: 11 }),
      await run({ ...input, seed: 11 }),
      await run({ ...input, seed: 12 }),
    ];
    expect(a.data.equals(b.data)).toBe(true);
    expect(a.poster.data.equals(b.poster.data)).toBe(true);
    expect(a.data.equals(c.data)).toBe(false);
  });

  it("cuts more triangles at higher detail", async () => {
    const counts = [];
    for (const detail of ["low", "medium", "high"])
      counts.push((await run({ prompt: "a sphere, a torus and a cube", detail, seed: 3 })).triangles);
    expect(counts[0]).toBeLessThan(counts[1]!);
    expect(counts[1]).toBeLessThan(counts[2]!);
  });

  it("paints what the prompt's colour words say", async () => {
    const out = await run({ prompt: "a red sphere", seed: 2 });
    const factors = glbJson(out.data).materials.map((m) => m.pbrMetallicRoughness!.baseColorFactor!);
    expect(
      factors.some(([r, g, b]) => r! > 0.4 && r! > 4 * g! && r! > 4 * b!),
      JSON.stringify(factors),
    ).toBe(true);
    const gold = glbJson((await run({ prompt: "a gold cube", seed: 2 })).data).materials;
    // 1 is glTF's default metallic factor, so the file leaves it out.
    expect(gold.some((m) => (m.pbrMetallicRoughness!.metallicFactor ?? 1) === 1)).toBe(true);
  });

  it("builds something distinct from any prompt, even with no word it knows", async () => {
    const [fox, kite] = [await run({ prompt: "quiet fox", seed: 1 }), await run({ prompt: "paper kite", seed: 1 })];
    await expectValidGlb(fox.data);
    expect(fox.triangles).toBeGreaterThan(100);
    expect(fox.data.equals(kite.data)).toBe(false);
  });

  it("renders a poster that shows the scene", async () => {
    const out = await run({ prompt: shapes3d.examples![1]!.input.prompt as string, seed: 7 });
    expect([out.poster.width, out.poster.height]).toEqual([768, 576]);
    await expectPoster(out.poster);
    await expectValidGlb(out.data);
  });

  it("writes its first example's poster for review", async () => {
    const out = await run({ ...shapes3d.examples![0]!.input, seed: 7 });
    writeFileSync(join(tmpdir(), "3d-shapes-poster.webp"), out.poster.data);
    await sharp(out.poster.data).png().toFile(join(tmpdir(), "3d-shapes-poster.png"));
  });

  it("reports steady progress and stops when the run is canceled", async () => {
    const tools = testRunTools();
    await run({ prompt: "a blue cone", detail: "low", seed: 1 }, tools);
    expectSteadyProgress(tools.progress, 2);
    const controller = new AbortController();
    controller.abort();
    await expect(run({ prompt: "a blue cone" }, testRunTools({ signal: controller.signal }))).rejects.toThrow();
  });

  it("prices by detail and bounds its fields", () => {
    expect(shapes3d.pricing).toMatchObject({ unit: "run", usd: "0.02", drivers: [] });
    expect(shapes3d.pricing.overrides).toEqual([
      { when: { detail: "low" }, usd: "0.01" },
      { when: { detail: "high" }, usd: "0.04" },
    ]);
    const check = (input: Record<string, unknown>) =>
      validateModelInput(shapes3d.input_schema, input, { modelId: shapes3d.id });
    expect(check({ prompt: "cube" })).toEqual({ prompt: "cube", detail: "medium", size: 1 });
    expect(() => check({ prompt: "" })).toThrow();
    expect(() => check({ prompt: "x".repeat(1001) })).toThrow();
    expect(() => check({ prompt: "cube", size: 0.05 })).toThrow();
    expect(() => check({ prompt: "cube", size: 11 })).toThrow();
    expect(() => check({ prompt: "cube", detail: "ultra" })).toThrow();
    for (const example of shapes3d.examples!) expect(() => check(structuredClone(example.input))).not.toThrow();
  });
});
