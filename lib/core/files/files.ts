// Workspace files: uploaded images (measured with sharp), and image outputs kept as files.
import sharp, { type Metadata } from "sharp";
import { blobLink } from "../../blobs/links";
import type { FilesTable } from "../../store/database";
import { isUniqueViolation } from "../../store/dialects";
import { nowIso, requireScope, type Ctx, type Services } from "../context";
import { ApiError } from "../../primitives/errors";
import { linkBase, type StoredOutput } from "../runs/generation-view";
import { hasIdPrefix, newId } from "../../primitives/ids";
import { pixelLimitMessage } from "../../primitives/image-pixels";
import { LIMITS } from "../../primitives/limits";
import { afterPosition, keysetPage } from "../../primitives/paging";
import type { File, FileList } from "./file-shape";

export type { File, FileList };

/** Image formats a file may hold, by sharp's name for them. */
const IMAGE_TYPES: Record<string, string> = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
  heif: "image/heif",
  tiff: "image/tiff",
};

export async function presentFile(services: Services, row: FilesTable): Promise<File> {
  const link = await blobLink(
    services.blobs,
    { secret: services.secretKey, baseUrl: linkBase(services) },
    row.blob,
    row.content_type,
  );
  return {
    id: row.id,
    object: "file",
    content_type: row.content_type,
    bytes: Number(row.bytes),
    width: row.width,
    height: row.height,
    duration: row.duration,
    filename: row.filename,
    url: link.url,
    expires_at: link.expires_at,
    created_at: row.created_at,
  };
}

export function cleanFilename(name: string | null | undefined): string | null {
  if (!name) return null;
  const base = [...name.split(/[\\/]/).pop()!]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join("")
    .trim();
  return base ? base.slice(0, 255) : null;
}

/** POST /v1/files: an image up to 4 MB; its type and size are measured, never trusted. */
export async function createImageFile(ctx: Ctx, input: { data: Buffer; filename?: string | null }): Promise<File> {
  requireScope(ctx, "generations:write");
  if (input.data.byteLength > LIMITS.imageUploadBytes) {
    throw new ApiError(
      "payload_too_large",
      "Images are at most 4 MB. Use a direct upload (POST /v1/uploads) for video or sound.",
    );
  }
  if (input.data.byteLength === 0) throw new ApiError("invalid_parameter", "The file is empty.", { param: "file" });
  let metadata: Partial<Metadata>;
  try {
    // The header alone, whatever its size: a picture over the pixel limit is told so, not called unreadable.
    metadata = await sharp(input.data, { limitInputPixels: false }).metadata();
  } catch {
    metadata = {};
  }
  const contentType = metadata.format ? IMAGE_TYPES[metadata.format] : undefined;
  if (!contentType || !metadata.width || !metadata.height) {
    throw new ApiError(
      "unsupported_media_type",
      `This is not an image Atelier reads (${Object.values(IMAGE_TYPES).join(", ")}). Video and sound go through POST /v1/uploads.`,
    );
  }
  const overLimit = pixelLimitMessage(metadata.width, metadata.height);
  if (overLimit)
    throw new ApiError("invalid_parameter", `${overLimit} Scale it down and upload it again.`, { param: "file" });
  const row: FilesTable = {
    id: newId("file"),
    workspace_id: ctx.workspaceId,
    blob: await ctx.services.blobs.put(input.data, contentType),
    content_type: contentType,
    bytes: input.data.byteLength,
    width: metadata.width,
    height: metadata.height,
    duration: null,
    filename: cleanFilename(input.filename),
    generation_id: null,
    output_index: null,
    created_at: nowIso(),
  };
  await ctx.db.insertInto("files").values(row).execute();
  return presentFile(ctx.services, row);
}

async function findFile(ctx: Ctx, id: string): Promise<FilesTable | undefined> {
  if (!hasIdPrefix("file", id)) return undefined;
  return ctx.db
    .selectFrom("files")
    .selectAll()
    .where("workspace_id", "=", ctx.workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** GET /v1/files/{id} */
export async function getFile(ctx: Ctx, input: { id: string }): Promise<File> {
  requireScope(ctx, "generations:read");
  const row = await findFile(ctx, input.id);
  if (!row) throw new ApiError("resource_not_found", `No file ${input.id} in this workspace.`);
  return presentFile(ctx.services, row);
}

/** GET /v1/files: newest first, cursor paged like generations. */
export async function listFiles(ctx: Ctx, query: Record<string, string | undefined>): Promise<FileList> {
  requireScope(ctx, "generations:read");
  const page = await keysetPage(
    { secret: ctx.services.secretKey, limit: query.limit, cursor: query.cursor, filters: "files" },
    (after, take) => {
      let q = ctx.db.selectFrom("files").selectAll().where("workspace_id", "=", ctx.workspaceId);
      if (after) q = q.where((eb) => afterPosition(eb, after));
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(take).execute();
    },
  );
  return {
    object: "list",
    url: "/v1/files",
    data: await Promise.all(page.rows.map((r) => presentFile(ctx.services, r))),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** POST /v1/generations/{id}/outputs/{index}/file: keeps an image output; again → the same file. */
export async function keepOutputAsFile(ctx: Ctx, input: { id: string; index: string }): Promise<File> {
  requireScope(ctx, "generations:write");
  const { min, max } = LIMITS.outputIndex;
  if (!/^\d{1,2}$/.test(input.index) || Number(input.index) < min || Number(input.index) > max) {
    throw new ApiError("invalid_parameter", `index is a whole number from ${min} to ${max}, the position in output.`, {
      param: "index",
    });
  }
  const index = Number(input.index);
  const run = hasIdPrefix("generation", input.id)
    ? await ctx.db
        .selectFrom("generations")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where("id", "=", input.id)
        .executeTakeFirst()
    : undefined;
  if (!run) throw new ApiError("resource_not_found", `No generation ${input.id} in this workspace.`);
  if (run.status !== "succeeded") {
    throw new ApiError("invalid_parameter", `Only outputs of a succeeded run can be kept; this run is ${run.status}.`, {
      param: "id",
    });
  }
  const outputs = JSON.parse(run.output_json) as StoredOutput[];
  const output = outputs[index];
  if (!output) {
    throw new ApiError(
      "invalid_parameter",
      `This run has ${outputs.length} output${outputs.length === 1 ? "" : "s"}; index ${index} is out of range.`,
      { param: "index" },
    );
  }
  if (output.type !== "image") {
    throw new ApiError(
      "invalid_parameter",
      `Output ${index} is ${output.type}; only image outputs can be kept as files.`,
      { param: "index" },
    );
  }
  const existing = () =>
    ctx.db
      .selectFrom("files")
      .selectAll()
      .where("generation_id", "=", run.id)
      .where("output_index", "=", index)
      .executeTakeFirst();
  const found = await existing();
  if (found) return presentFile(ctx.services, found);
  const row: FilesTable = {
    id: newId("file"),
    workspace_id: ctx.workspaceId,
    blob: output.blob,
    content_type: output.content_type,
    bytes: output.bytes,
    width: output.width ?? null,
    height: output.height ?? null,
    duration: null,
    filename: `${run.id}-${index}.${output.content_type.split("/")[1] ?? "bin"}`,
    generation_id: run.id,
    output_index: index,
    created_at: nowIso(),
  };
  try {
    await ctx.db.insertInto("files").values(row).execute();
  } catch (err) {
    // Two concurrent keeps of one output: the first one's file is the file.
    const winner = isUniqueViolation(err) ? await existing() : undefined;
    if (winner) return presentFile(ctx.services, winner);
    throw err;
  }
  return presentFile(ctx.services, row);
}
