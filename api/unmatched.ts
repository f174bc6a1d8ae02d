// Answers for requests no route takes: placeholders left in the path, a path without /v1 or
// with another version (/v2/...), a wrong method (405 with Allow), or an unknown path (404 with
// the closest real one).
import { closestMatch } from "../lib/primitives/closest-match";
import { ApiError } from "../lib/primitives/errors";
import type { RouteSpec } from "./route";

const PLACEHOLDER = /^(\{[^}]*\}|<[^>]*>|:[A-Za-z_]\w*|undefined|null)$/;
const MAY_HOLD_PLACEHOLDER = /[{<:%]|\/(?:undefined|null)(?:\/|$)/;

/** Throws placeholder_in_path when a segment is still an example placeholder. */
export function refusePlaceholders(path: string): void {
  // Most paths hold none of what a placeholder needs: one test instead of one per segment.
  if (!MAY_HOLD_PLACEHOLDER.test(path)) return;
  for (const raw of path.split("/")) {
    let segment = raw;
    if (raw.includes("%")) {
      try {
        segment = decodeURIComponent(raw);
      } catch {
        // a malformed escape is not a placeholder; routing will answer 404
      }
    }
    if (PLACEHOLDER.test(segment)) {
      throw new ApiError(
        "placeholder_in_path",
        `The path ${path} still holds the placeholder "${segment}". Replace it with a real value, such as an ID from a list.`,
      );
    }
  }
}

function templateRegex(template: string): RegExp {
  const pattern = template
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}/?$`);
}

/** A template with the caller's own segments in place of its parameters, for comparing. */
function fillTemplate(template: string, path: string): string {
  const given = path.split("/");
  return template
    .split("/")
    .map((part, i) => (part.startsWith(":") ? (given[i] ?? part) : part))
    .join("/");
}

/** "/v2/models" → "v2"; a path that names a version of the API other than /v1 (in any case). */
function otherVersion(path: string): string | null {
  // /V1/… is the right version in the wrong case: still pointed to /v1, not called another version.
  const version = /^\/(v\d+)(?:\/|$)/i.exec(path)?.[1];
  return version ?? null;
}

export function unmatchedRequestError(method: string, path: string, routes: readonly RouteSpec[]): ApiError {
  if (!path.startsWith("/v1/") && path !== "/v1") {
    const version = otherVersion(path);
    const rest = version ? path.slice(version.length + 1) : path;
    const versioned = `/v1${rest}`;
    const exists = routes.some((r) => templateRegex(r.path).test(versioned));
    const start =
      version && version.toLowerCase() !== "v1"
        ? `There is no API version ${version}; every API path starts with /v1`
        : "Every API path starts with /v1 (lower-case)";
    return new ApiError(
      "not_found",
      exists
        ? `${start}: use ${method} ${versioned}.`
        : `${start}, and no endpoint matches ${method} ${version ? versioned : path}. GET /v1/models lists the catalog.`,
    );
  }
  const allowed = [...new Set(routes.filter((r) => templateRegex(r.path).test(path)).map((r) => r.method))];
  if (allowed.length > 0) {
    return new ApiError("method_not_allowed", `${path} does not take ${method}; it takes ${allowed.join(", ")}.`, {
      headers: { Allow: allowed.join(", ") },
      status: 405,
    });
  }
  // Suggest within the same resource first: /v1/models/atelier should not point to /v1/files/….
  const resource = path.split("/")[2];
  const sameResource = routes.filter((r) => r.path.split("/")[2] === resource);
  const candidates = [...new Set((sameResource.length ? sameResource : routes).map((r) => fillTemplate(r.path, path)))];
  const suggestion = closestMatch(path, candidates);
  return new ApiError(
    "not_found",
    `No endpoint matches ${method} ${path}.${suggestion ? ` Did you mean ${suggestion}?` : " GET /v1/models lists the catalog."}`,
  );
}
