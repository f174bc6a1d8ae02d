// What a visitor typed before the page came alive. Until hydration nothing of React listens, and
// hydration puts a textarea's server value back (react-dom's initTextarea), so typing into a
// server-drawn form before then would vanish. A tiny script in the root layout's head records, by
// id, the values of fields inside an element marked `data-early-input` (only forms that take
// them: never a password) from the first keystroke; the form takes them once it is mounted.
import type { RJSFSchema } from "@rjsf/utils";

declare global {
  interface Window {
    __atelierEarlyInput?: Record<string, string>;
  }
}

/** Marks the element whose fields' early values are recorded: spread onto a form's container. */
export const EARLY_INPUT = { "data-early-input": "" } as const;

/**
 * Runs before the page's scripts: records typed values by field id until takeEarlyInput. Inline,
 * so the root layout gives it the answer's CSP nonce (lib/primitives/http/security-headers.ts), or it is refused.
 */
export const EARLY_INPUT_SCRIPT =
  'window.__atelierEarlyInput={};document.addEventListener("input",function(e){var t=e.target,r=window.__atelierEarlyInput;if(r&&t&&t.id&&typeof t.value==="string"&&t.closest("[data-early-input]"))r[t.id]=t.value},true);';

/** The values typed before hydration, by field id; it stops the recording, so a later call gets nothing. */
export function takeEarlyInput(): Record<string, string> {
  const early = window.__atelierEarlyInput ?? {};
  window.__atelierEarlyInput = undefined;
  return early;
}

/**
 * The schema form's top-level fields (RJSF ids `root_<name>`) among `early`, as input values: a
 * number field's text as a number, an enum's select by its option's index (the studio's
 * SelectWidget), other strings as typed; emptied fields as undefined.
 */
export function schemaFormEarlyInput(schema: RJSFSchema, early: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const typed = early[`root_${name}`];
    if (typed === undefined || typeof field !== "object") continue;
    const options = Array.isArray(field.enum)
      ? field.enum
      : (field.oneOf ?? field.anyOf)?.map((o) => (typeof o === "object" ? o.const : undefined));
    if (typed === "") out[name] = undefined;
    else if (options) out[name] = options[Number(typed)];
    else if (field.type === "number" || field.type === "integer")
      out[name] = Number.isFinite(Number(typed)) ? Number(typed) : undefined;
    else out[name] = typed;
  }
  return out;
}
