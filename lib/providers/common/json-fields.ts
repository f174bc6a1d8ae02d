// Reading a hand-written JSON file field by field, each problem told with the field's path
// (`providers[0].entries[1].pricing.usd must be …`), so an operator can fix it at once.

export class ProvidersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProvidersFileError";
  }
}

export type JsonObject = Record<string, unknown>;

export function fail(path: string, problem: string): never {
  throw new ProvidersFileError(`${path} ${problem}`);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  // undefined (a field left out) has no JSON text.
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** An object holding only the known fields (a misspelt field is an error, not silently ignored). */
export function objectAt(value: unknown, path: string, known: readonly string[]): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(path, `must be an object; got ${describe(value)}.`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) fail(`${path}.${key}`, `is not a known field; the fields are: ${known.join(", ")}.`);
  }
  return value as JsonObject;
}

export function arrayAt(value: unknown, path: string, options: { min?: number; max?: number } = {}): unknown[] {
  if (!Array.isArray(value)) fail(path, `must be an array; got ${describe(value)}.`);
  const min = options.min ?? 0;
  if (value.length < min) fail(path, `must hold at least ${min} item${min > 1 ? "s" : ""}.`);
  if (options.max !== undefined && value.length > options.max)
    fail(path, `must hold at most ${options.max} item${options.max > 1 ? "s" : ""}; got ${value.length}.`);
  return value;
}

/** A provider's `base_url` (or a ComfyUI pool box's): absolute http(s), no query, fragment or credentials; trailing `/` dropped. */
export function parseBaseUrl(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(path, `must be an absolute http(s) URL such as https://api.example.com; got "${raw}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    fail(path, `must start with http:// or https://; got "${raw}".`);
  if (url.search || url.hash) fail(path, `must not carry a query or a fragment; got "${raw}".`);
  if (url.username || url.password)
    fail(path, "must not carry credentials; name the key's variable in api_key_env instead.");
  return raw.replace(/\/+$/, "");
}

export interface StringRule {
  /** When the field may be left out; its value then. */
  fallback?: string;
  pattern?: RegExp;
  /** What the pattern means, for the message: "lower-case letters, digits and dashes". */
  patternText?: string;
  maxLength?: number;
  oneOf?: readonly string[];
}

export function stringAt(obj: JsonObject, key: string, path: string, rule: StringRule = {}): string {
  const at = `${path}.${key}`;
  const value = obj[key];
  if (value === undefined && rule.fallback !== undefined) return rule.fallback;
  if (value === undefined) fail(at, "is required.");
  if (typeof value !== "string" || value.trim() === "") fail(at, `must be a non-empty string; got ${describe(value)}.`);
  if (rule.maxLength !== undefined && value.length > rule.maxLength)
    fail(at, `must be at most ${rule.maxLength} characters long.`);
  if (rule.oneOf && !rule.oneOf.includes(value))
    fail(at, `must be one of ${rule.oneOf.map((v) => `"${v}"`).join(", ")}; got ${describe(value)}.`);
  if (rule.pattern && !rule.pattern.test(value))
    fail(at, `must be ${rule.patternText ?? `a string matching ${rule.pattern}`}; got ${describe(value)}.`);
  return value;
}

export function integerAt(
  obj: JsonObject,
  key: string,
  path: string,
  rule: { fallback: number; min: number; max: number },
): number {
  const value = obj[key];
  if (value === undefined) return rule.fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < rule.min || value > rule.max) {
    fail(`${path}.${key}`, `must be a whole number from ${rule.min} to ${rule.max}; got ${describe(value)}.`);
  }
  return value;
}

/** "2026-11-22" that is also a real day. */
export function isCalendarDate(text: string): boolean {
  const at = Date.parse(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(at) && new Date(at).toISOString().startsWith(text);
}

/** Names an object in a document may not use anywhere: they reach JavaScript's prototypes. */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Every string and key of a document, at any depth: no NUL character (PostgreSQL's text refuses
 * it, and it ends C strings) and no prototype name as a key. Names the first offender's path.
 */
export function checkPlainDocument(value: unknown, path: string): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) fail(path, "must not contain a NUL character (\\u0000).");
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkPlainDocument(item, `${path}[${i}]`));
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes("\u0000")) fail(path, "must not have a key containing a NUL character (\\u0000).");
    if (PROTOTYPE_KEYS.has(key)) fail(`${path}.${key}`, `is not allowed: "${key}" is a reserved name.`);
    checkPlainDocument(inner, `${path}.${key}`);
  }
}
