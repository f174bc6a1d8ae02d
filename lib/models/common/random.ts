// Seeds: the same input + seed must give the same bytes, so every random choice a model makes
// comes from one seeded generator.
import { createHash } from "node:crypto";

/** mulberry32: tiny, fast and good enough for placing shapes and notes reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The input's seed, or a fresh random one when the caller left it out. */
export function seedOf(input: Record<string, unknown>): number {
  return typeof input.seed === "number" ? input.seed : Math.floor(Math.random() * 2 ** 31);
}

/**
 * The seed of image `index` of a run with `seed`: seed + index, wrapped to stay inside the
 * schema's range (SEED_FIELD, 0 to 2147483647), so any one image can be remade alone with it.
 */
export function nthSeed(seed: number, index: number): number {
  return (seed + index) % 2147483648;
}

/** A stable 32-bit number for a word, so a word always steers the same way. */
export function hashWord(word: string): number {
  return createHash("sha256").update(word.toLowerCase()).digest().readUInt32BE(0);
}
