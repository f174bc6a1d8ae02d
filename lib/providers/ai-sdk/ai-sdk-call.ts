// Which of an entry's input fields are the AI SDK call's standard arguments (prompt, n, size,
// voice, duration…) and which go to the provider as `providerOptions[<key>]`. By default a field
// named like a standard argument of the entry's modality is that argument, and every other field
// goes to providerOptions under its own name, so anything the provider package passes through is
// reachable from the schema. An entry's `call` changes that per field:
//   "call": { "style_preset": "providerOptions.style", "quality": "providerOptions.voiceSettings.stability",
//             "description": "prompt", "tier": null }        // null: used for pricing only, never sent
// and its `provider_options` adds fixed providerOptions (the input's fields win over them).
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { Modality } from "../../core/catalog/model-definition";
import { describe, fail, type JsonObject } from "../common/json-fields";

/** The standard arguments of generateImage, generateSpeech and experimental_generateVideo (ai@6). */
export const STANDARD_ARGS = {
  image: ["prompt", "images", "mask", "n", "size", "aspectRatio", "seed"],
  audio: ["text", "voice", "outputFormat", "instructions", "speed", "language"],
  video: ["prompt", "image", "n", "aspectRatio", "resolution", "duration", "fps", "seed", "generateAudio"],
} as const satisfies Partial<Record<Modality, readonly string[]>>;

export type CallModality = keyof typeof STANDARD_ARGS;
type StandardArg = (typeof STANDARD_ARGS)[CallModality][number];

/** Field names taken as a standard argument without any `call` (where the modality has it). */
const DEFAULT_NAMES: Record<string, StandardArg> = {
  prompt: "prompt",
  text: "text",
  images: "images",
  mask: "mask",
  n: "n",
  size: "size",
  aspect_ratio: "aspectRatio",
  aspectRatio: "aspectRatio",
  seed: "seed",
  voice: "voice",
  output_format: "outputFormat",
  outputFormat: "outputFormat",
  response_format: "outputFormat",
  instructions: "instructions",
  speed: "speed",
  language: "language",
  resolution: "resolution",
  duration: "duration",
  fps: "fps",
  generate_audio: "generateAudio",
  generateAudio: "generateAudio",
};

/** The field each modality cannot do without. */
const REQUIRED_ARG: Record<CallModality, StandardArg> = { image: "prompt", audio: "text", video: "prompt" };

/** JSON Schema types a field must have to be this argument (a field without `type` is not checked). */
const ARG_TYPES: Record<StandardArg, string[]> = {
  prompt: ["string"],
  text: ["string"],
  images: ["array", "string"],
  image: ["string"],
  mask: ["string"],
  n: ["integer"],
  size: ["string"],
  aspectRatio: ["string"],
  seed: ["integer"],
  voice: ["string"],
  outputFormat: ["string"],
  instructions: ["string"],
  speed: ["number", "integer"],
  language: ["string"],
  resolution: ["string"],
  duration: ["number", "integer"],
  fps: ["integer"],
  generateAudio: ["boolean"],
};

/**
 * Shapes the SDK insists on for some arguments' values (checked against an enum when there is
 * one): a package drops other values with a warning only (xAI's "480p" as the call's resolution).
 */
const ARG_VALUES: Partial<Record<StandardArg, { pattern: RegExp; text: string }>> = {
  size: { pattern: /^(\d+x\d+|auto)$/, text: '"{width}x{height}", such as "1024x1024" (or "auto")' },
  aspectRatio: { pattern: /^(\d+:\d+|adaptive)$/, text: '"{width}:{height}", such as "16:9"' },
  resolution: { pattern: /^\d+x\d+$/, text: '"{width}x{height}", such as "1280x720"' },
};

export type FieldTarget = { arg: StandardArg } | { option: string[] } | { skip: true };

export interface CallOptions {
  /** Every input field, where it goes. */
  fields: Record<string, FieldTarget>;
  /** Fixed providerOptions of the entry (the input's own values win). */
  providerOptions: Record<string, unknown>;
}

function typesOf(property: JsonSchemaObject): string[] | null {
  const type = (property as { type?: unknown }).type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string" && t !== "null");
  return null;
}

