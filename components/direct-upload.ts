"use client";
// A video or sound from the browser, the way the API does it: open an upload (server action),
// PUT the bytes straight to its signed URL with progress, then complete it (server action).
// The bytes never pass through a server action, so their size limit does not apply.
import { completeUploadAction, openUploadAction } from "@/app/_studio/actions/runs";
import type { UploadResult } from "./schema-form/context";

function putWithProgress(
  url: string,
  file: globalThis.File,
  onProgress: (share: number) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.responseText });
    xhr.onerror = () => reject(new Error("The connection broke off during the upload."));
    xhr.send(file);
  });
}

/** The API's JSON error message, or a bucket's XML <Message>. */
function errorMessageOf(body: string): string | null {
  try {
    return (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? null;
  } catch {
    return /<Message>([^<]{1,300})<\/Message>/.exec(body)?.[1] ?? null;
  }
}

export async function directUpload(file: globalThis.File, onProgress: (share: number) => void): Promise<UploadResult> {
  const opened = await openUploadAction({
    filename: file.name,
    content_type: file.type || "application/octet-stream",
    bytes: file.size,
  });
  if (!opened.ok) return { ok: false, error: opened.error };
  // The API's own signed URL carries PUBLIC_BASE_URL's host: send it to this page's origin so it
  // is never cross-origin. A bucket's presigned URL (S3_BUCKET) goes to the bucket as it is.
  const signed = new URL(opened.value.upload_url!);
  const target = signed.pathname.startsWith("/v1/uploads/") ? signed.pathname + signed.search : signed.href;
  try {
    const put = await putWithProgress(target, file, onProgress);
    if (put.status >= 400) {
      return {
        ok: false,
        error: {
          code: "upload_failed",
          message: errorMessageOf(put.body) ?? `The upload failed (HTTP ${put.status}).`,
          param: null,
        },
      };
    }
  } catch (err) {
    return { ok: false, error: { code: "upload_failed", message: (err as Error).message, param: null } };
  }
  onProgress(1);
  const completed = await completeUploadAction(opened.value.id);
  return completed.ok ? { ok: true, file: completed.value } : { ok: false, error: completed.error };
}
