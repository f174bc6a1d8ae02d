import { describe, expect, it } from "vitest";
import { measureScene } from "./scene";
import { buildShapesScene } from "./shapes-scene";
import { readPrompt } from "./shapes-words";

function scene(prompt: string, seed = 1) {
  const parts = buildShapesScene(readPrompt(prompt), { prompt, seed, detail: "low", size: 1 });
  expect(parts[0]!.name).toBe("plinth");
  return parts.slice(1);
}

describe("shapes-3d scenes", () => {
  it("stands what follows 'around' in the middle and the rest on a circle round it", () => {
    const things = scene("six gold spheres in a circle around a white pillar");
    expect(things.map((t) => t.name)).toEqual([
      "sphere-1",
      "sphere-2",
      "sphere-3",
      "sphere-4",
      "sphere-5",
      "sphere-6",
      "pillar-7",
    ]);
    const [x, , z] = things[6]!.translation;
    expect(Math.hypot(x, z)).toBeLessThan(1e-9);
    const distances = things.slice(0, 6).map((t) => Math.hypot(t.translation[0], t.translation[2]));
    for (const d of distances) expect(d).toBeCloseTo(distances[0]!, 9);
  });

  it("stacks upward, lines a row up along x, and keeps scattered things apart", () => {
    const stack = scene("a stack of four cubes").map((t) => t.translation[1]);
    expect(stack).toEqual([...stack].sort((a, b) => a - b));
    expect(new Set(stack).size).toBe(4);
    const row = scene("a row of five cones").map((t) => t.translation);
    expect(row.map((p) => p[0])).toEqual(row.map((p) => p[0]).sort((a, b) => a - b));
    const scattered = scene("scattered spheres and eggs", 4).map((t) => t.translation);
    for (const [i, p] of scattered.entries())
      for (const q of scattered.slice(i + 1)) expect(Math.hypot(p[0] - q[0], p[2] - q[2])).toBeGreaterThan(0.01);
  });

  it("holds at most twelve objects and keeps at least one of every named shape", () => {
    const names = scene("12 spheres around 12 cubes").map((t) => t.name.replace(/-\d+$/, ""));
    expect(names).toHaveLength(12);
    expect(new Set(names)).toEqual(new Set(["sphere", "cube"]));
  });

  it("counts a lone number even when no shape follows it", () => {
    expect(scene("7")).toHaveLength(7);
  });

  it("keeps everything on the plinth, which is the widest thing", () => {
    for (const prompt of ["a row of eleven vases", "scattered arches and stairs", "a grid of nine tori"]) {
      const all = buildShapesScene(readPrompt(prompt), { prompt, seed: 3, detail: "low", size: 1 });
      const box = measureScene(all).bounding_box;
      expect(box.max[0] - box.min[0], prompt).toBeCloseTo(1, 6);
      expect(box.max[2] - box.min[2], prompt).toBeCloseTo(1, 6);
    }
  });
});
