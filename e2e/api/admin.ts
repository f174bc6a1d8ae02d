// Runs the admin CLI (bin/admin.ts) against a test server's data dir and parses its JSON, so
// each test file makes its own workspaces and keys.
import { execFileSync } from "node:child_process";
import { ADMIN_CLI } from "../admin-cli";
import { REPO_ROOT, SERVERS, storeEnv, type ServerSpec } from "./servers";

function run(spec: ServerSpec, args: string[]): string {
  return execFileSync(process.execPath, [ADMIN_CLI, "--json", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...storeEnv(spec) },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the CLI and parses its JSON output; throws (with stderr) when it exits non-zero. */
export function admin<T = Record<string, unknown>>(args: string[], spec: ServerSpec = SERVERS.main): T {
  const out = run(spec, args);
  return JSON.parse(out) as T;
}

/** Runs the CLI expecting it to fail; returns its exit status and parsed stderr JSON. */
export function adminFailure(
  args: string[],
  spec: ServerSpec = SERVERS.main,
): { status: number; stderr: string; stdout: string } {
  try {
    const stdout = run(spec, args);
    return { status: 0, stderr: "", stdout };
  } catch (err) {
    const e = err as { status: number | null; stderr: string; stdout: string };
    return { status: e.status ?? -1, stderr: String(e.stderr ?? ""), stdout: String(e.stdout ?? "") };
  }
}

export interface Workspace {
  id: string;
  object: "workspace";
  name: string;
  created_at: string;
}

export interface CreatedKey {
  id: string;
  object: "api_key";
  workspace_id: string;
  name: string;
  hint: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  key: string;
}

let counter = 0;
/** A workspace name unique to this run and process. */
export function uniqueName(label: string): string {
  counter += 1;
  return `e2e-${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function createWorkspace(
  opts: { name?: string; credit?: string } = {},
  spec: ServerSpec = SERVERS.main,
): Workspace {
  const args = ["workspace", "create", "--name", opts.name ?? uniqueName("ws")];
  if (opts.credit !== undefined) args.push("--credit", opts.credit);
  return admin<Workspace>(args, spec);
}

/** A new workspace and its first key (every scope, 365 days) in one CLI call: `workspace create --key`. */
export function createWorkspaceWithKey(
  opts: { name?: string; credit?: string } = {},
  spec: ServerSpec = SERVERS.main,
): Workspace & { api_key: CreatedKey } {
  const args = ["workspace", "create", "--name", opts.name ?? uniqueName("ws"), "--key"];
  if (opts.credit !== undefined) args.push("--credit", opts.credit);
  return admin<Workspace & { api_key: CreatedKey }>(args, spec);
}

export function createKey(
  workspaceId: string,
  opts: { name?: string; expires?: "30d" | "90d" | "365d" | "never"; scopes?: string[] } = {},
  spec: ServerSpec = SERVERS.main,
): CreatedKey {
  const args = ["key", "create", "--workspace", workspaceId];
  if (opts.name !== undefined) args.push("--name", opts.name);
  if (opts.expires !== undefined) args.push("--expires", opts.expires);
  if (opts.scopes !== undefined) args.push("--scopes", opts.scopes.join(","));
  return admin<CreatedKey>(args, spec);
}

export function revokeKey(keyId: string, spec: ServerSpec = SERVERS.main): CreatedKey {
  return admin<CreatedKey>(["key", "revoke", keyId], spec);
}

export function addCredit(workspaceId: string, usd: string, spec: ServerSpec = SERVERS.main): Record<string, unknown> {
  return admin(["credit", "add", "--workspace", workspaceId, "--usd", usd], spec);
}
