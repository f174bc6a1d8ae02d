import { describe, expect, it } from "vitest";
import { readPrompt, words } from "./shapes-words";

describe("shapes-3d prompt words", () => {
  it("takes plurals off, including -es, and knows which words were plural", () => {
    expect(words("Boxes, spheres and toruses; glass stairs")).toEqual([
      { word: "box", plural: true },
      { word: "sphere", plural: true },
      { word: "and", plural: false },
      { word: "torus", plural: true },
      { word: "glass", plural: false },
      { word: "stairs", plural: false },
    ]);
  });

  it("ties numbers, colours and finishes to the shape they come before", () => {
    const plan = readPrompt("two red cubes and a glass sphere");
    expect(plan.groups).toEqual([
      { shape: "cube", count: 2, plural: true, colours: ["red"], finish: undefined, centre: false },
      { shape: "sphere", count: 1, plural: false, colours: [], finish: "glass", centre: false },
    ]);
    expect(readPrompt("a stack of five glossy coral and teal rings").groups[0]).toMatchObject({
      shape: "torus",
      count: 5,
      colours: ["coral", "teal"],
      finish: "glossy",
    });
    expect(readPrompt("12 spheres").groups[0]!.count).toBe(12);
    expect(readPrompt("40 spheres").groups[0]!.count).toBe(12);
    // Gold is a colour and a metal.
    expect(readPrompt("a gold egg").groups[0]).toMatchObject({ colours: ["gold"], finish: "metal" });
  });

  it("reads ring and tower as shapes alone, and as arrangements of other shapes", () => {
    expect(readPrompt("a ring").groups.map((g) => g.shape)).toEqual(["torus"]);
    const ringOf = readPrompt("a ring of cubes");
    expect([ringOf.arrangement, ringOf.groups]).toEqual([
      "circle",
      [{ shape: "cube", count: null, plural: true, colours: [], finish: undefined, centre: false }],
    ]);
    expect(readPrompt("spheres in a ring").arrangement).toBe("circle");
    expect(readPrompt("a tower of cones").arrangement).toBe("stack");
    expect(readPrompt("a tall tower beside a sphere").groups.map((g) => g.shape)).toEqual(["tower", "sphere"]);
  });

  it("puts what comes after 'around' in the middle, and keeps unknown words for hashing", () => {
    const plan = readPrompt("six gold spheres in a circle around a white pillar");
    expect(plan.arrangement).toBe("circle");
    expect(plan.groups.map((g) => [g.shape, g.count, g.centre])).toEqual([
      ["sphere", 6, false],
      ["pillar", 1, true],
    ]);
    expect(readPrompt("a quiet fox at dawn").others).toEqual(["quiet", "fox", "dawn"]);
  });

  it("gives trailing colours and finishes to the whole scene", () => {
    const plan = readPrompt("cubes and cones in red and blue, matte");
    expect(plan.colours).toEqual(["red", "blue"]);
    expect(plan.finish).toBe("matte");
  });
});
