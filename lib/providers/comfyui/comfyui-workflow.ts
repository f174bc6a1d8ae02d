// A ComfyUI entry's workflow and bindings (the providers file's `workflow`, `bindings` and
// `outputs`), checked once at start, and applied to a run's input. The workflow is ComfyUI's API
// format ("Export (API)" in its menu): {"<node id>": {class_type, inputs}}, where an input is a
// value or a link [source node id, output index]. A binding says which node inputs an input field
// sets: {"prompt": {"node": "6", "input": "text"}, "seed": [{"node": "3", "input": "seed"}, …]}.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { isFileField } from "../../core/catalog/file-inputs";
import { arrayAt, describe, fail, objectAt, type JsonObject } from "../common/json-fields";
import type { ParseContext } from "../common/kind";

export interface ComfyNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

/** A workflow in ComfyUI's API format. */
export type ComfyGraph = Record<string, ComfyNode>;

export interface NodeInput {
  node: string;
  input: string;
}

/** What a ComfyUI entry's own fields parse to (RemoteEntryConfig.options). */
export interface ComfyEntryOptions {
  workflow: ComfyGraph;
  /** Input field → the node inputs it sets. */
  bindings: Record<string, NodeInput[]>;
  /** Fields holding a `file_…` id (schema `contentMediaType`): uploaded, and the node gets ComfyUI's name for it. */
  fileFields: string[];
  /** Seed fields without a schema default: when the person leaves one out, a random seed in this range. */
  randomSeeds: Record<string, { min: number; max: number }>;
  /** Nodes whose outputs are collected; null: every output the run reports. */
  outputNodes: string[] | null;
}

/** Node input names ComfyUI's samplers call a seed. */
const SEED_INPUTS = new Set(["seed", "noise_seed"]);

function isLink(value: unknown): value is [string | number, number] {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    (typeof value[0] === "string" || typeof value[0] === "number") &&
    Number.isInteger(value[1])
  );
}

function readWorkflow(value: unknown, at: string, ctx: ParseContext): { graph: unknown; where: string } {
  if (typeof value === "string" && value.trim() !== "") {
    const file = path.resolve(ctx.baseDir, value);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      fail(
        at,
        `names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
      );
    }
    try {
      return { graph: JSON.parse(text), where: `(${value}) ` };
    } catch (err) {
      fail(at, `names ${file}, which is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail(
      at,
      `must be the path of a workflow file in ComfyUI's API format (relative to the providers file) or the workflow itself; got ${describe(value)}.`,
    );
  }
  return { graph: value, where: "" };
}

/** A workflow in ComfyUI's API format, with every link pointing at a node it has. */
export function parseWorkflow(value: unknown, at: string, ctx: ParseContext): ComfyGraph {
  const { graph, where } = readWorkflow(value, at, ctx);
  if (graph === null || typeof graph !== "object" || Array.isArray(graph))
    fail(at, `${where}must be a JSON object of nodes; got ${describe(graph)}.`);
  const nodes = graph as JsonObject;
  if (Array.isArray(nodes.nodes) && Array.isArray(nodes.links)) {
    fail(
      at,
      `${where}is a workflow in ComfyUI's UI format; save it with "Export (API)" (ComfyUI's workflow menu) and use that file.`,
    );
  }
  const ids = Object.keys(nodes);
  if (ids.length === 0) fail(at, `${where}has no nodes.`);
  for (const id of ids) {
    const node = nodes[id] as JsonObject | null;
    const nodeAt = `${where}node "${id}"`;
    if (node === null || typeof node !== "object" || Array.isArray(node))
      fail(at, `${nodeAt} must be an object {class_type, inputs}; got ${describe(node)}.`);
    if (typeof node.class_type !== "string" || node.class_type === "")
      fail(at, `${nodeAt} must have a class_type (a node class such as "KSampler").`);
    const inputs = node.inputs;
    if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs))
      fail(at, `${nodeAt} (${node.class_type}) must have an inputs object.`);
    for (const [name, input] of Object.entries(inputs as JsonObject)) {
      if (isLink(input) && !(String(input[0]) in nodes)) {
        fail(
          at,
          `${nodeAt} (${node.class_type}) input "${name}" links to node "${input[0]}", which the workflow does not have.`,
        );
      }
    }
  }
  return nodes as unknown as ComfyGraph;
}

