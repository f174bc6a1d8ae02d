// Money is integer micro-dollars inside (1 USD = 1,000,000). A JS number holds every
// integer up to 2^53, i.e. about $9 billion, exactly; anything beyond is refused.
// Decimal strings appear only at the edges.

export type Micros = number;

export const MICROS_PER_USD = 1_000_000;

const USD_PATTERN = /^(0|[1-9]\d{0,8})(\.\d{1,6})?$/;

/** "12.5" → 12_500_000. Returns null for anything that is not a plain non-negative decimal with ≤ 6 places. */
export function parseUsd(text: string): Micros | null {
  if (!USD_PATTERN.test(text)) return null;
  const [whole, fraction = ""] = text.split(".");
  return Number(whole) * MICROS_PER_USD + Number(fraction.padEnd(6, "0"));
}

/** 40_000 → "0.04", 12_500 → "0.0125", 12_500_000 → "12.50": at least two decimals, no needless zeros. */
export function formatUsd(micros: Micros): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`not an integer amount of micro-dollars: ${micros}`);
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const digits = String(abs % MICROS_PER_USD).padStart(6, "0");
  // Trailing zeros dropped, two decimals kept ("0.04", "0.0125"): a loop, not a regex, on every quote.
  let end = digits.length;
  while (end > 2 && digits.charCodeAt(end - 1) === 48) end--;
  const fraction = digits.slice(0, end);
  return `${sign}${whole}.${fraction}`;
}
