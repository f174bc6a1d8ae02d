import { Readable } from "node:stream";
import { checkBlobLink } from "../../lib/blobs/links";
import { isBlobKey } from "../../lib/blobs/blob-store";
import { ApiError } from "../../lib/primitives/errors";
import { isShareLinkLive } from "../../lib/core/shares/share-links";
import { BLOB_SECURITY_HEADERS } from "../../lib/primitives/http/security-headers";
import type { ApiDeps } from "../env";
import { requestHeader, type Router } from "../route";

/** "bytes=0-99" → {start, end} within size; null when absent; "invalid" when unsatisfiable. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | "invalid" {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "invalid";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start > end || start >= size ? "invalid" : { start, end };
}

export function blobRoutes(router: Router, deps: ApiDeps): void {
  // GET /v1/blobs/:key – the bytes behind a signed output or file link (no key; the link is the permission)
  router.open(
    "GET",
    "/v1/blobs/:key",
    { query: ["type", "expires", "filename", "share", "signature"] },
    async (c, { params, query }) => {
      const key = params.key!;
      const check = checkBlobLink(deps.config.secretKey, key, query);
      if (!check.ok) {
        throw new ApiError(
          "permission_denied",
          check.reason === "expired"
            ? "This link has expired. Read the generation or file again for a fresh link."
            : "This link is not valid: it was changed or cut short. Read the generation or file again for a fresh link.",
        );
      }
      // A link minted for a share page works only while that share link does (one read, for those links only).
      if (check.share !== undefined && !(await isShareLinkLive(deps.store.db, check.share))) {
        throw new ApiError("resource_not_found", "This shared link was revoked or has expired.");
      }
      const size = isBlobKey(key) ? await deps.services.blobs.size(key) : null;
      if (size === null) throw new ApiError("resource_not_found", "The bytes behind this link no longer exist.");
      const range = parseRange(requestHeader(c, "range"), size);
      const common = {
        "Content-Type": check.contentType,
        "Accept-Ranges": "bytes",
        // A share's bytes are asked for again each time, so a revoked share stops showing them.
        "Cache-Control": check.share === undefined ? "private, max-age=86400, immutable" : "private, no-cache",
        ...BLOB_SECURITY_HEADERS,
        // A link signed with a filename is a download under that name (the studio's Download links).
        ...(check.filename ? { "Content-Disposition": `attachment; filename="${check.filename}"` } : {}),
      };
      if (range === "invalid") {
        throw new ApiError("invalid_request", `The Range header does not fit this file of ${size} bytes.`, {
          status: 416,
          headers: { "Content-Range": `bytes */${size}` },
        });
      }
      const body =
        c.req.method === "HEAD"
          ? null
          : (Readable.toWeb(await deps.services.blobs.read(key, range ?? undefined)) as ReadableStream);
      if (range) {
        return new Response(body, {
          status: 206,
          headers: {
            ...common,
            "Content-Length": String(range.end - range.start + 1),
            "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
          },
        });
      }
      return new Response(body, { status: 200, headers: { ...common, "Content-Length": String(size) } });
    },
  );
}
