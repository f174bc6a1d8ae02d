// Prices a validated input from a model's `pricing`: the per-unit price (or the first matching
// override's), times every driver's quantity. Exact: decimals are scaled to integers and the
// result is rounded up to a whole micro-dollar, never down.
import type { ModelPricing, PriceOverride } from "../catalog/model-definition";
import { parseUsd, type Micros } from "../../primitives/money";

function matches(override: PriceOverride, input: Record<string, unknown>): boolean {
  // A loop, not entries().every(): every quote and create asks, and a loop allocates nothing.
  for (const field in override.when) {
    const expected = override.when[field];
    if (Array.isArray(expected) ? !expected.includes(input[field] as never) : input[field] !== expected) return false;
  }
  return true;
}

/** A driver's quantity as an exact fraction numerator/denominator. */
function quantityOf(value: unknown): { numerator: bigint; denominator: bigint } {
  if (typeof value === "string") return { numerator: BigInt([...value].length), denominator: 1n };
  if (Array.isArray(value)) return { numerator: BigInt(value.length), denominator: 1n };
  if (Number.isSafeInteger(value) && (value as number) >= 0)
    return { numerator: BigInt(value as number), denominator: 1n };
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) {
    const [whole, fraction = ""] = value.toFixed(6).split(".");
    const denominator = 10n ** BigInt(fraction.length);
    return { numerator: BigInt(whole!) * denominator + BigInt(fraction || "0"), denominator };
  }
  // A driver left out of the input (no default) counts as one unit.
  return { numerator: 1n, denominator: 1n };
}

/** Prices as written in the catalog, parsed once: every quote and create reads one. */
const parsedPrices = new Map<string, Micros>();

export function unitPrice(pricing: ModelPricing, input: Record<string, unknown>): Micros {
  const usd = pricing.overrides.find((o) => matches(o, input))?.usd ?? pricing.usd;
  const known = parsedPrices.get(usd);
  if (known !== undefined) return known;
  const micros = parseUsd(usd);
  if (micros === null) throw new Error(`pricing: not a price: ${usd}`);
  if (parsedPrices.size < 10_000) parsedPrices.set(usd, micros);
  return micros;
}

export function priceInput(pricing: ModelPricing, input: Record<string, unknown>): Micros {
  const unit = unitPrice(pricing, input);
  // A flat price (per run, per image) needs no fraction arithmetic.
  if (pricing.drivers.length === 0) return unit;
  let numerator = BigInt(unit);
  let denominator = 1n;
  for (const driver of pricing.drivers) {
    const q = quantityOf(input[driver]);
    numerator *= q.numerator;
    denominator *= q.denominator;
  }
  const micros = (numerator + denominator - 1n) / denominator;
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("pricing: price out of range");
  return Number(micros);
}

/** "$0.04 / image", "$0.02 / 1k characters": a model's price in one line (studio, MCP). */
export function priceLabel(pricing: Pick<ModelPricing, "unit" | "usd">): string {
  if (pricing.unit === "character") return `$${(Number(pricing.usd) * 1000).toFixed(2)} / 1k characters`;
  return `$${pricing.usd} / ${pricing.unit}`;
}
