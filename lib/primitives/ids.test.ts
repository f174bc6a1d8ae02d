import { describe, expect, it } from "vitest";
import { ID_PREFIXES, isPossibleId, newId, randomBase62 } from "./ids";

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

  it("makes text longer than one refill of the pool", () => {
    expect(randomBase62(10_000)).toMatch(/^[0-9A-Za-z]{10000}$/);
  });

  it("prefixes IDs by kind", () => {
    expect(newId("generation")).toMatch(/^gen_[0-9A-Za-z]{24}$/);
  });

  it("tells an ID that could exist from one that cannot", () => {
    for (const kind of Object.keys(ID_PREFIXES) as (keyof typeof ID_PREFIXES)[])
      expect(isPossibleId(newId(kind))).toBe(true);
    expect(isPossibleId("gen_nope")).toBe(true);
    expect(isPossibleId("file_PromoVideoPosterStep0000")).toBe(true);
    for (const id of [
      "",
      "abc",
      "gen_",
      "gen_\u0000",
      "gen_abc\u0000",
      "\u0000gen_abc",
      "gen_a b",
      "gen_a-b",
      "gen_a%00",
      "GEN_abc",
      "xyz_abc",
      `gen_${"a".repeat(65)}`,
    ]) {
      expect(isPossibleId(id), JSON.stringify(id)).toBe(false);
    }
  });
});
