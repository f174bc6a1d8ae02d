import { describe, expect, it } from "vitest";
import { arch, egg, lathe, pyramid, roundedBox, sphere, stairs, torus, turned, vase, type Detail } from "./primitives";
import type { Geometry } from "./scene";
import { weldedEdges } from "./testing/test-3d";

const LOW: Detail = { radial: 16, arc: 3 };
const HIGH: Detail = { radial: 64, arc: 12 };

const SOLIDS: Record<string, (d: Detail) => Geometry> = {
  sphere: (d) => sphere(0.5, d),
  egg: (d) => egg(0.4, 1.35, d),
  torus: (d) => torus(0.36, 0.16, d),
  cylinder: (d) =>
    turned(
      [
        [0, 0],
        [0.42, 0],
        [0.42, 0.9],
        [0, 0.9],
      ],
      0.05,
      d,
    ),
  cone: (d) =>
    turned(
      [
        [0, 0],
        [0.5, 0],
        [0, 1.05],
      ],
      0.04,
      d,
    ),
  capsule: (d) =>
    turned(
      [
        [0, 0],
        [0.3, 0],
        [0.3, 1.1],
        [0, 1.1],
      ],
      0.3,
      d,
    ),
  "sharp-edged pillar": (d) =>
    turned(
      [
        [0, 0],
        [0.42, 0],
        [0.42, 0.12],
        [0.3, 0.12],
        [0.27, 1.45],
        [0.4, 1.45],
        [0.4, 1.6],
        [0, 1.6],
      ],
      0,
      d,
    ),
  "rounded box": (d) => roundedBox([1.3, 0.6, 0.8], 0.07, d),
  pyramid: () => pyramid(1, 0.75),
  vase: (d) => vase(d),
};

function expectSoundMesh(g: Geometry): void {
  const count = g.positions.length / 3;
  expect(g.normals.length).toBe(count * 3);
  expect(g.uvs.length).toBe(count * 2);
  for (let v = 0; v < count; v++)
    expect(Math.hypot(g.normals[v * 3]!, g.normals[v * 3 + 1]!, g.normals[v * 3 + 2]!)).toBeCloseTo(1, 5);
  for (let t = 0; t < g.indices.length; t += 3) {
    const [a, b, c] = [g.indices[t]!, g.indices[t + 1]!, g.indices[t + 2]!].map((i) =>
      [0, 1, 2].map((k) => g.positions[i * 3 + k]!),
    );
    const e1 = a!.map((x, k) => b![k]! - x);
    const e2 = a!.map((x, k) => c![k]! - x);
    const face = [
      e1[1]! * e2[2]! - e1[2]! * e2[1]!,
      e1[2]! * e2[0]! - e1[0]! * e2[2]!,
      e1[0]! * e2[1]! - e1[1]! * e2[0]!,
    ];
    expect(Math.hypot(...face), "no zero-area triangle").toBeGreaterThan(1e-12);
    // Counter-clockwise from outside: the face looks the way its vertex normals do.
    const facing = [0, 1, 2].reduce(
      (sum, i) => sum + face.reduce((s, f, k) => s + f * g.normals[g.indices[t + i]! * 3 + k]!, 0),
      0,
    );
    expect(facing, `triangle ${t / 3} winds toward its normals`).toBeGreaterThan(0);
  }
}

describe("primitives", () => {
  it.each(Object.entries(SOLIDS))("%s is a closed, outward-facing mesh on y = 0", (_name, make) => {
    const g = make(LOW);
    expectSoundMesh(g);
    // Closed: every edge, once vertices at one place are welded, borders exactly two triangles.
    const open = [...weldedEdges(g)].filter(([, n]) => n !== 2);
    expect(open, "edges not shared by exactly two triangles").toEqual([]);
    let lowest = Infinity;
    for (let i = 1; i < g.positions.length; i += 3) lowest = Math.min(lowest, g.positions[i]!);
    expect(lowest).toBeCloseTo(0, 6);
  });

  it.each(Object.entries(SOLIDS).filter(([name]) => name !== "pyramid"))(
    "%s gets more triangles with more detail",
    (_name, make) => {
      expect(make(HIGH).indices.length).toBeGreaterThan(make(LOW).indices.length);
    },
  );

  it("keeps the arch and the stairs sound (their pieces overlap, so they are not one closed shell)", () => {
    expectSoundMesh(arch(LOW));
    expectSoundMesh(stairs(5, LOW));
  });

  it("lathes a profile into exactly the expected grid, dropping the pole triangles", () => {
    // A cone: base centre → rim (hard edge) → apex. Strips: the base disc and the slope, each a fan.
    const cone = lathe(
      [
        [0, 0, 0, -1],
        [1, 0, 0, -1],
        [1, 0, 1, 1],
        [0, 1, 1, 1],
      ],
      8,
    );
    expect(cone.indices.length / 3).toBe(16);
    expect(cone.positions.length / 3).toBe(4 * 9);
  });

  it("puts the widest points of a round shape on the axes, so a unit sphere spans exactly one metre", () => {
    const g = sphere(0.5, LOW);
    let [lo, hi] = [Infinity, -Infinity];
    for (let i = 0; i < g.positions.length; i += 3)
      [lo, hi] = [Math.min(lo, g.positions[i]!), Math.max(hi, g.positions[i]!)];
    expect(hi - lo).toBeCloseTo(1, 6);
  });
});