function parseTarget(value: unknown, at: string, modality: CallModality): FieldTarget {
  if (value === null) return { skip: true };
  const args: readonly string[] = STANDARD_ARGS[modality];
  if (typeof value === "string") {
    if (args.includes(value)) return { arg: value as StandardArg };
    const option = /^providerOptions\.([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*)$/.exec(value);
    if (option) return { option: option[1]!.split(".") };
  }
  fail(
    at,
    `must be a standard argument of a ${modality} call (${args.join(", ")}), "providerOptions.<name>" (dots reach nested objects), or null (not sent); got ${describe(value)}.`,
  );
}

/**
 * Reads an entry's `call` and `provider_options` against its schema. `defaults: false` maps only
 * what `call` names (and sends every other field under its own name in providerOptions).
 */
export function parseCallOptions(
  entry: JsonObject,
  path: string,
  schema: JsonSchemaObject,
  modality: CallModality,
  defaults: Record<string, StandardArg> | "by-name" = "by-name",
): CallOptions {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchemaObject>;
  const args: readonly string[] = STANDARD_ARGS[modality];
  const call = entry.call ?? {};
  if (call === null || typeof call !== "object" || Array.isArray(call))
    fail(`${path}.call`, `must be an object of input field → target; got ${describe(call)}.`);
  for (const field of Object.keys(call)) {
    if (!Object.hasOwn(properties, field))
      fail(`${path}.call.${field}`, `names no field of input_schema (${Object.keys(properties).join(", ")}).`);
  }
  const fields: Record<string, FieldTarget> = {};
  const taken = new Map<string, string>();
  for (const [field, property] of Object.entries(properties)) {
    let target: FieldTarget;
    if (Object.hasOwn(call, field))
      target = parseTarget((call as JsonObject)[field], `${path}.call.${field}`, modality);
    else {
      const named =
        defaults === "by-name"
          ? Object.hasOwn(DEFAULT_NAMES, field)
            ? DEFAULT_NAMES[field]
            : undefined
          : defaults[field];
      // "image" is one file: the start frame of a video, the picture to edit for an image model.
      const arg = field === "image" && defaults === "by-name" ? (modality === "video" ? "image" : "images") : named;
      target = arg && args.includes(arg) ? { arg } : { option: [field] };
    }
    if ("arg" in target) {
      const at = Object.hasOwn(call, field) ? `${path}.call.${field}` : `${path}.input_schema.properties.${field}`;
      const other = taken.get(target.arg);
      if (other)
        fail(
          at,
          `makes "${field}" the call's ${target.arg}, which "${other}" already is; map one of them elsewhere with "call".`,
        );
      taken.set(target.arg, field);
      const types = typesOf(property);
      const allowed = ARG_TYPES[target.arg];
      if (types && !types.some((t) => allowed.includes(t))) {
        // Without a mapping of its own (openai-images), such a field is sent under its own name, as ever.
        if (defaults !== "by-name" && !Object.hasOwn(call, field)) {
          taken.delete(target.arg);
          fields[field] = { option: [field] };
          continue;
        }
        fail(
          at,
          `makes "${field}" the call's ${target.arg}, which must be of type ${allowed.join(" or ")}; the field is ${types.join(" or ")}. Send it as "providerOptions.${field}" instead.`,
        );
      }
      const shape = ARG_VALUES[target.arg];
      const values = (property as { enum?: unknown[] }).enum;
      if (shape && defaults === "by-name" && Array.isArray(values)) {
        const bad = values.find((v) => typeof v !== "string" || !shape.pattern.test(v));
        if (bad !== undefined) {
          fail(
            at,
            `makes "${field}" the call's ${target.arg}, whose values must look like ${shape.text}; ${describe(bad)} does not. Send it as the provider's own option instead: "call": {"${field}": "providerOptions.${field}"}.`,
          );
        }
      }
    }
    fields[field] = target;
  }
  const required = REQUIRED_ARG[modality];
  const requiredField = taken.get(required);
  if (!requiredField || !schema.required?.includes(requiredField)) {
    fail(
      `${path}.input_schema`,
      `must have a required string field for the call's ${required} (a ${modality} model always needs one): name it "${required}", or map another field to it with "call".`,
    );
  }
  const fixed = entry.provider_options ?? {};
  if (fixed === null || typeof fixed !== "object" || Array.isArray(fixed))
    fail(`${path}.provider_options`, `must be an object; got ${describe(fixed)}.`);
  return { fields, providerOptions: fixed as Record<string, unknown> };
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

function deepCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export interface CallArguments {
  /** Standard arguments, by their SDK names. */
  args: Partial<Record<StandardArg, unknown>>;
  /** What goes under providerOptions[<key>]. */
  providerOptions: Record<string, unknown>;
}

/** The validated input (defaults filled) split into the call's arguments and its providerOptions. */
export function callArguments(options: CallOptions, input: Record<string, unknown>): CallArguments {
  const args: CallArguments["args"] = {};
  const providerOptions = deepCopy(options.providerOptions);
  for (const [field, value] of Object.entries(input)) {
    const target = options.fields[field] ?? { option: [field] };
    if (value === undefined || "skip" in target) continue;
    if ("arg" in target) args[target.arg] = value;
    else setPath(providerOptions, target.option, value);
  }
  return { args, providerOptions };
}