function parseTarget(value: unknown, at: string, graph: ComfyGraph): NodeInput {
  const target = objectAt(value, at, ["node", "input"]);
  const node = typeof target.node === "number" && Number.isInteger(target.node) ? String(target.node) : target.node;
  if (typeof node !== "string" || node === "")
    fail(`${at}.node`, `must be a node id of the workflow, such as "6"; got ${describe(target.node)}.`);
  const found = graph[node];
  if (!found)
    fail(
      `${at}.node`,
      `names node "${node}", which the workflow does not have (its nodes: ${Object.keys(graph).join(", ")}).`,
    );
  const input = target.input;
  if (typeof input !== "string" || input === "")
    fail(`${at}.input`, `must name an input of node "${node}"; got ${describe(input)}.`);
  if (!Object.hasOwn(found.inputs, input)) {
    fail(
      `${at}.input`,
      `names "${input}", which node "${node}" (${found.class_type}) does not have (its inputs: ${Object.keys(found.inputs).join(", ")}).`,
    );
  }
  if (isLink(found.inputs[input])) {
    fail(
      `${at}.input`,
      `names "${input}" of node "${node}" (${found.class_type}), which is a link to node "${(found.inputs[input] as unknown[])[0]}"; bind a value, not a link.`,
    );
  }
  return { node, input };
}

/**
 * The entry's `workflow`, `bindings` and `outputs`, checked against its input schema: each binding
 * names a field of the schema and existing node inputs, and each field of the schema is bound
 * (a field that changed nothing would be a silent mistake).
 */
export function parseComfyEntry(
  entry: JsonObject,
  at: string,
  schema: JsonSchemaObject,
  ctx: ParseContext,
): ComfyEntryOptions {
  if (entry.workflow === undefined)
    fail(`${at}.workflow`, "is required: the path of a workflow file in ComfyUI's API format, or the workflow itself.");
  const workflow = parseWorkflow(entry.workflow, `${at}.workflow`, ctx);
  const properties = schema.properties ?? {};
  const fields = Object.keys(properties);
  const raw = entry.bindings ?? {};
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    fail(`${at}.bindings`, `must be an object of input field → node input; got ${describe(raw)}.`);
  const bindings: Record<string, NodeInput[]> = {};
  for (const [field, value] of Object.entries(raw as JsonObject)) {
    const fieldAt = `${at}.bindings.${field}`;
    if (!fields.includes(field))
      fail(
        fieldAt,
        `binds "${field}", which is not a field of input_schema (its fields: ${fields.join(", ") || "none"}).`,
      );
    const targets = Array.isArray(value)
      ? arrayAt(value, fieldAt, { min: 1 }).map((target, i) => parseTarget(target, `${fieldAt}[${i}]`, workflow))
      : [parseTarget(value, fieldAt, workflow)];
    bindings[field] = targets;
  }
  for (const field of fields) {
    if (!bindings[field])
      fail(
        `${at}.bindings`,
        `has no binding for the input field "${field}"; bind it to a node input ({"node": "<id>", "input": "<name>"}) or remove it from input_schema.`,
      );
  }
  const fileFields = fields.filter((field) => isFileField(properties[field]));
  const randomSeeds: ComfyEntryOptions["randomSeeds"] = {};
  for (const field of fields) {
    const property = properties[field]!;
    const seedLike = field === "seed" || bindings[field]!.some((target) => SEED_INPUTS.has(target.input));
    if (!seedLike || property.default !== undefined || property.type !== "integer") continue;
    const min = typeof property.minimum === "number" ? Math.ceil(property.minimum) : 0;
    const max = typeof property.maximum === "number" ? Math.floor(property.maximum) : 2 ** 32 - 1;
    // crypto.randomInt takes a range below 2^48.
    randomSeeds[field] = { min, max: Math.min(max, min + 2 ** 47) };
  }
  let outputNodes: string[] | null = null;
  if (entry.outputs !== undefined) {
    outputNodes = arrayAt(entry.outputs, `${at}.outputs`, { min: 1 }).map((node, i) => {
      const id = typeof node === "number" && Number.isInteger(node) ? String(node) : node;
      if (typeof id !== "string" || !workflow[id]) {
        fail(
          `${at}.outputs[${i}]`,
          `must be a node id of the workflow (its nodes: ${Object.keys(workflow).join(", ")}); got ${describe(node)}.`,
        );
      }
      return id;
    });
  }
  return { workflow, bindings, fileFields, randomSeeds, outputNodes };
}

/**
 * The workflow with the run's input in its bound node inputs (a copy: the entry's own is never
 * changed); file fields already hold ComfyUI's name of the uploaded file (prepareRequest). A field the person left out
 * keeps the workflow's value, except a seed without a default, which gets a random one so that
 * runs differ.
 */
export function applyBindings(options: ComfyEntryOptions, input: Record<string, unknown>): ComfyGraph {
  const graph = structuredClone(options.workflow);
  for (const [field, targets] of Object.entries(options.bindings)) {
    let value = input[field];
    const seed = options.randomSeeds[field];
    if (value === undefined && seed) value = randomInt(seed.min, seed.max + 1);
    if (value === undefined) continue;
    for (const target of targets) graph[target.node]!.inputs[target.input] = value;
  }
  return graph;
}
