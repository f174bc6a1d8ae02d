// `admin provider import --comfyui`: a ready ComfyUI entry from a workflow in ComfyUI's API format
// and the operator's bindings (`prompt=6.text`): the entry's `workflow` (its path, relative to the
// providers file's folder), `bindings`, and an input schema (JSON Schema 2020-12) made from the
// workflow's current values of the bound inputs, with bounds by name (seed, steps, width…). With
// the box's base URL, ComfyUI's own node descriptions (GET /object_info/{class}) refine the types,
// choices (sampler_name…) and bounds. The workflow and bindings are checked with the server's own
// parser (comfyui-workflow.ts), so the written entry is one the server loads.
import { existsSync } from "node:fs";
import path from "node:path";
import { JSON_SCHEMA_2020, type JsonSchemaObject } from "../../primitives/json-schema";
import { fileInputField } from "../../core/catalog/file-inputs";
import type { Modality } from "../../core/catalog/model-definition";
import { parseComfyEntry, parseWorkflow, type ComfyGraph, type NodeInput } from "./comfyui-workflow";
import { costField, defaultTasks, type EntryFacts, type ImportedEntry } from "../import-entry";
import { ProvidersFileError } from "../common/json-fields";
import { humanize, SchemaImportError } from "../common/openapi-schema";

const SEED_MAX = 2 ** 32 - 1;

export interface ComfyImportOptions extends EntryFacts {
  /**
   * The workflow file as the operator gave it (relative to `cwd`, else to the providers file's
   * folder), or the workflow itself (the studio's upload), which the entry then holds inline.
   */
  workflow: string | Record<string, unknown>;
  /** The providers file's folder: the entry's `workflow` is written relative to it. */
  baseDir: string;
  /** Where a relative `workflow` is looked for first; default the process's. */
  cwd?: string;
  /** Input field → node inputs: `--bind` values ("prompt=6.text"), or already parsed. */
  bindings: string[] | Record<string, NodeInput[]>;
  /** The ComfyUI server: when given, its GET /object_info/{class} refines the schema. */
  baseUrl?: string;
  /** Sent as Bearer to the server (a proxy in front of ComfyUI). */
  apiKey?: string | null;
  today?: string;
  signal?: AbortSignal;
}

/** ComfyUI's description of one node input: [type, options] or [[choices], options]. */
type InputSpec = [unknown, Record<string, unknown>?];

/** `--bind field=node.input` values, a field given twice binding several node inputs. */
export function parseBindArguments(args: string[]): Record<string, NodeInput[]> {
  const bindings: Record<string, NodeInput[]> = {};
  for (const arg of args) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=([^.=\s]+)\.([^=\s]+)$/.exec(arg.trim());
    if (!match)
      throw new SchemaImportError(
        `--bind "${arg}" must be field=node.input, such as prompt=6.text (the field of the input schema, the node's id, its input).`,
      );
    const [, field, node, input] = match as unknown as [string, string, string, string];
    (bindings[field] ??= []).push({ node, input });
  }
  return bindings;
}

function resolveWorkflow(options: ComfyImportOptions & { workflow: string }): { file: string; written: string } {
  const given = options.workflow;
  const candidates = [path.resolve(options.cwd ?? process.cwd(), given), path.resolve(options.baseDir, given)];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (!file)
    throw new SchemaImportError(
      `The workflow ${given} cannot be found (looked at ${[...new Set(candidates)].join(" and ")}).`,
    );
  const relative = path.relative(options.baseDir, file);
  return { file, written: path.isAbsolute(relative) ? relative : relative.split(path.sep).join("/") };
}

/** Our parse functions' ProvidersFileError, told as an import problem. */
function checked<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ProvidersFileError) throw new SchemaImportError(`${what}: ${err.message}`);
    throw err;
  }
}

