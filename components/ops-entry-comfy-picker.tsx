"use client";
// The ComfyUI part of "Add a model": a workflow in ComfyUI's API format, read in the browser, its
// nodes and their inputs that hold values (links between nodes are not fields) listed with those
// values, and a field name for each input the operator binds. The server turns the choice into
// an entry (importComfyAction), reading the box's own descriptions of the bound inputs.
import { useId, useState } from "react";
import { parseJson } from "./ops-entry-json";
import { BUTTON, FieldError, INPUT, LABEL } from "./ops-entry-ui";

type Graph = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }>;

export interface ComfyChoice {
  workflow: Graph;
  bindings: Record<string, Array<{ node: string; input: string }>>;
}

interface Row {
  node: string;
  input: string;
  value: string | number | boolean;
}

/** The graph, or why it is not one in ComfyUI's API format. */
function readGraph(text: string): { graph: Graph } | { error: string } {
  const parsed = parseJson(text);
  if (!parsed.ok) return { error: `Not JSON: ${parsed.message}` };
  const value = parsed.value as Record<string, unknown> | null;
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { error: "A workflow is a JSON object of nodes." };
  if (Array.isArray(value.nodes) && Array.isArray(value.links))
    return {
      error:
        "This is a workflow in ComfyUI's UI format: save it with \"Export (API)\" (ComfyUI's workflow menu) and upload that file.",
    };
  for (const [id, node] of Object.entries(value)) {
    const n = node as { class_type?: unknown; inputs?: unknown } | null;
    if (!n || typeof n !== "object" || typeof n.class_type !== "string" || !n.inputs || typeof n.inputs !== "object")
      return { error: `Node "${id}" is not {class_type, inputs}: this is not ComfyUI's API format.` };
  }
  if (Object.keys(value).length === 0) return { error: "The workflow has no nodes." };
  return { graph: value as Graph };
}

/** The inputs that hold a value (a string, number or boolean), node by node in id order. */
function rowsOf(graph: Graph): Row[] {
  const ids = Object.keys(graph).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const rows: Row[] = [];
  for (const node of ids)
    for (const [input, value] of Object.entries(graph[node]!.inputs))
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        rows.push({ node, input, value });
  return rows;
}

/** A field name for an input: what creators know it by (the first text is the prompt). */
function suggestions(graph: Graph, rows: Row[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  let texts = 0;
  for (const row of rows) {
    const cls = graph[row.node]!.class_type;
    let name = row.input;
    if (/CLIPTextEncode/.test(cls) && row.input === "text") name = texts++ === 0 ? "prompt" : "negative_prompt";
    else if (row.input === "noise_seed") name = "seed";
    else if (row.input === "sampler_name") name = "sampler";
    if (taken.has(name)) name = `${name}_${row.node}`.replace(/[^A-Za-z0-9_]/g, "_");
    taken.add(name);
    out.set(`${row.node}.${row.input}`, name);
  }
  return out;
}

const shown = (value: Row["value"]) => {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

export function ComfyPicker(props: { pending: boolean; onImport: (choice: ComfyChoice) => void }) {
  const fileId = useId();
  const [graph, setGraph] = useState<Graph | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [bound, setBound] = useState<Record<string, boolean>>({});
  const [names, setNames] = useState<Record<string, string>>({});

  async function load(file: File | undefined) {
    setError(null);
    setGraph(null);
    if (!file) return;
    const read = readGraph(await file.text());
    if ("error" in read) return setError(read.error);
    const rows = rowsOf(read.graph);
    setGraph(read.graph);
    setBound({});
    setNames(Object.fromEntries(suggestions(read.graph, rows)));
  }

  const rows = graph ? rowsOf(graph) : [];
  const chosen = rows.filter((r) => bound[`${r.node}.${r.input}`]);
  const bindings: ComfyChoice["bindings"] = {};
  for (const r of chosen) {
    const field = (names[`${r.node}.${r.input}`] ?? "").trim();
    (bindings[field] ??= []).push({ node: r.node, input: r.input });
  }
  const badName = chosen
    .map((r) => (names[`${r.node}.${r.input}`] ?? "").trim())
    .find((n) => !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(n));

  return (
    <div className="space-y-3">
      <label className={LABEL} htmlFor={fileId}>
        Workflow (ComfyUI&apos;s API format, .json)
      </label>
      <input
        id={fileId}
        type="file"
        accept="application/json,.json"
        className="block w-full text-sm text-zinc-700 file:mr-3 file:rounded-md file:border-0 file:bg-white file:px-3 file:py-2 file:text-sm file:font-medium file:ring-1 file:ring-zinc-300"
        onChange={(e) => void load(e.target.files?.[0])}
      />
      <FieldError id="workflow-error" message={error ?? undefined} />
      {graph ? (
        <>
          <p className="text-xs text-zinc-500">
            Tick the inputs creators set, and name their fields; the rest of the workflow stays as it is.
          </p>
          <div className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-white" data-testid="comfy-nodes">
            <table className="w-full text-left text-sm">
              <thead className="sticky top-0 bg-zinc-50 text-xs text-zinc-500">
                <tr>
                  <th className="px-3 py-2 font-medium">Node</th>
                  <th className="px-3 py-2 font-medium">Input and its value</th>
                  <th className="px-3 py-2 font-medium">Field</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {rows.map((r) => {
                  const key = `${r.node}.${r.input}`;
                  const node = graph[r.node]!;
                  return (
                    <tr key={key} data-testid="comfy-input" data-input={key}>
                      <td className="px-3 py-2 align-top text-zinc-700">
                        <span className="font-mono text-xs text-zinc-500">{r.node}</span>{" "}
                        {node._meta?.title ?? node.class_type}
                      </td>
                      <td className="px-3 py-2 align-top">
                        <label className="flex items-start gap-2">
                          <input
                            type="checkbox"
                            className="mt-0.5"
                            aria-label={`Bind ${key}`}
                            checked={!!bound[key]}
                            onChange={(e) => setBound((b) => ({ ...b, [key]: e.target.checked }))}
                          />
                          <span className="min-w-0 break-all">
                            <span className="font-medium text-zinc-900">{r.input}</span>{" "}
                            <span className="font-mono text-xs text-zinc-500">{shown(r.value)}</span>
                          </span>
                        </label>
                      </td>
                      <td className="px-3 py-2 align-top">
                        <input
                          className={`${INPUT} mt-0 w-36 py-1 font-mono text-xs disabled:bg-zinc-50 disabled:text-zinc-400`}
                          aria-label={`Field for ${key}`}
                          disabled={!bound[key]}
                          value={names[key] ?? ""}
                          onChange={(e) => setNames((n) => ({ ...n, [key]: e.target.value }))}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="flex flex-wrap items-center gap-3">
            <button
              type="button"
              className={`${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`}
              disabled={props.pending || chosen.length === 0 || badName !== undefined}
              onClick={() => props.onImport({ workflow: graph, bindings })}
            >
              Import workflow
            </button>
            <span className="text-xs text-zinc-500">
              {badName !== undefined
                ? `"${badName}" is not a field name (letters, digits and _; not starting with a digit).`
                : `${chosen.length} bound; a name given twice sets several inputs.`}
            </span>
          </div>
        </>
      ) : null}
    </div>
  );
}
