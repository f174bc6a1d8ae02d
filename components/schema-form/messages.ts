// Plain words for the form: the core's input errors ("input.num_images must be from 1 to 4; got
// 9.") said with the field's title ("Number of images must be 1 to 4."), and the form's starting
// values (the schema's defaults under a model's example; a field's `examples` are hints only).
import type { RJSFSchema } from "@rjsf/utils";

type Field = RJSFSchema & { title?: string; contentMediaType?: string };

export interface PlainError {
  code: string;
  message: string;
  param: string | null;
}

export type EnumLabels = Readonly<Record<string, Readonly<Record<string, string>>>>;

function fieldOf(schema: RJSFSchema, name: string): Field | undefined {
  const field = schema.properties?.[name];
  return typeof field === "object" ? (field as Field) : undefined;
}

/** "image/*" → "an image", "audio/*" → "a sound", "video/*" → "a video". */
export function fileNoun(field: Field | undefined): string {
  const type = typeof field?.contentMediaType === "string" ? field.contentMediaType : "";
  return type.startsWith("image/")
    ? "an image"
    : type.startsWith("audio/")
      ? "a sound"
      : type.startsWith("video/")
        ? "a video"
        : "a file";
}

export function isFileField(field: unknown): boolean {
  return typeof field === "object" && field !== null && typeof (field as Field).contentMediaType === "string";
}

/** The names of the schema's file inputs. */
export function fileFields(schema: RJSFSchema): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, f]) => isFileField(f))
    .map(([name]) => name);
}

function number(n: number): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: 6 });
}

function boundsText(low: number | undefined, high: number | undefined, unit = ""): string {
  if (low !== undefined && high !== undefined) return `${number(low)} to ${number(high)}${unit}`;
  if (low !== undefined) return `at least ${number(low)}${unit}`;
  return `at most ${number(high!)}${unit}`;
}

/**
 * What is wrong with one field, in words, judged from its schema and value; null when the schema
 * alone finds nothing (then the core's message is used with the field's title in it).
 */
export function describeFieldProblem(
  field: Field,
  title: string,
  value: unknown,
  required: boolean,
  labels?: Readonly<Record<string, string>>,
): string | null {
  const empty = value === undefined || value === "";
  if (empty) return required ? (isFileField(field) ? `Add ${fileNoun(field)}.` : `${title} is required.`) : null;
  if (isFileField(field)) return null;
  if (Array.isArray(field.enum) && !field.enum.some((v) => v === value)) {
    return `${title} must be one of: ${field.enum.map((v) => labels?.[String(v)] ?? String(v)).join(", ")}.`;
  }
  if (field.type === "integer" || field.type === "number") {
    if (typeof value !== "number" || Number.isNaN(value)) return `${title} must be a number.`;
    const low = typeof field.minimum === "number" ? field.minimum : undefined;
    const high = typeof field.maximum === "number" ? field.maximum : undefined;
    const whole = field.type === "integer";
    if (whole && !Number.isInteger(value))
      return `${title} must be a whole number${low !== undefined || high !== undefined ? `, ${boundsText(low, high)}` : ""}.`;
    if ((low !== undefined && value < low) || (high !== undefined && value > high))
      return `${title} must be ${boundsText(low, high)}.`;
    return null;
  }
  if (field.type === "string" && typeof value === "string") {
    const low = typeof field.minLength === "number" ? field.minLength : undefined;
    const high = typeof field.maxLength === "number" ? field.maxLength : undefined;
    const length = [...value].length;
    if (high !== undefined && length > high)
      return `${title} must be at most ${number(high)} characters (it has ${number(length)}).`;
    if (low !== undefined && length < low)
      return low === 1 ? `${title} is required.` : `${title} must be at least ${number(low)} characters.`;
    if (typeof field.pattern === "string" && !new RegExp(field.pattern, "u").test(value)) {
      return field.pattern === "^#[0-9a-fA-F]{6}$"
        ? `${title} must be a colour like #ff6600.`
        : `${title} is not in the expected form.`;
    }
  }
  return null;
}

/**
 * An error the form shows: on a field (`field`, the message in words, shown under it) or about
 * the whole request (`field` null: credit, a paused model, …).
 */
export function plainError(
  error: PlainError,
  schema: RJSFSchema,
  input: Record<string, unknown>,
  enumLabels: EnumLabels = {},
): { field: string | null; message: string } {
  if (error.code !== "invalid_parameter" || !error.param?.startsWith("input."))
    return { field: null, message: error.message };
  const name = error.param.slice("input.".length).split(/[.[]/)[0]!;
  const field = fieldOf(schema, name);
  if (!field) return { field: null, message: error.message };
  const title = typeof field.title === "string" && field.title ? field.title : name;
  const required = Array.isArray(schema.required) && schema.required.includes(name);
  const words = describeFieldProblem(field, title, input[name], required, enumLabels[name]);
  // Not a schema rule (a file that is not in the workspace, a model's own check): the core's
  // message, its "input.<name>" said as the field's title.
  const fallback = error.message.replace(
    new RegExp(`^${error.param.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`),
    title,
  );
  return { field: name, message: words ?? fallback };
}

/** The input with each top-level default filled where the input leaves the field out. */
export function withDefaults(schema: RJSFSchema, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (input[name] !== undefined) out[name] = input[name];
    else if (typeof field === "object" && field.default !== undefined) out[name] = structuredClone(field.default);
  }
  // Anything the schema does not list is kept, so the quote can say it is not an input.
  for (const [name, value] of Object.entries(input))
    if (!Object.hasOwn(out, name) && value !== undefined) out[name] = value;
  return out;
}

/**
 * The form's first input without a model example (a remote model): the defaults, and a required
 * field's first `examples` value so it opens ready to run. An optional field is never filled from
 * `examples`: those are hints (its placeholder), and empty often means something (promo-video's
 * Music: "leave empty to use the scene's words").
 */
export function startingInput(schema: RJSFSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (
      typeof field === "object" &&
      required.has(name) &&
      field.default === undefined &&
      Array.isArray(field.examples) &&
      field.examples.length
    )
      out[name] = field.examples[0];
  }
  return withDefaults(schema, out);
}

/** The same input whatever the order of its keys: to tell whether the form still holds an example. */
export function sameInput(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  ignore: readonly string[] = [],
): boolean {
  const norm = (o: Record<string, unknown>) =>
    JSON.stringify(
      Object.keys(o)
        .filter((k) => !ignore.includes(k) && o[k] !== undefined)
        .sort()
        .map((k) => [k, o[k]]),
    );
  return norm(a) === norm(b);
}

/** A field's first `examples` value as a placeholder hint ("e.g. upbeat bright synth"). */
export function placeholderOf(field: Field | undefined): string | undefined {
  const first = Array.isArray(field?.examples) ? field.examples[0] : undefined;
  return typeof first === "string" && first && !/^#[0-9a-fA-F]{6}$/.test(first) ? `e.g. ${first}` : undefined;
}
