import { describe, expect, it } from "vitest";
import { newId, randomBase62 } from "./ids";

describe("ids", () => {
  it("makes base62 text of the asked length, across many refills of the random pool", () => {
    const seen = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const id = randomBase62(24);
      expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
      seen.add(id);
      for (const ch of id) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(seen.size).toBe(5000);
    // 120,000 characters over 62 symbols: about 1,935 each; every symbol well inside ±20 %.
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 120_000 / 62)).toBeLessThan(387);
  });

  it("prefixes IDs by kind", () => {
    expect(newId("generation")).toMatch(/^gen_[0-9A-Za-z]{24}$/);
  });
});
