import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gradient } from "../../models/image/gradient";
import type { ModelPricing } from "../catalog/model-definition";
import { priceInput, unitPrice } from "./pricing";

function pricing(p: Partial<ModelPricing>): ModelPricing {
  return { unit: "image", usd: "0.002", drivers: [], overrides: [], ...p };
}

describe("pricing", () => {
  it("with no drivers, the price is the unit price", () => {
    expect(priceInput(pricing({ usd: "0.002" }), { num_images: 4 })).toBe(2_000);
    expect(priceInput(pricing({ usd: "12.5" }), {})).toBe(12_500_000);
  });

  it("multiplies the unit price by every driver", () => {
    const p = pricing({ usd: "0.002", drivers: ["num_images", "duration"] });
    expect(priceInput(p, { num_images: 3, duration: 5 })).toBe(30_000);
    expect(priceInput(p, { num_images: 1, duration: 1 })).toBe(2_000);
    expect(priceInput(p, { num_images: 0, duration: 5 })).toBe(0);
  });

  it("counts a driver left out of the input as one unit", () => {
    expect(priceInput(pricing({ usd: "0.01", drivers: ["num_images"] }), {})).toBe(10_000);
  });

  it("counts an array driver by its length", () => {
    expect(priceInput(pricing({ usd: "0.01", drivers: ["images"] }), { images: ["a", "b", "c"] })).toBe(30_000);
  });

  it("counts a string driver by its characters, not its bytes or UTF-16 units", () => {
    const p = pricing({ unit: "character", usd: "0.00001", drivers: ["text"] });
    expect(priceInput(p, { text: "hello" })).toBe(50);
    expect(priceInput(p, { text: "héllo" })).toBe(50);
    expect(priceInput(p, { text: "👍👍" })).toBe(20);
    expect(priceInput(p, { text: "" })).toBe(0);
  });

  it("uses the first matching override, else the base price", () => {
    const p = pricing({
      usd: "0.002",
      drivers: ["num_images"],
      overrides: [
        { when: { resolution: "hd" }, usd: "0.004" },
        { when: { resolution: ["hd", "4k"] }, usd: "0.009" },
        { when: { resolution: "standard", format: "webp" }, usd: "0.001" },
      ],
    });
    expect(unitPrice(p, { resolution: "hd" })).toBe(4_000);
    expect(unitPrice(p, { resolution: "4k" })).toBe(9_000);
    // Every field of `when` must match.
    expect(unitPrice(p, { resolution: "standard", format: "webp" })).toBe(1_000);
    expect(unitPrice(p, { resolution: "standard", format: "png" })).toBe(2_000);
    expect(unitPrice(p, {})).toBe(2_000);
    expect(priceInput(p, { resolution: "hd", num_images: 3 })).toBe(12_000);
    expect(priceInput(p, { resolution: "4k", num_images: 2 })).toBe(18_000);
  });

  it("prices fractional quantities exactly, where floating point would not", () => {
    const perSecond = pricing({ unit: "second", usd: "0.1", drivers: ["duration"] });
    // 0.1 * 0.3 in floating point is 0.030000000000000002, which would round up to 30001.
    expect(priceInput(perSecond, { duration: 0.3 })).toBe(30_000);
    expect(priceInput(perSecond, { duration: 2.5 })).toBe(250_000);
    const twoDrivers = pricing({ unit: "second", usd: "0.7", drivers: ["a", "b"] });
    expect(priceInput(twoDrivers, { a: 0.1, b: 3 })).toBe(210_000);
  });

  it("rounds a fraction of a micro-dollar up, never down", () => {
    const p = pricing({ usd: "0.000003", drivers: ["duration"] });
    expect(priceInput(p, { duration: 0.5 })).toBe(2);
    expect(priceInput(pricing({ usd: "0.000001", drivers: ["duration"] }), { duration: 0.333333 })).toBe(1);
    expect(priceInput(pricing({ usd: "0.000001", drivers: ["duration"] }), { duration: 0.000001 })).toBe(1);
    expect(priceInput(pricing({ usd: "0.000010", drivers: ["duration"] }), { duration: 1.05 })).toBe(11);
  });

  it("never charges less than the exact price, and less than one micro-dollar more", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (unitMicros, thousandths) => {
          const usd = (unitMicros / 1_000_000).toFixed(6);
          const price = priceInput(pricing({ usd, drivers: ["duration"] }), { duration: thousandths / 1000 });
          // Exact: unitMicros * thousandths / 1000, rounded up.
          const exact = BigInt(unitMicros) * BigInt(thousandths);
          expect(BigInt(price)).toBe((exact + 999n) / 1000n);
        },
      ),
    );
  });

  it("refuses a pricing entry whose price is not a price", () => {
    expect(() => priceInput(pricing({ usd: "0.0000001" }), {})).toThrow(/not a price/);
    expect(() => priceInput(pricing({ usd: "-1" }), {})).toThrow(/not a price/);
  });

  it("prices the built-in gradient model: $0.002 an image, $0.004 in HD", () => {
    expect(priceInput(gradient.pricing, { num_images: 1, resolution: "standard" })).toBe(2_000);
    expect(priceInput(gradient.pricing, { num_images: 4, resolution: "standard" })).toBe(8_000);
    expect(priceInput(gradient.pricing, { num_images: 3, resolution: "hd" })).toBe(12_000);
  });
});
