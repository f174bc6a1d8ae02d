// The studio: the catalog page for a signed-in user (server time, one request at a time, so the
// figure is the server's and not queueing), and the JavaScript a first load of it downloads.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import { admin, ROOT, type ServerHandle } from "../lib/server";
import { latencyRow, measureThroughput, rpsRow } from "./throughput";

function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";", 1)[0]!);
}

/** Signs in with next-auth's credentials provider; returns the Cookie header of the session. */
export async function signIn(server: Pick<ServerHandle, "studio">, email: string, password: string): Promise<string> {
  const csrfRes = await fetch(`${server.studio}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const jar = cookiesOf(csrfRes);
  const res = await fetch(`${server.studio}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({
      csrfToken,
      email,
      password,
      json: "true",
      callbackUrl: `${server.studio}/catalog`,
    }).toString(),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`studio sign-in failed (${res.status})`);
  return [...jar, session].join("; ");
}

export function studioUser(
  server: Pick<ServerHandle, "store">,
  workspaceId: string,
): { email: string; password: string } {
  const user = { email: `bench-${Date.now().toString(36)}@example.com`, password: "bench-pass-1" };
  admin(server.store, [
    "user",
    "create",
    "--email",
    user.email,
    "--password",
    user.password,
    "--workspace",
    workspaceId,
    "--role",
    "creator",
  ]);
  return user;
}

export async function catalogScenario(settings: BenchSettings, server: ServerHandle, cookie: string): Promise<Row[]> {
  const scenario = "studio /catalog, signed in (1 connection)";
  const r = await measureThroughput(settings, {
    scenario,
    url: `${server.studio}/catalog`,
    method: "GET",
    headers: { cookie, accept: "text/html" },
    expectStatus: 200,
    connections: 1,
  });
  return [latencyRow(scenario, "server p50", r, 50), rpsRow(scenario, "pages/s", r, null)];
}

/** Sums the gzipped size of every script the signed-in catalog page's HTML loads. */
export async function firstLoadJsScenario(server: ServerHandle, cookie: string): Promise<Row[]> {
  const scenario = "studio first-load JavaScript (/catalog)";
  const html = await (await fetch(`${server.studio}/catalog`, { headers: { cookie, accept: "text/html" } })).text();
  const sources = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) sources.add(m[1]!);
  for (const m of html.matchAll(
    /<link[^>]*rel="preload"[^>]*as="script"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*as="script"/g,
  ))
    sources.add((m[1] ?? m[2])!);
  let gzipped = 0;
  let files = 0;
  for (const src of sources) {
    const pathname = new URL(src.replace(/&amp;/g, "&"), server.studio).pathname;
    if (!pathname.startsWith("/_next/")) continue;
    const file = path.join(ROOT, ".next", pathname.slice("/_next/".length));
    const bytes = existsSync(file)
      ? readFileSync(file)
      : Buffer.from(await (await fetch(`${server.studio}${pathname}`)).arrayBuffer());
    gzipped += gzipSync(bytes, { level: 9 }).length;
    files += 1;
  }
  if (files === 0) throw new Error(`${scenario}: the page loads no script`);
  const kb = gzipped / 1024;
  return [
    {
      scenario,
      figure: `kB gzipped (${files} files)`,
      unit: "kB",
      value: kb,
      baseline: null,
      ratio: null,
      target: "≤ 250 kB",
      pass: kb <= 250,
    },
  ];
}
