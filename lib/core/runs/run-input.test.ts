import { describe, expect, it } from "vitest";
import { decodeInputParam, editAndRunHref, encodeInputParam, promptOf, readableInput } from "./run-input";

describe("a run's input as people read it", () => {
  it("finds the prompt: a prompt-like field first, else the first text that is not a reference", () => {
    expect(promptOf({ width: 512, prompt: "pastel hills" })).toEqual({ key: "prompt", text: "pastel hills" });
    expect(promptOf({ image: "file_abc", caption: "a cat" })).toEqual({ key: "caption", text: "a cat" });
    expect(promptOf({ image: "https://x/y.png", steps: 3 })).toBeNull();
    expect(promptOf({ a: "first", b: "second" }, ["b", "a"])).toEqual({ key: "b", text: "second" });
  });

  it("lists the prompt first, then label: value in the schema's order with its titles", () => {
    const readable = readableInput(
      { num_images: 2, prompt: "sea", style: ["a", "b"], extra: { x: 1 } },
      { order: ["prompt", "num_images"], titles: { num_images: "Number of images" } },
    );
    expect(readable.prompt).toEqual({ key: "prompt", label: "Prompt", text: "sea" });
    expect(readable.fields).toEqual([
      { key: "num_images", label: "Number of images", value: "2" },
      { key: "style", label: "Style", value: "a, b" },
      { key: "extra", label: "Extra", value: '{"x":1}' },
    ]);
  });

  it("round-trips the Edit and run parameter (UTF-8, base64url) and refuses anything else", () => {
    const input = { prompt: 'café ☕ "quoted" / + =', n: 2 };
    const param = encodeInputParam(input);
    expect(param).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeInputParam(param)).toEqual(input);
    expect(editAndRunHref("atelier/gradient", input)).toBe(`/catalog/atelier/gradient?input=${param}`);
    for (const bad of [null, "", "!!", encodeInputParam([1] as never), "bm90IGpzb24", "a".repeat(70_000)])
      expect(decodeInputParam(bad)).toBeNull();
  });
});
