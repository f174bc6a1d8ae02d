// What ComfyUI's GET /history/{prompt_id} says of a finished prompt (execution.py, main.py):
// {outputs: {<node>: {images|gifs|videos|audio|3d: [{filename, subfolder, type}], animated?}},
//  status: {status_str: "success"|"error", completed, messages: [[event, data], …]}}.
import path from "node:path";
import { EXTENSIONS } from "../common/file-extensions";

/** One file a node saved, as /history reports it. */
export interface SavedFile {
  node: string;
  filename: string;
  subfolder: string;
  /** What the output is for this entry: an animation (VHS `gifs`, `animated`) counts as video. */
  family: "image" | "video" | "audio" | "3d" | null;
}

/**
 * The files the run saved (type "output"; "temp" previews are left out), of the nodes asked for.
 * Nodes report them under `images` (SaveImage; core SaveVideo with `animated`), `gifs` (the
 * VideoHelperSuite's VHS_VideoCombine, videos included), `videos`, `audio` (SaveAudio) or `3d`
 * (core SaveGLB, comfy_extras/nodes_hunyuan3d.py: `{"ui": {"3d": [{filename, subfolder, type}]}}`,
 * a .glb in the output folder). Preview3D's `result` holds bare names, not files: left out.
 */
export function savedFiles(outputs: unknown, nodes: string[] | null): SavedFile[] {
  const files: SavedFile[] = [];
  if (outputs === null || typeof outputs !== "object") return files;
  for (const [node, output] of Object.entries(outputs as Record<string, unknown>)) {
    if (nodes && !nodes.includes(node)) continue;
    if (output === null || typeof output !== "object") continue;
    const record = output as Record<string, unknown>;
    const animated = Array.isArray(record.animated) && record.animated.some(Boolean);
    for (const [key, items] of Object.entries(record)) {
      if (!Array.isArray(items)) continue;
      for (const item of items as Array<Record<string, unknown>>) {
        if (item === null || typeof item !== "object" || typeof item.filename !== "string") continue;
        if ((item.type ?? "output") !== "output") continue;
        const ext = path.extname(item.filename).slice(1).toLowerCase();
        let family = EXTENSIONS[ext]?.family ?? null;
        if (family === "image" && (key === "gifs" || animated)) family = ext === "gif" ? "video" : null;
        files.push({
          node,
          filename: item.filename,
          subfolder: typeof item.subfolder === "string" ? item.subfolder : "",
          family,
        });
      }
    }
  }
  return files;
}

export function describeFiles(files: SavedFile[]): string {
  const counts = new Map<string, number>();
  for (const file of files) counts.set(file.family ?? "other", (counts.get(file.family ?? "other") ?? 0) + 1);
  return [...counts].map(([family, n]) => `${n} ${family}`).join(", ");
}

/** Why a finished run in /history failed ({status: {status_str: "error", messages: [[event, data], …]}}), or null when it did not. */
export function failureOf(entry: { status?: unknown }): string | null {
  const status = entry.status as { status_str?: unknown; messages?: unknown } | null | undefined;
  if (!status || status.status_str !== "error") return null;
  const messages = Array.isArray(status.messages) ? (status.messages as unknown[]) : [];
  for (const message of messages) {
    if (!Array.isArray(message)) continue;
    const [event, data] = message as [unknown, Record<string, unknown> | undefined];
    const node =
      data?.node_id !== undefined
        ? ` at node ${String(data.node_id)}${typeof data.node_type === "string" && data.node_type ? ` (${data.node_type})` : ""}`
        : "";
    if (event === "execution_error") {
      const said =
        typeof data?.exception_message === "string"
          ? data.exception_message.replace(/\s+/g, " ").trim().slice(0, 600)
          : "";
      return `failed${node}${said ? `: ${said}` : "."}`;
    }
    if (event === "execution_interrupted") return `was interrupted${node} (someone stopped it on the ComfyUI server).`;
  }
  return "failed without saying why.";
}
