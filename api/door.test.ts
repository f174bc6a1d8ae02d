import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  apiResources,
  asksForJson,
  createDoorChooser,
  prefersHtml,
  routePattern,
  studioRoutesFromAppDir,
  studioRoutesFromManifest,
  type StudioRoute,
} from "./door";

const ROOT = path.resolve(__dirname, "..");
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

const MANIFEST = {
  "/(studio)/catalog/(list)/page": "/catalog",
  "/(studio)/catalog/[creator]/[name]/page": "/catalog/[creator]/[name]",
  "/(studio)/files/page": "/files",
  "/(studio)/models/[creator]/[name]/page": "/models/[creator]/[name]",
  "/(studio)/runs/[id]/page": "/runs/[id]",
  "/_not-found/page": "/_not-found",
  "/api/auth/[...nextauth]/route": "/api/auth/[...nextauth]",
  "/page": "/",
};

const routes: StudioRoute[] = studioRoutesFromManifest(MANIFEST);
const toApi = createDoorChooser({
  studioRoutes: () => routes,
  apiResources: apiResources([
    "/*",
    "/v1/models",
    "/v1/models/:creator/:name",
    "/v1/quotes",
    "/v1/files/:id",
    "/v1/public/models",
  ]),
});

describe("routePattern", () => {
  it("matches Next's dynamic segments", () => {
    expect(routePattern("/").test("/")).toBe(true);
    expect(routePattern("/").test("/x")).toBe(false);
    expect(routePattern("/catalog/[creator]/[name]").test("/catalog/atelier/gradient")).toBe(true);
    expect(routePattern("/catalog/[creator]/[name]").test("/catalog/atelier")).toBe(false);
    expect(routePattern("/api/auth/[...nextauth]").test("/api/auth/callback/credentials")).toBe(true);
    expect(routePattern("/api/auth/[...nextauth]").test("/api/auth")).toBe(false);
    expect(routePattern("/docs/[[...slug]]").test("/docs")).toBe(true);
    expect(routePattern("/docs/[[...slug]]").test("/docs/a/b")).toBe(true);
    expect(routePattern("/files").test("/files/")).toBe(true);
  });
});

describe("studio routes", () => {
  it("reads the manifest, leaving out Next's error pages, and tells handlers from pages", () => {
    expect(routes.map((r) => r.route)).not.toContain("/_not-found");
    expect(routes.find((r) => r.route === "/api/auth/[...nextauth]")?.handler).toBe(true);
    expect(routes.find((r) => r.route === "/files")?.handler).toBe(false);
  });

  it("finds the same routes in the app/ tree as the build's manifest lists (when built)", () => {
    const fromTree = studioRoutesFromAppDir(path.join(ROOT, "app"));
    expect(fromTree.map((r) => r.route)).toEqual(
      expect.arrayContaining(["/", "/catalog", "/catalog/[creator]/[name]", "/api/auth/[...nextauth]", "/sign-in"]),
    );
    const manifestFile = path.join(ROOT, ".next", "app-path-routes-manifest.json");
    if (!existsSync(manifestFile)) return;
    const fromBuild = studioRoutesFromManifest(
      JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, string>,
    );
    const key = (r: StudioRoute) => `${r.handler ? "route" : "page"} ${r.route}`;
    expect(fromTree.map(key).sort()).toEqual(fromBuild.map(key).sort());
  });
});

describe("Accept", () => {
  it("tells a browser from a program", () => {
    expect(prefersHtml(BROWSER)).toBe(true);
    expect(asksForJson(BROWSER)).toBe(false);
    expect(asksForJson("application/json")).toBe(true);
    expect(asksForJson("application/problem+json")).toBe(true);
    expect(asksForJson("application/json, text/html;q=0.5")).toBe(true);
    expect(prefersHtml("application/json, text/html;q=0.5")).toBe(false);
    expect(prefersHtml("*/*")).toBe(false);
    expect(asksForJson("*/*")).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml("text/html;q=0")).toBe(false);
  });
});

describe("createDoorChooser", () => {
  it("hands every /v1 path to the API, whatever it asks for", () => {
    expect(toApi("/v1/models", { accept: BROWSER })).toBe(true);
    expect(toApi("/v1", {})).toBe(true);
  });

  it("hands /mcp to the API (the MCP door), whatever it asks for; not /mcpx or a studio page under it", () => {
    expect(toApi("/mcp", { accept: "application/json, text/event-stream" })).toBe(true);
    expect(toApi("/mcp", { accept: BROWSER })).toBe(true);
    expect(toApi("/mcp/", {})).toBe(true);
    expect(toApi("/mcpx", { accept: BROWSER })).toBe(false);
  });

  it("hands another version to the API", () => {
    expect(toApi("/v2/models", { "x-api-key": "atl_x" })).toBe(true);
    expect(toApi("/v2/models", { accept: BROWSER })).toBe(true);
    expect(toApi("/v0", {})).toBe(true);
    expect(toApi("/V2/models", {})).toBe(true);
    expect(toApi("/v2x", {})).toBe(false);
  });

  it("hands a request with an API key to the API, unless it wants HTML or is for a studio route handler", () => {
    expect(toApi("/nowhere", { authorization: "Bearer atl_x" })).toBe(true);
    expect(toApi("/nowhere", { "x-api-key": "atl_x" })).toBe(true);
    expect(toApi("/catalog", { "x-api-key": "atl_x", accept: "*/*" })).toBe(true);
    expect(toApi("/catalog", { "x-api-key": "atl_x", accept: BROWSER })).toBe(false);
    expect(toApi("/api/auth/session", { authorization: "Bearer atl_x" })).toBe(false);
    expect(toApi("/nowhere", { authorization: "Basic dTpw" })).toBe(false);
  });

  it("hands a request asking for JSON to the API only where the studio has nothing", () => {
    expect(toApi("/nowhere", { accept: "application/json" })).toBe(true);
    expect(toApi("/catalog", { accept: "application/json" })).toBe(false);
    expect(toApi("/runs/gen_x", { accept: "application/json" })).toBe(false);
    expect(toApi("/api/auth/session", { accept: "application/json" })).toBe(false);
  });

  it("hands paths of API resources without /v1 to the API unless HTML is wanted", () => {
    expect(toApi("/models", {})).toBe(true);
    expect(toApi("/quotes", { accept: "*/*" })).toBe(true);
    expect(toApi("/files", {})).toBe(true);
    expect(toApi("/models/atelier/gradient", { accept: BROWSER })).toBe(false);
  });

  it("keeps browsers and Next's own traffic on the studio", () => {
    expect(toApi("/nowhere", { accept: BROWSER })).toBe(false);
    expect(toApi("/nowhere", {})).toBe(false);
    expect(toApi("/catalog", { accept: BROWSER })).toBe(false);
    expect(toApi("/_next/static/chunks/app.js", { "x-api-key": "atl_x" })).toBe(false);
    expect(toApi("/favicon.ico", { accept: "application/json" })).toBe(false);
    expect(toApi("/models/atelier/gradient?_rsc=abc", {})).toBe(false);
    expect(toApi("/files", { rsc: "1" })).toBe(false);
    expect(toApi("/files", { accept: "text/x-component" })).toBe(false);
    expect(toApi("/keys", { "next-action": "abc", accept: "application/json" })).toBe(false);
  });
});
