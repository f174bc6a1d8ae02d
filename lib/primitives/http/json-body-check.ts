// Checks on a parsed JSON request body, made once at the edge before anything walks it
// recursively (the canonical JSON of the idempotency hash, Ajv, structuredClone): objects and
// arrays nested at most LIMITS.jsonNestingDepth levels, and no U+0000 in any string or key, a
// character PostgreSQL text cannot hold (and that no field of this API takes). One pass over an
// explicit stack: a body nested 500,000 levels deep is refused, never a stack overflow.
import { ApiError } from "../errors";
import { LIMITS } from "../limits";

export type PathSegment = string | number;

export type JsonProblem =
  /** A container at `path` is nested deeper than the limit. */
  | { kind: "too_deep"; path: PathSegment[] }
  /** The string at `path`, or the last key of `path`, holds U+0000. */
  | { kind: "nul"; path: PathSegment[] };

interface Frame {
  value: unknown;
  /** How many objects and arrays hold this value (0 for the body itself). */
  depth: number;
  parent: Frame | null;
  key: PathSegment | null;
}

function pathOf(frame: Frame): PathSegment[] {
  const path: PathSegment[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.push(f.key);
  return path.reverse();
}

export function hasNul(text: string): boolean {
  return text.includes("\u0000");
}

/** The first problem in document order, or null. Iterative: safe on any depth JSON.parse accepts. */
export function findJsonProblem(value: unknown, maxDepth: number = LIMITS.jsonNestingDepth): JsonProblem | null {
  const stack: Frame[] = [{ value, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === "string") {
      if (hasNul(v)) return { kind: "nul", path: pathOf(frame) };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const level = frame.depth + 1;
    if (level > maxDepth) return { kind: "too_deep", path: pathOf(frame) };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: level, parent: frame, key: i });
    } else {
      const keys = Object.keys(v);
      // Keys first, in order, so a NUL in a key is reported before anything below it.
      for (const key of keys) if (hasNul(key)) return { kind: "nul", path: [...pathOf(frame), key] };
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: (v as Record<string, unknown>)[keys[i]!], depth: level, parent: frame, key: keys[i]! });
      }
    }
  }
  return null;
}

/** ["requests", 2, "webhook"] → "requests[2].webhook", the `param` convention of the API. */
export function paramName(path: readonly PathSegment[]): string | null {
  let name = "";
  for (const segment of path)
    name += typeof segment === "number" ? `[${segment}]` : name === "" ? segment : `.${segment}`;
  return name === "" ? null : name;
}

/** Throws 400 invalid_parameter for a body nested too deep or holding U+0000 anywhere. */
export function refuseDeepOrNulJson(body: unknown): void {
  const problem = findJsonProblem(body);
  if (!problem) return;
  if (problem.kind === "too_deep") {
    // The top-level field the deep part sits in; the full path would be the limit's length.
    const top = problem.path[0];
    throw new ApiError(
      "invalid_parameter",
      `The JSON body is nested too deeply${typeof top === "string" ? ` in ${top}` : ""}: objects and arrays may be nested at most ${LIMITS.jsonNestingDepth} levels (the body itself is level 1).`,
      { param: typeof top === "string" ? top : null },
    );
  }
  const param = paramName(problem.path);
  throw new ApiError(
    "invalid_parameter",
    `${param ?? "The body"} holds the character U+0000 (NUL), which no field of this API accepts.`,
    { param },
  );
}
