// What every model's reported progress must look like, for the models' tests (no timing: only
// the values, as lib/models/testing/test-tools.ts recorded them).
import { expect } from "vitest";

/**
 * Progress was reported, each value in [0, 1], never going back, ending at 1, with at least
 * `between` distinct values strictly between 0 and 1 (how far it was along the way).
 */
export function expectSteadyProgress(progress: readonly number[], between = 0): void {
  expect(progress.length, "progress was reported").toBeGreaterThan(0);
  expect(
    progress.every((v) => v >= 0 && v <= 1),
    `every value in [0, 1]: ${progress.join(" ")}`,
  ).toBe(true);
  expect(progress, "never goes back").toEqual([...progress].sort((a, b) => a - b));
  expect(progress.at(-1), "ends at 1").toBe(1);
  expect(
    new Set(progress.filter((v) => v > 0 && v < 1)).size,
    `values along the way: ${progress.join(" ")}`,
  ).toBeGreaterThanOrEqual(between);
}
