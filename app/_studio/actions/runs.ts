"use server";
// Server actions of the studio's runs: each calls lib/core with the signed-in user's Ctx.
import { actionError } from "@/app/_studio/action-error";
import { cancelGeneration, createGeneration, getGeneration } from "@/lib/core/runs/generations";
import { quoteRun, type Quote } from "@/lib/core/runs/quotes";
import { createImageFile, keepOutputAsFile, type File as StudioFile } from "@/lib/core/files/files";
import { completeUpload, openUpload, type Upload } from "@/lib/core/files/uploads";
import type { Generation } from "@/lib/core/runs/generation-view";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export interface PlainError {
  code: string;
  message: string;
  param: string | null;
  /** Set for an unexpected server error: the req_ id its log line carries (also in `message`). */
  request_id?: string | null;
}
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: PlainError };

async function attempt<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    return { ok: false, error: actionError(err) };
  }
}

export async function quoteAction(body: {
  model: string;
  input: Record<string, unknown>;
}): Promise<ActionResult<Quote>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => (await quoteRun(ctx, body)).quote);
}

export async function runAction(body: {
  model: string;
  input: Record<string, unknown>;
}): Promise<ActionResult<Generation>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => (await createGeneration(ctx, body)).generation);
}

/** A run as it is now: the studio's fallback when its live stream (GET /api/runs/events) fails. */
export async function getRunAction(id: string): Promise<ActionResult<Generation>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => (await getGeneration(ctx, { id })).generation);
}

export async function cancelRunAction(id: string): Promise<ActionResult<Generation>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => (await cancelGeneration(ctx, { id })).generation);
}

export async function keepOutputAction(id: string, index: number): Promise<ActionResult<StudioFile>> {
  const ctx = await requireStudioCtx();
  return attempt(() => keepOutputAsFile(ctx, { id, index: String(index) }));
}

export async function uploadImageAction(data: FormData): Promise<ActionResult<StudioFile>> {
  const ctx = await requireStudioCtx();
  const file = data.get("file");
  if (!(file instanceof Blob))
    return { ok: false, error: { code: "invalid_parameter", message: "Choose an image to upload.", param: "file" } };
  return attempt(async () =>
    createImageFile(ctx, {
      data: Buffer.from(await file.arrayBuffer()),
      filename: "name" in file && typeof file.name === "string" ? file.name : null,
    }),
  );
}

// Browsers name some sound types differently from the upload API's list.
const BROWSER_TYPE_ALIASES: Record<string, string> = {
  "audio/x-m4a": "audio/mp4",
  "audio/mp3": "audio/mpeg",
  "audio/vnd.wave": "audio/wav",
};

/** Opens a direct upload of a video or sound; the browser then PUTs the bytes to its signed URL. */
export async function openUploadAction(body: {
  filename: string;
  content_type: string;
  bytes: number;
}): Promise<ActionResult<Upload>> {
  const ctx = await requireStudioCtx();
  return attempt(() =>
    openUpload(ctx, { ...body, content_type: BROWSER_TYPE_ALIASES[body.content_type] ?? body.content_type }),
  );
}

export async function completeUploadAction(id: string): Promise<ActionResult<StudioFile>> {
  const ctx = await requireStudioCtx();
  return attempt(() => completeUpload(ctx, { id }));
}