async function objectInfo(
  options: ComfyImportOptions,
  classes: string[],
  notes: string[],
): Promise<Record<string, Record<string, InputSpec>>> {
  const found: Record<string, Record<string, InputSpec>> = {};
  if (!options.baseUrl) return found;
  const base = options.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
  };
  for (const name of classes) {
    try {
      const signal = options.signal
        ? AbortSignal.any([options.signal, AbortSignal.timeout(10_000)])
        : AbortSignal.timeout(10_000);
      const response = await fetch(`${base}/object_info/${encodeURIComponent(name)}`, { headers, signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as Record<
        string,
        { input?: { required?: Record<string, InputSpec>; optional?: Record<string, InputSpec> } }
      >;
      const info = body[name];
      if (!info) {
        notes.push(
          `${options.baseUrl} does not know the node class ${name} (a custom node it lacks?): its inputs are typed from the workflow's values.`,
        );
        continue;
      }
      found[name] = { ...(info.input?.optional ?? {}), ...(info.input?.required ?? {}) };
    } catch (err) {
      options.signal?.throwIfAborted();
      // One note for an unreachable box, not one per class.
      notes.push(
        `ComfyUI's node descriptions could not be read from ${options.baseUrl} (GET /object_info/${name}: ${(err as Error).message}): the inputs are typed from the workflow's values.`,
      );
      break;
    }
  }
  return found;
}

const DESCRIPTIONS: Record<string, string> = {
  prompt: "What to make.",
  negative_prompt: "What to keep out.",
  seed: "The same seed and settings give the same result; left out, a random one.",
  steps: "Sampling steps: more is slower and finer.",
  width: "Pixels across.",
  height: "Pixels down.",
};

/** Inputs ComfyUI takes as floats, for when the workflow's value happens to be whole (cfg 7). */
const FLOAT_INPUTS = new Set(["cfg", "denoise", "strength", "guidance", "scale", "shift", "seconds"]);

function widen(property: JsonSchemaObject, value: number): void {
  if (typeof property.minimum === "number" && value < property.minimum) property.minimum = value;
  if (typeof property.maximum === "number" && value > property.maximum) property.maximum = value;
  if (typeof property.multipleOf === "number" && value % property.multipleOf !== 0) delete property.multipleOf;
}

/** The schema of one bound field, and whether it is required. */
function fieldSchema(
  field: string,
  target: NodeInput,
  graph: ComfyGraph,
  spec: InputSpec | undefined,
  notes: string[],
): { property: JsonSchemaObject; required: boolean } {
  const node = graph[target.node]!;
  const value = node.inputs[target.input];
  const title = humanize(field);
  const where = `${node._meta?.title ?? node.class_type} (node ${target.node}), input ${target.input}`;
  const description = Object.hasOwn(DESCRIPTIONS, field) ? `${DESCRIPTIONS[field]} Sets ${where}.` : `Sets ${where}.`;
  const names = [field, target.input].map((n) => n.toLowerCase());
  const named = (...candidates: string[]) => names.some((n) => candidates.includes(n));
  const specType = spec?.[0];
  const specOptions = spec?.[1] ?? {};

  if (/LoadImage/.test(node.class_type) && target.input === "image") {
    return { property: fileInputField("image/*", title, `${description} An image file (file_…).`), required: true };
  }
  if (Array.isArray(specType) && specType.length > 0 && specType.every((c) => typeof c === "string")) {
    const choices = specType as string[];
    if (typeof value === "string" && choices.includes(value))
      return { property: { type: "string", title, description, enum: choices, default: value }, required: false };
    notes.push(
      `${field}: the workflow's value ${JSON.stringify(value)} is not one of ComfyUI's choices for ${target.input}; the field is left a free string.`,
    );
  }
  if (typeof value === "string") {
    // The words of the run: the person must give them (the workflow's own are an example).
    if (field === "prompt" || field === "text")
      return { property: { type: "string", title, description, minLength: 1 }, required: true };
    return { property: { type: "string", title, description, default: value }, required: false };
  }
  if (typeof value === "boolean")
    return { property: { type: "boolean", title, description, default: value }, required: false };
  if (typeof value === "number") {
    const isFloat =
      specType === "FLOAT" || (specType !== "INT" && (!Number.isInteger(value) || FLOAT_INPUTS.has(target.input)));
    const property: JsonSchemaObject = { type: isFloat ? "number" : "integer", title, description };
    if (!isFloat && named("seed", "noise_seed")) {
      // No default: a seed left out is a random one, so runs differ.
      return { property: { ...property, minimum: 0, maximum: SEED_MAX }, required: false };
    }
    if (!isFloat && named("steps")) Object.assign(property, { minimum: 1, maximum: 150 });
    else if (!isFloat && named("width", "height"))
      Object.assign(property, { minimum: 64, maximum: 4096, multipleOf: 8 });
    else {
      if (typeof specOptions.min === "number" && Number.isFinite(specOptions.min)) property.minimum = specOptions.min;
      if (
        typeof specOptions.max === "number" &&
        Number.isFinite(specOptions.max) &&
        Math.abs(specOptions.max) <= Number.MAX_SAFE_INTEGER
      )
        property.maximum = specOptions.max;
    }
    widen(property, value);
    property.default = value;
    return { property, required: false };
  }
  throw new SchemaImportError(
    `--bind ${field}=${target.node}.${target.input}: the workflow's value there is ${JSON.stringify(value)}, which no input field can set (bind a string, number or boolean).`,
  );
}

function modalityOf(graph: ComfyGraph): Modality {
  const classes = Object.values(graph).map((node) => node.class_type);
  // Core SaveGLB (comfy_extras/nodes_hunyuan3d.py) saves the .glb a 3D workflow makes.
  if (classes.includes("SaveGLB")) return "3d";
  if (classes.some((c) => /Video|VHS_/.test(c))) return "video";
  if (classes.some((c) => /SaveAudio|PreviewAudio/.test(c))) return "audio";
  return "image";
}

/** A ready ComfyUI entry from a workflow file and the operator's bindings. */
export async function importComfyEntry(options: ComfyImportOptions): Promise<ImportedEntry> {
  const notes: string[] = [];
  const inline = typeof options.workflow !== "string";
  const { file, written } = inline
    ? { file: null, written: null }
    : resolveWorkflow(options as ComfyImportOptions & { workflow: string });
  const ctx = { baseDir: options.baseDir, env: {} };
  const graph = inline
    ? checked("The workflow", () => parseWorkflow(options.workflow, "workflow", ctx))
    : checked(`The workflow ${written}`, () => parseWorkflow(file, "--comfyui", ctx));
  const bindings = Array.isArray(options.bindings) ? parseBindArguments(options.bindings) : options.bindings;
  const fields = Object.keys(bindings);
  if (fields.length === 0)
    throw new SchemaImportError(
      "Bind at least one input field to a node input: --bind prompt=6.text (repeat --bind for each field).",
    );
  // Each binding names a node and an input of it holding a value (not a link): the server's own check.
  const stub: JsonSchemaObject = { type: "object", properties: Object.fromEntries(fields.map((f) => [f, {}])) };
  try {
    parseComfyEntry({ workflow: graph, bindings }, "bind", stub, ctx);
  } catch (err) {
    if (!(err instanceof ProvidersFileError)) throw err;
    // "bind.bindings.prompt[0].node names node …" → "--bind prompt=99.text names node …"
    const match = /^bind\.bindings\.(\w+)(?:\[(\d+)\])?(?:\.(?:node|input))? ([\s\S]*)$/.exec(err.message);
    if (!match) throw new SchemaImportError(`--bind: ${err.message}`);
    const target = bindings[match[1]!]![Number(match[2] ?? 0)]!;
    throw new SchemaImportError(`--bind ${match[1]}=${target.node}.${target.input} ${match[3]}`);
  }

  const classes = [...new Set(fields.map((f) => graph[bindings[f]![0]!.node]!.class_type))];
  const info = await objectInfo(options, classes, notes);
  const properties: Record<string, JsonSchemaObject> = {};
  const required: string[] = [];
  for (const field of fields) {
    const [first, ...others] = bindings[field]!;
    const node = graph[first!.node]!;
    const made = fieldSchema(field, first!, graph, info[node.class_type]?.[first!.input], notes);
    properties[field] = made.property;
    if (made.required) required.push(field);
    if (others.length > 0)
      notes.push(
        `${field} sets ${bindings[field]!.length} node inputs; its schema follows node ${first!.node}'s ${first!.input}.`,
      );
  }
  const inputSchema: JsonSchemaObject = {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties,
  };

  let modality = options.modality;
  if (!modality) {
    modality = modalityOf(graph);
    notes.push(`modality "${modality}" read from the workflow's nodes; pass --modality to change it.`);
  }
  const tasks = options.tasks ?? defaultTasks(modality, inputSchema, written ?? "");
  const drivers =
    options.drivers ?? (fields.includes("batch_size") && /^image/i.test(options.unit) ? ["batch_size"] : []);
  const stem = written === null ? (options.id.split("/").at(-1) ?? "workflow") : path.basename(written);
  const entry: Record<string, unknown> = {
    id: options.id,
    name: (options.name ?? humanize(stem.replace(/\.json$/i, ""))).slice(0, 100),
    ...(options.creator ? { creator: options.creator.slice(0, 100) } : {}),
    description: (options.description ?? (written ? `The ComfyUI workflow ${written}.` : "A ComfyUI workflow.")).slice(
      0,
      1000,
    ),
    modality,
    tasks,
    revision: options.today ?? new Date().toISOString().slice(0, 10),
    status: "stable",
    workflow: written ?? graph,
    bindings: Object.fromEntries(fields.map((f) => [f, bindings[f]!.length === 1 ? bindings[f]![0] : bindings[f]])),
    input_schema: inputSchema,
    pricing: { unit: options.unit, usd: options.usd, drivers, overrides: [] },
    ...costField(options, drivers),
  };
  // The whole entry as the server reads its workflow part (the rest is checked when written).
  checked("The entry", () => parseComfyEntry(entry, "entry", inputSchema, ctx));
  return { entry, dropped: [], notes };
}
