import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatUsd, parseUsd } from "./money";

describe("money", () => {
  it("formats with at least two decimals and no needless zeros", () => {
    expect(formatUsd(40_000)).toBe("0.04");
    expect(formatUsd(12_500)).toBe("0.0125");
    expect(formatUsd(12_500_000)).toBe("12.50");
    expect(formatUsd(0)).toBe("0.00");
    expect(formatUsd(1)).toBe("0.000001");
    expect(formatUsd(10_000_000)).toBe("10.00");
  });

  it("parses plain decimals only", () => {
    expect(parseUsd("12.5")).toBe(12_500_000);
    expect(parseUsd("0.000001")).toBe(1);
    expect(parseUsd("10")).toBe(10_000_000);
    for (const bad of ["", "-1", "1e3", "0.0000001", "01", "1.", ".5", "abc", " 1"]) {
      expect(parseUsd(bad)).toBeNull();
    }
  });

  it("round-trips every amount exactly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), (micros) => {
        expect(parseUsd(formatUsd(micros))).toBe(micros);
      }),
    );
  });
});
