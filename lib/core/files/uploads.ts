// Direct uploads of video and sound: open (limits checked, a signed PUT URL returned), PUT the
// bytes, then complete (size and type checked, duration measured) into a workspace File. With a
// bucket (S3_BUCKET) the blob's key is chosen at open and the URL is the bucket's presigned PUT,
// so the bytes never pass through Atelier; complete reads the size from the bucket.
import { sql } from "kysely";
import { BlobNotFoundError, BlobTooLargeError } from "../../blobs/blob-store";
import type { UploadsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { nowIso, requireScope, type Ctx, type Services, type SystemCtx } from "../context";
import { readBalance } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { cleanFilename, presentFile, type File } from "./files";
import type { Upload, UploadReceipt } from "./file-shape";
import { hasIdPrefix, newId } from "../../primitives/ids";
import { LIMITS } from "../../primitives/limits";
import { fitsDeclaredType, probeUploadedMedia } from "./media-probe";
import { refuseUnknownFields, requireObject } from "../runs/run-request";
import { sign, verifySignature } from "../../primitives/signing";

export const UPLOAD_CONTENT_TYPES = [
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "audio/mpeg",
  "audio/wav",
  "audio/x-wav",
  "audio/ogg",
  "audio/webm",
  "audio/mp4",
  "audio/aac",
  "audio/flac",
] as const;

/** How long an opened upload accepts bytes. */
const UPLOAD_WINDOW_MS = 60 * 60 * 1000;
const PURPOSE = "upload";

export type { Upload };

function uploadUrl(services: Services, row: UploadsTable): string {
  const expires = String(Math.floor(Date.parse(row.expires_at) / 1000));
  const signature = sign(services.secretKey, PURPOSE, `${row.id}\n${expires}`);
  return `${services.publicBaseUrl}/v1/uploads/${row.id}/content?${new URLSearchParams({ expires, signature })}`;
}

async function uploadUrlOf(services: Services, row: UploadsTable): Promise<string> {
  const presigned =
    row.blob === null
      ? null
      : await services.blobs.signedPutUrl(row.blob, {
          bytes: Number(row.declared_bytes),
          expiresAt: new Date(row.expires_at),
        });
  return presigned ?? uploadUrl(services, row);
}

async function present(ctx: Ctx, row: UploadsTable): Promise<Upload> {
  const file = row.file_id
    ? await ctx.db.selectFrom("files").selectAll().where("id", "=", row.file_id).executeTakeFirst()
    : undefined;
  return {
    id: row.id,
    object: "upload",
    status: row.status,
    filename: row.filename,
    content_type: row.content_type,
    bytes: Number(row.declared_bytes),
    upload_url: row.status === "pending" ? await uploadUrlOf(ctx.services, row) : null,
    expires_at: row.expires_at,
    file: file ? await presentFile(ctx.services, file) : null,
    created_at: row.created_at,
  };
}

function parseUploadBody(body: unknown): { filename: string; contentType: string; bytes: number } {
  const object = requireObject(body, null);
  refuseUnknownFields(object, ["filename", "content_type", "bytes"]);
  const filename = typeof object.filename === "string" ? cleanFilename(object.filename) : null;
  if (!filename)
    throw new ApiError("invalid_parameter", "filename is required: the file's name, 1 to 255 characters.", {
      param: "filename",
    });
  const contentType = object.content_type;
  if (typeof contentType !== "string" || !(UPLOAD_CONTENT_TYPES as readonly string[]).includes(contentType)) {
    throw new ApiError(
      "invalid_parameter",
      `content_type must be one of ${UPLOAD_CONTENT_TYPES.join(", ")}. Images go to POST /v1/files.`,
      { param: "content_type" },
    );
  }
  const bytes = object.bytes;
  if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 1 || bytes > LIMITS.uploadBytesPerDay) {
    throw new ApiError(
      "invalid_parameter",
      `bytes is the file's size: a whole number from 1 to ${LIMITS.uploadBytesPerDay}.`,
      { param: "bytes" },
    );
  }
  return { filename, contentType, bytes };
}

function secondsUntilUtcMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}

