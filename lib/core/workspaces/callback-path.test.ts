import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "./callback-path";

describe("the way back after signing in", () => {
  it("keeps same-origin paths with their query", () => {
    expect(safeCallbackPath("/catalog/atelier/gradient")).toBe("/catalog/atelier/gradient");
    expect(safeCallbackPath("/catalog/atelier/sdxl-poster%402?input=abc")).toBe(
      "/catalog/atelier/sdxl-poster%402?input=abc",
    );
  });

  it("refuses other sites and odd shapes", () => {
    for (const bad of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "/\\/evil",
      "javascript:alert(1)",
      "catalog",
      "",
      "/a\nb",
      42,
      undefined,
      "/" + "a".repeat(2001),
    ]) {
      expect(safeCallbackPath(bad)).toBeNull();
    }
  });
});
