// Starts a floor server (its own process like Atelier's) answering a captured response, and
// measures it with the same load settings: the bare node:http server (baseline-server.mjs, the
// physical reference) or the framework floor (framework-floor-server.mjs: node:http → Hono).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { load, type LoadOptions, type LoadResult } from "./load";

export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const HOP_HEADERS = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
]);

/** Makes a request with fetch and keeps what came back, to be answered by the baseline. */
export async function capture(url: string, init: RequestInit): Promise<CapturedResponse> {
  const res = await fetch(url, { ...init, redirect: "manual" });
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && name !== "set-cookie") headers[name] = value;
  });
  return { status: res.status, headers, body };
}

const FLOOR_SERVERS = { bare: "baseline-server.mjs", framework: "framework-floor-server.mjs" } as const;
export type Floor = keyof typeof FLOOR_SERVERS;

/** Runs `options` (its URL's path and query kept) against a floor server answering `response`. */
export async function measureBaseline(
  response: CapturedResponse,
  options: LoadOptions,
  floor: Floor = "bare",
): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-bench-baseline-"));
  const specFile = path.join(dir, "response.json");
  writeFileSync(
    specFile,
    JSON.stringify({ status: response.status, headers: response.headers, body: response.body.toString("base64") }),
  );
  // The framework floor shares Atelier's own write-out (lib/primitives/event-loop.ts): TypeScript, through tsx.
  const loader = floor === "framework" ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...loader, path.join(__dirname, "..", FLOOR_SERVERS[floor]), specFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(Number(out.trim()));
      });
      child.once("exit", (code) => reject(new Error(`baseline server exited (${code})`)));
    });
    const target = new URL(options.url);
    return await load({ ...options, url: `http://127.0.0.1:${port}${target.pathname}${target.search}` });
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
