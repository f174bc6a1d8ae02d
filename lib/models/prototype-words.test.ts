// Prompt words are looked up in the models' word tables as own properties: "constructor" (the one
// prototype name a lower-case word can spell) is an ordinary unknown word, not Object's function.
import { describe, expect, it } from "vitest";
import { planFor } from "./image/artwork";
import { paletteFor } from "./image/artwork-palette";
import { readPrompt } from "./three-d/shapes-words";

describe("prototype names in prompts", () => {
  it("artwork: no composition, motif or mood is read from 'constructor'", () => {
    const plan = planFor("constructor", () => 0.5);
    expect(typeof plan.composition).toBe("string");
    expect(plan.motifs.every((m) => typeof m === "string")).toBe(true);
    expect(plan.ignore.has("constructor")).toBe(false);
    expect(() => paletteFor("constructor", plan.ignore, () => 0.5)).not.toThrow();
  });

  it("shapes: 'constructor' is another word, not a shape, colour or count", () => {
    const plan = readPrompt("a constructor");
    expect(plan.groups).toEqual([]);
    expect(plan.others).toContain("constructor");
  });
});
