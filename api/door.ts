// Which door a request goes through: the /v1 API (Hono) or the studio (Next). A program that
// forgets /v1, or names another version, gets the API's JSON 404 pointing to the /v1 path; a
// browser asking for HTML keeps getting the studio, and Next's own traffic (assets, React Server
// Component fetches, server actions) always goes to Next.
//
// The studio's pages are read from the Next build (.next/app-path-routes-manifest.json), the
// very list Next serves, so they cannot drift; without a build (next dev) from the app/ tree.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface StudioRoute {
  /** The route as Next writes it: /catalog/[creator]/[name], /api/auth/[...nextauth] */
  route: string;
  /** A route handler (route.ts) rather than a page. */
  handler: boolean;
  pattern: RegExp;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** /catalog/[creator]/[name] → ^/catalog/[^/]+/[^/]+/?$ ; [...x] one or more segments, [[...x]] zero or more. */
export function routePattern(route: string): RegExp {
  let pattern = "";
  for (const segment of route.split("/").filter(Boolean)) {
    if (/^\[\[\.\.\.[^\]]+\]\]$/.test(segment)) pattern += "(?:/.*)?";
    else if (/^\[\.\.\.[^\]]+\]$/.test(segment)) pattern += "/.+";
    else if (/^\[[^\]]+\]$/.test(segment)) pattern += "/[^/]+";
    else pattern += `/${escapeRegex(segment)}`;
  }
  return new RegExp(`^${pattern || "/"}/?$`);
}

/** Next's error pages are not addresses anyone visits. */
const NOT_ADDRESSES = new Set(["/_not-found", "/_global-error"]);

/** From app-path-routes-manifest.json: {"/(studio)/files/page": "/files", "/api/auth/[...nextauth]/route": …}. */
export function studioRoutesFromManifest(manifest: Record<string, string>): StudioRoute[] {
  return Object.entries(manifest)
    .filter(([, route]) => !NOT_ADDRESSES.has(route))
    .map(([entry, route]) => ({ route, handler: entry.endsWith("/route"), pattern: routePattern(route) }));
}

/** The same list from the app/ directory: page.* and route.* files, route groups and private folders left out. */
export function studioRoutesFromAppDir(appDir: string): StudioRoute[] {
  const routes: StudioRoute[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        const name = entry.name;
        // _private folders are not routes; @slots and (groups) add no segment.
        if (name.startsWith("_")) continue;
        walk(path.join(dir, name), /^\(.*\)$/.test(name) || name.startsWith("@") ? segments : [...segments, name]);
      } else if (/^(page|route)\.(tsx|ts|jsx|js|mdx)$/.test(entry.name)) {
        const route = `/${segments.join("/")}`;
        routes.push({ route, handler: entry.name.startsWith("route."), pattern: routePattern(route) });
      }
    }
  };
  if (existsSync(appDir)) walk(appDir, []);
  return routes;
}

/** The studio's routes: the build's manifest in production, the app/ tree in development (read again at most every 2 s). */
export function studioRoutes(projectDir: string, dev: boolean): () => StudioRoute[] {
  const manifestFile = path.join(projectDir, ".next", "app-path-routes-manifest.json");
  if (!dev && existsSync(manifestFile)) {
    const routes = studioRoutesFromManifest(JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, string>);
    return () => routes;
  }
  const appDir = path.join(projectDir, "app");
  let cached = studioRoutesFromAppDir(appDir);
  let readAt = Date.now();
  return () => {
    if (dev && Date.now() - readAt > 2000) {
      cached = studioRoutesFromAppDir(appDir);
      readAt = Date.now();
    }
    return cached;
  };
}

/** The first segment of every /v1 route: /v1/models/... → "models". */
export function apiResources(apiPaths: readonly string[]): Set<string> {
  const resources = new Set<string>();
  for (const p of apiPaths) {
    const [, version, resource] = p.split("/");
    if (version === "v1" && resource && !resource.startsWith(":") && resource !== "*") resources.add(resource);
  }
  return resources;
}

/** The highest q among the media ranges `types` matches (exact, or `application/*+json` style suffix). */
function qualityOf(accept: string, matches: (type: string) => boolean): number {
  let best = 0;
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    if (!type || !matches(type)) continue;
    let q = 1;
    for (const param of params) {
      const m = /^q=([0-9.]+)$/.exec(param);
      if (m) q = Number(m[1]);
    }
    if (Number.isFinite(q) && q > best) best = q;
  }
  return best;
}

const isHtml = (type: string) => type === "text/html" || type === "application/xhtml+xml";
const isJson = (type: string) => type === "application/json" || /^application\/[\w.-]+\+json$/.test(type);

/** Accept as a browser sends it: HTML wanted at least as much as JSON. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = qualityOf(accept, isHtml);
  return html > 0 && html >= qualityOf(accept, isJson);
}

/** Accept as a program sends it: JSON wanted more than HTML. */
export function asksForJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = qualityOf(accept, isJson);
  return json > 0 && json > qualityOf(accept, isHtml);
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** An API key in either header the API takes (x-api-key, Authorization: Bearer). Browsers send neither (next-auth uses cookies). */
export function carriesApiKey(headers: Headers): boolean {
  return headers["x-api-key"] !== undefined || /^\s*bearer(\s|$)/i.test(header(headers, "authorization") ?? "");
}

/** Next's own traffic: assets, the favicon, React Server Component fetches, server actions. */
function isNextTraffic(pathname: string, search: string, headers: Headers): boolean {
  return (
    pathname.startsWith("/_next/") ||
    pathname.startsWith("/__nextjs") ||
    pathname === "/favicon.ico" ||
    /(?:^|&)_rsc=/.test(search) ||
    headers["rsc"] !== undefined ||
    headers["next-action"] !== undefined ||
    headers["next-router-state-tree"] !== undefined ||
    (header(headers, "accept") ?? "").includes("text/x-component")
  );
}

export interface DoorOptions {
  studioRoutes: () => StudioRoute[];
  /** First path segments of the API's resources (apiResources). */
  apiResources: ReadonlySet<string>;
}

/**
 * Whether the one server hands this request to the API rather than the studio, in this order:
 * 1. /v1 and below, and /mcp (the MCP door): the API.
 * 2. Next's own traffic: the studio.
 * 3. Another version, /v2 or /v0/models: the API (404 pointing to /v1).
 * 4. A request preferring HTML (a browser): the studio.
 * 5. A request carrying an API key: the API, unless it is for a studio route handler (next-auth).
 * 6. A request asking for JSON on a path no studio page or route has: the API.
 * 7. A path whose first segment is an API resource (/models, /quotes, /files...): the API.
 * 8. Anything else: the studio (its HTML 404 for unknown paths).
 */
export function createDoorChooser(options: DoorOptions): (url: string, headers: Headers) => boolean {
  const studioMatch = (pathname: string) => options.studioRoutes().find((r) => r.pattern.test(pathname));
  return (url, headers) => {
    const queryAt = url.indexOf("?");
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const search = queryAt === -1 ? "" : url.slice(queryAt + 1);
    if (pathname === "/v1" || pathname.startsWith("/v1/") || pathname === "/mcp" || pathname === "/mcp/") return true;
    if (isNextTraffic(pathname, search, headers)) return false;
    if (/^\/v\d+(?:\/|$)/i.test(pathname)) return true;
    const accept = header(headers, "accept");
    if (prefersHtml(accept)) return false;
    if (carriesApiKey(headers)) return !studioMatch(pathname)?.handler;
    if (asksForJson(accept) && !studioMatch(pathname)) return true;
    return options.apiResources.has(pathname.split("/")[1] ?? "");
  };
}
