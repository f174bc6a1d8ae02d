import { createImageFile, getFile, keepOutputAsFile, listFiles } from "../../lib/core/files/files";
import { ApiError } from "../../lib/primitives/errors";
import { LIMITS } from "../../lib/primitives/limits";
import { jsonResponse } from "../respond";
import { readLimitedBytes, type Router } from "../route";

const IMAGE_TOO_LARGE = "Images are at most 4 MB. Use a direct upload (POST /v1/uploads) for video or sound.";
/** Room for the multipart envelope around a 4 MB image. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** The image of a POST /v1/files: a multipart `file` field, or the raw body with an image type. */
async function readImageUpload(request: Request): Promise<{ data: Buffer; filename: string | null }> {
  const contentType = request.headers.get("content-type") ?? "";
  if (/^multipart\/form-data/i.test(contentType)) {
    const raw = await readLimitedBytes(request, LIMITS.imageUploadBytes + MULTIPART_OVERHEAD, IMAGE_TOO_LARGE);
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } }).formData();
    } catch {
      throw new ApiError("invalid_parameter", "The multipart body could not be read.", { param: "file" });
    }
    const file = form.get("file");
    if (!file || typeof file === "string") {
      throw new ApiError("invalid_parameter", 'Send the image in a multipart field named "file".', { param: "file" });
    }
    return { data: Buffer.from(await file.arrayBuffer()), filename: file.name || null };
  }
  if (/^image\//i.test(contentType)) {
    const filename = /filename="?([^";]+)"?/i.exec(request.headers.get("content-disposition") ?? "")?.[1] ?? null;
    return { data: await readLimitedBytes(request, LIMITS.imageUploadBytes, IMAGE_TOO_LARGE), filename };
  }
  throw new ApiError(
    "unsupported_media_type",
    `POST /v1/files takes multipart/form-data with a "file" field, or a raw body with an image content type; got "${contentType || "none"}".`,
  );
}

export function fileRoutes(router: Router): void {
  // POST /v1/files – store an image (≤ 4 MB) as a workspace file
  router.keyed("POST", "/v1/files", {}, async (c, ctx) => {
    const upload = await readImageUpload(c.req.raw);
    const file = await createImageFile(ctx, upload);
    return jsonResponse(file, 201, { Location: `/v1/files/${file.id}` });
  });

  // GET /v1/files – the workspace's files, newest first
  router.keyed("GET", "/v1/files", { query: ["limit", "cursor"] }, async (_c, ctx, { query }) =>
    jsonResponse(await listFiles(ctx, query)),
  );

  // GET /v1/files/:id – one file with a fresh link
  router.keyed("GET", "/v1/files/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getFile(ctx, { id: params.id! })),
  );

  // POST /v1/generations/:id/outputs/:index/file – keep an image output as a file; again → the same file
  router.keyed("POST", "/v1/generations/:id/outputs/:index/file", {}, async (_c, ctx, { params }) => {
    const file = await keepOutputAsFile(ctx, { id: params.id!, index: params.index! });
    return jsonResponse(file, 201, { Location: `/v1/files/${file.id}` });
  });
}
