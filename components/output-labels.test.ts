// The words under a 3D output: sides in centimetres under a metre, else metres, with no zero of a
// whole number dropped (30 cm once read "3 cm").
import { describe, expect, it } from "vitest";
import { extentLabel, threeDFacts } from "./output-labels";

describe("extentLabel", () => {
  it("keeps the zeros of whole numbers and drops only trailing decimal zeros", () => {
    expect(extentLabel({ min: [-0.15, 0, 0], max: [0.15, 0.225, 0.0315] })).toBe("30 × 23 × 3 cm");
    expect(extentLabel({ min: [0, 0, 0], max: [10, 2.5, 1.2] })).toBe("10 × 2.5 × 1.2 m");
    expect(extentLabel({ min: [0, 0, 0], max: [1, 0.29, 1] })).toBe("1 × 0.29 × 1 m");
    expect(extentLabel({ min: [0, 0, 0], max: [0.05, 0.08, 0.02] })).toBe("5 × 8 × 2 cm");
    expect(extentLabel({ min: [0, 0, 0], max: [0.055, 0.08, 0.02] })).toBe("5.5 × 8 × 2 cm");
  });

  it("says the counts and the size of an output", () => {
    expect(
      threeDFacts({ vertices: 15202, triangles: 1, bounding_box: { min: [0, 0, 0], max: [0.2, 0.1, 0.1] } }),
    ).toEqual(["15,202 vertices", "1 triangle", "20 × 10 × 10 cm"]);
  });
});
