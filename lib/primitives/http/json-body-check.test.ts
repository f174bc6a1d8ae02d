import { describe, expect, it } from "vitest";
import { ApiError } from "../errors";
import { findJsonProblem, paramName, refuseDeepOrNulJson } from "./json-body-check";
import { LIMITS } from "../limits";

/** `{"input":{"a":{"a":…}}}` with `levels` objects in all (the body counts as one). */
function nestedObject(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels - 1; i++) value = { a: value };
  return levels === 1 ? {} : { input: value };
}

function thrown(fn: () => void): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("did not throw");
}

describe("findJsonProblem: nesting depth", () => {
  it("accepts a body nested exactly at the limit and refuses one level more", () => {
    const limit = LIMITS.jsonNestingDepth;
    expect(findJsonProblem(nestedObject(limit))).toBeNull();
    const problem = findJsonProblem(nestedObject(limit + 1));
    expect(problem?.kind).toBe("too_deep");
    expect(problem?.path[0]).toBe("input");
    expect(problem?.path).toHaveLength(limit);
  });

  it("counts arrays and objects alike, and scalars not at all", () => {
    expect(findJsonProblem("text", 0)).toBeNull();
    expect(findJsonProblem([], 1)).toBeNull();
    expect(findJsonProblem([[]], 1)?.kind).toBe("too_deep");
    expect(findJsonProblem({ a: [{ b: 1 }] }, 3)).toBeNull();
    expect(findJsonProblem({ a: [{ b: [] }] }, 3)).toEqual({ kind: "too_deep", path: ["a", 0, "b"] });
  });

  it("walks a body JSON.parse accepts at any depth without overflowing the stack", () => {
    const depth = 200_000;
    const deep = JSON.parse("[".repeat(depth) + "]".repeat(depth)) as unknown;
    expect(findJsonProblem(deep)?.kind).toBe("too_deep");
    // A wide body is no problem: 100,000 siblings at level 2.
    expect(findJsonProblem({ list: Array.from({ length: 100_000 }, (_, i) => ({ i })) })).toBeNull();
  });
});

describe("findJsonProblem: U+0000", () => {
  it("finds a NUL in a nested string value and names its path", () => {
    expect(findJsonProblem({ model: "atelier/gradient", input: { prompt: "a\u0000b" } })).toEqual({
      kind: "nul",
      path: ["input", "prompt"],
    });
    expect(findJsonProblem({ requests: [{ model: "m" }, {}, { webhook: "https://x/\u0000" }] })).toEqual({
      kind: "nul",
      path: ["requests", 2, "webhook"],
    });
    expect(findJsonProblem(["ok", ["\u0000"]])).toEqual({ kind: "nul", path: [1, 0] });
    expect(findJsonProblem("\u0000")).toEqual({ kind: "nul", path: [] });
  });

  it("finds a NUL in a key", () => {
    expect(findJsonProblem({ input: { "a\u0000": 1 } })).toEqual({ kind: "nul", path: ["input", "a\u0000"] });
  });

  it("reports the first problem in document order", () => {
    expect(findJsonProblem({ a: "\u0000", b: "\u0000" })?.path).toEqual(["a"]);
    expect(findJsonProblem([{ x: "ok" }, "\u0000", "\u0000"])?.path).toEqual([1]);
  });

  it("leaves other control characters, escapes and non-ASCII alone", () => {
    expect(findJsonProblem({ a: "tab\there\u0001 é 🙂 \\u0000 (escaped backslash, not a NUL)" })).toBeNull();
    expect(findJsonProblem({ n: 0, b: false, z: null })).toBeNull();
  });
});

describe("paramName", () => {
  it("follows the API's param convention", () => {
    expect(paramName(["input", "prompt"])).toBe("input.prompt");
    expect(paramName(["requests", 2, "webhook"])).toBe("requests[2].webhook");
    expect(paramName(["input", "sizes", 0])).toBe("input.sizes[0]");
    expect(paramName(["url"])).toBe("url");
    expect(paramName([])).toBeNull();
  });
});

describe("refuseDeepOrNulJson", () => {
  it("throws 400 invalid_parameter naming the limit, param the top-level field", () => {
    const err = thrown(() => refuseDeepOrNulJson(nestedObject(LIMITS.jsonNestingDepth + 1)));
    expect(err.code).toBe("invalid_parameter");
    expect(err.status).toBe(400);
    expect(err.param).toBe("input");
    expect(err.message).toContain(String(LIMITS.jsonNestingDepth));
    expect(thrown(() => refuseDeepOrNulJson(JSON.parse("[".repeat(100) + "]".repeat(100)))).param).toBeNull();
  });

  it("throws 400 invalid_parameter with the NUL's param", () => {
    const err = thrown(() => refuseDeepOrNulJson({ requests: [{ model: "a/b", webhook: "https://x.test/\u0000" }] }));
    expect(err.code).toBe("invalid_parameter");
    expect(err.param).toBe("requests[0].webhook");
    expect(err.message).toContain("U+0000");
  });

  it("passes an ordinary body", () => {
    expect(() =>
      refuseDeepOrNulJson({ model: "atelier/gradient", input: { prompt: "x", size: [1, 2] }, webhook: null }),
    ).not.toThrow();
  });
});
