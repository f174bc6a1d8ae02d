// MODERATION_BLOCKLIST: every model refuses a prompt holding a blocked term (a whole word or
// phrase, any case). The text a person wrote is every free string of the input: enum choices,
// file IDs and colours are not prompts.
import type { JsonSchemaObject } from "../../primitives/json-schema";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Compiles the terms once: whole words only, so "ass" does not match "class". */
export function compileBlocklist(terms: readonly string[]): RegExp | null {
  if (terms.length === 0) return null;
  const alternatives = terms.map((t) => escapeRegExp(t).replace(/\s+/g, "\\s+")).join("|");
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`, "iu");
}

function isFreeText(schema: JsonSchemaObject | undefined): boolean {
  return (
    schema?.type === "string" &&
    schema.enum === undefined &&
    schema.contentMediaType === undefined &&
    schema.pattern === undefined
  );
}

/** The first blocked term found in the input's free text, or null. */
export function findBlockedTerm(
  blocklist: RegExp | null,
  schema: JsonSchemaObject,
  input: Record<string, unknown>,
): string | null {
  if (!blocklist) return null;
  for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
    const value = input[field];
    if (typeof value !== "string" || !isFreeText(fieldSchema)) continue;
    const match = blocklist.exec(value);
    if (match) return match[0];
  }
  return null;
}

export function refusedPromptMessage(term: string): string {
  return `The prompt was refused by this service's content rules: it contains "${term}". Nothing was charged; change the prompt and try again.`;
}