/** POST /v1/uploads: checks credit, the in-flight limit and the daily allowance, in one transaction. */
export async function openUpload(ctx: Ctx, body: unknown): Promise<Upload> {
  requireScope(ctx, "generations:write");
  const request = parseUploadBody(body);
  const row = await withTransaction(ctx.db, async (trx) => {
    // One open at a time per workspace: lock its balance row first (a no-op UPDATE locks in both
    // dialects). Without it, concurrent opens on PostgreSQL each count the same uploads and all
    // pass the in-flight and daily limits; SQLite's BEGIN IMMEDIATE already serialises them.
    await trx
      .updateTable("credit_balances")
      .set({ available_micros: sql`available_micros` })
      .where("workspace_id", "=", ctx.workspaceId)
      .execute();
    const now = new Date();
    const balance = await readBalance(trx, ctx.workspaceId);
    if (balance.availableMicros <= 0) {
      throw new ApiError(
        "insufficient_credit",
        "Uploading video or sound needs credit in the workspace. Add credit and try again.",
      );
    }
    const inFlight = await trx
      .selectFrom("uploads")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", ctx.workspaceId)
      .where("status", "=", "pending")
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirstOrThrow();
    if (Number(inFlight.n) >= LIMITS.uploadsInFlight) {
      throw new ApiError(
        "rate_limit_exceeded",
        `This workspace already has ${LIMITS.uploadsInFlight} uploads in flight. Complete one (or let it expire) and try again.`,
        { headers: { "Retry-After": "60" } },
      );
    }
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
    const today = await trx
      .selectFrom("uploads")
      .select(sql<number>`coalesce(sum(declared_bytes), 0)`.as("total"))
      .where("workspace_id", "=", ctx.workspaceId)
      .where("created_at", ">=", dayStart)
      .executeTakeFirstOrThrow();
    if (Number(today.total) + request.bytes > LIMITS.uploadBytesPerDay) {
      const retry = secondsUntilUtcMidnight(now);
      throw new ApiError(
        "rate_limit_exceeded",
        `This upload would pass the daily allowance of 5 GB of video and sound (${Number(today.total)} bytes used today). It resets at midnight UTC.`,
        { headers: { "Retry-After": String(retry) } },
      );
    }
    const upload: UploadsTable = {
      id: newId("upload"),
      workspace_id: ctx.workspaceId,
      filename: request.filename,
      content_type: request.contentType,
      declared_bytes: request.bytes,
      received_bytes: null,
      // A bucket receives the bytes itself: the key is chosen now. On disk, the API's PUT chooses it.
      blob: ctx.services.blobs.kind === "s3" ? ctx.services.blobs.newKey() : null,
      status: "pending",
      file_id: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + UPLOAD_WINDOW_MS).toISOString(),
      completed_at: null,
    };
    await trx.insertInto("uploads").values(upload).execute();
    return upload;
  });
  return present(ctx, row);
}

/**
 * PUT /v1/uploads/{id}/content: the signed URL is the permission. Bytes beyond the declared
 * size are refused; a second PUT replaces the first.
 */
