// A run's input as people read it (history's prompt column, the run page), and the `input`
// query parameter of "Edit and run". Pure: used by server pages and client components alike.

/** Keys that hold a run's main text, in the order they are preferred. */
const PROMPT_KEYS = ["prompt", "text", "script", "lyrics", "description", "query"];

/** Text values that are references, not words: file ids, links, data URLs. */
const REFERENCE = /^(file_|upl_|https?:\/\/|data:)/;

/**
 * The prompt of a run: its "prompt"-like field, else the first text input (in the order the
 * model's schema lists its fields when known, else the input's own order); null when none.
 */
export function promptOf(
  input: Record<string, unknown>,
  order: readonly string[] = [],
): { key: string; text: string } | null {
  const isText = (v: unknown): v is string => typeof v === "string" && v.trim() !== "" && !REFERENCE.test(v);
  for (const key of PROMPT_KEYS) if (isText(input[key])) return { key, text: input[key] };
  const keys = [
    ...order.filter((k) => Object.hasOwn(input, k)),
    ...Object.keys(input).filter((k) => !order.includes(k)),
  ];
  for (const key of keys) if (isText(input[key])) return { key, text: input[key] };
  return null;
}

/** "num_images" → "Num images". */
export function labelOf(key: string): string {
  const words = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}

function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "none";
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null))
    return value.map(valueText).join(", ");
  return JSON.stringify(value);
}

export interface ReadableInput {
  prompt: { key: string; label: string; text: string } | null;
  fields: { key: string; label: string; value: string }[];
}

/** The prompt first, then every other field as label: value (labels from the schema's titles when given). */
export function readableInput(
  input: Record<string, unknown>,
  schema: { order?: readonly string[]; titles?: Record<string, string> } = {},
): ReadableInput {
  const order = schema.order ?? [];
  const title = (key: string) => schema.titles?.[key] ?? labelOf(key);
  const found = promptOf(input, order);
  const keys = [
    ...order.filter((k) => Object.hasOwn(input, k)),
    ...Object.keys(input).filter((k) => !order.includes(k)),
  ];
  return {
    prompt: found ? { key: found.key, label: title(found.key), text: found.text } : null,
    fields: keys
      .filter((k) => k !== found?.key)
      .map((key) => ({ key, label: title(key), value: valueText(input[key]) })),
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The `input` query parameter of the model page ("Edit and run"): the input as JSON (UTF-8),
 * base64url without padding. `/catalog/<creator>/<name>?input=<this>` opens the form prefilled.
 */
export function encodeInputParam(input: Record<string, unknown>): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(input)));
}

/** The inverse of encodeInputParam: an object, or null for anything else (never throws). */
export function decodeInputParam(value: string | null | undefined, maxLength = 64_000): Record<string, unknown> | null {
  if (!value || value.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  try {
    const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The model page with this input prefilled: "Edit and run". */
export function editAndRunHref(model: string, input: Record<string, unknown>): string {
  const [creator, name] = model.split("/");
  return `/catalog/${encodeURIComponent(creator ?? "")}/${encodeURIComponent(name ?? "")}?input=${encodeInputParam(input)}`;
}