export async function receiveUploadContent(
  ctx: SystemCtx & { services: Services },
  input: { id: string; expires: string | undefined; signature: string | undefined; body: AsyncIterable<Uint8Array> },
): Promise<UploadReceipt> {
  const { id, expires, signature } = input;
  if (
    !expires ||
    !signature ||
    !/^\d{1,12}$/.test(expires) ||
    !verifySignature(ctx.services.secretKey, PURPOSE, `${id}\n${expires}`, signature)
  ) {
    throw new ApiError(
      "permission_denied",
      "This upload URL is not valid: it was changed or cut short. Use upload_url exactly as POST /v1/uploads returned it.",
    );
  }
  const row = await ctx.db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No upload ${id}.`);
  if (row.status !== "pending") throw new ApiError("conflict", "This upload is already completed.");
  if (Number(expires) * 1000 <= Date.now() || Date.parse(row.expires_at) <= Date.now()) {
    throw new ApiError("permission_denied", "This upload URL has expired. Open a new upload.");
  }
  let stored: { key: string; bytes: number };
  try {
    stored = await ctx.services.blobs.putStream(
      input.body,
      Number(row.declared_bytes),
      row.content_type,
      row.blob ?? undefined,
    );
  } catch (err) {
    if (err instanceof BlobTooLargeError) {
      throw new ApiError(
        "payload_too_large",
        `This upload was opened for ${row.declared_bytes} bytes; the body is larger.`,
      );
    }
    throw err;
  }
  const updated = await ctx.db
    .updateTable("uploads")
    .set({ blob: stored.key, received_bytes: stored.bytes })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) {
    // Completed while these bytes arrived: the File holds its own copy, and these are no one's.
    await ctx.services.blobs.delete(stored.key);
    throw new ApiError("conflict", "This upload is already completed.");
  }
  return { id, received_bytes: stored.bytes };
}

async function requireUpload(ctx: Ctx, id: string): Promise<UploadsTable> {
  const row = hasIdPrefix("upload", id)
    ? await ctx.db
        .selectFrom("uploads")
        .selectAll()
        .where("workspace_id", "=", ctx.workspaceId)
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError("resource_not_found", `No upload ${id} in this workspace.`);
  return row;
}

async function fileOf(ctx: Ctx, row: UploadsTable): Promise<File> {
  const file = await ctx.db.selectFrom("files").selectAll().where("id", "=", row.file_id!).executeTakeFirstOrThrow();
  return presentFile(ctx.services, file);
}

/**
 * POST /v1/uploads/{id}/complete: answers the File; safe to repeat (the same File again).
 * The upload URL still takes bytes after this (a bucket's presigned PUT cannot be taken back), so
 * what is checked and kept is a copy made first (BlobStore.snapshot): the File points at the copy,
 * and bytes PUT later land on the upload's own key, which nothing serves.
 */
export async function completeUpload(ctx: Ctx, input: { id: string }): Promise<File> {
  requireScope(ctx, "generations:write");
  const row = await requireUpload(ctx, input.id);
  if (row.status === "completed") return fileOf(ctx, row);
  const noBytes = () =>
    new ApiError("invalid_parameter", "No bytes were received yet: PUT the file to upload_url first.", { param: "id" });
  if (!row.blob) throw noBytes();
  const uploadKey = row.blob;
  let blob: string;
  try {
    blob = await ctx.services.blobs.snapshot(uploadKey);
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw noBytes();
    throw err;
  }
  const discard = () => ctx.services.blobs.delete(blob);
  // The size of the copy: bytes PUT to a bucket were never counted by us.
  const received = await ctx.services.blobs.size(blob);
  if (received !== Number(row.declared_bytes)) {
    await discard();
    // Nothing of a wrong-sized body is kept; upload_url takes the whole file again until it expires.
    if (row.received_bytes === null) await ctx.services.blobs.delete(uploadKey);
    throw new ApiError(
      "invalid_parameter",
      `The upload was opened for ${row.declared_bytes} bytes but ${received ?? 0} arrived. PUT the whole file again.`,
      { param: "bytes" },
    );
  }
  const media = await ctx.services.blobs.withLocalFile(blob, (file) =>
    probeUploadedMedia(ctx.services.ffmpegPath, file),
  );
  if (media === null || !fitsDeclaredType(media, row.content_type)) {
    await discard();
    if (media === null)
      throw new ApiError("unsupported_media_type", `The bytes are not a ${row.content_type} file Atelier can read.`);
    const held = media.hasVideo ? "a video" : "a sound with no picture";
    throw new ApiError(
      "unsupported_media_type",
      `The upload was declared ${row.content_type} but the bytes are ${held}. Open a new upload with the file's real type.`,
    );
  }
  let claimedIt = false;
  const completed = await withTransaction(ctx.db, async (trx) => {
    const fileId = newId("file");
    const now = nowIso();
    const claimed = await trx
      .updateTable("uploads")
      .set({ status: "completed", completed_at: now, received_bytes: received, blob })
      .where("id", "=", row.id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    claimedIt = claimed.numUpdatedRows > 0n;
    if (claimedIt) {
      await trx
        .insertInto("files")
        .values({
          id: fileId,
          workspace_id: ctx.workspaceId,
          blob,
          content_type: row.content_type,
          bytes: received,
          width: media.width,
          height: media.height,
          duration: media.duration,
          filename: row.filename,
          generation_id: null,
          output_index: null,
          created_at: now,
        })
        .execute();
      await trx.updateTable("uploads").set({ file_id: fileId }).where("id", "=", row.id).execute();
    }
    return trx.selectFrom("uploads").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
  });
  // The upload's own key is no longer anyone's; a concurrent complete that won keeps its copy, not ours.
  await (claimedIt ? ctx.services.blobs.delete(uploadKey) : discard());
  return fileOf(ctx, completed);
}

/** GET /v1/uploads/{id} */
export async function getUpload(ctx: Ctx, input: { id: string }): Promise<Upload> {
  requireScope(ctx, "generations:read");
  return present(ctx, await requireUpload(ctx, input.id));
}
