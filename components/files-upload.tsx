"use client";
// The Files page's drop zone: an image goes through the studio's upload action (POST /v1/files's
// verb), a video or sound as a direct upload to its signed URL with progress, as on a model page.
import { useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { uploadImageAction } from "@/app/_studio/actions/runs";
import { directUpload } from "./direct-upload";
import { useEarlyFile, useFileDrop } from "./use-file-drop";
import type { UploadResult } from "./schema-form/context";

export function FilesUpload({ accept }: { accept: string }) {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  useEarlyFile(input, (file) => void send(file));
  const [progress, setProgress] = useState<number | null>(null);
  const { over, dropProps } = useFileDrop((file) => void send(file));
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);
  const busy = progress !== null;

  async function send(file: globalThis.File | undefined) {
    if (!file || busy) return;
    setMessage(null);
    setProgress(0);
    let answer: UploadResult;
    if (file.type.startsWith("image/")) {
      const data = new FormData();
      data.set("file", file);
      const a = await uploadImageAction(data);
      answer = a.ok ? { ok: true, file: a.value } : { ok: false, error: a.error };
    } else {
      answer = await directUpload(file, setProgress);
    }
    setProgress(null);
    if (input.current) input.current.value = "";
    if (answer.ok && answer.file) {
      setMessage({ tone: "info", text: `Uploaded ${answer.file.filename ?? "the file"} as ${answer.file.id}.` });
      router.refresh();
    } else setMessage({ tone: "error", text: answer.error?.message ?? "The upload failed." });
  }

  const percent = Math.round((progress ?? 0) * 100);
  return (
    <div className="space-y-2">
      <div
        {...dropProps}
        className={`flex flex-wrap items-center justify-between gap-3 rounded-lg border border-dashed px-4 py-3 ${over ? "border-indigo-500 bg-indigo-50" : "border-zinc-300 bg-white"}`}
      >
        <div className="min-w-0 text-sm text-zinc-600" aria-live="polite">
          {busy ? (
            <div className="flex items-center gap-3">
              <span>Uploading… {percent > 0 ? `${percent} %` : ""}</span>
              <div
                className="h-1.5 w-40 overflow-hidden rounded-full bg-zinc-200"
                role="progressbar"
                aria-label="Upload progress"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
              >
                <div className="h-full bg-indigo-500 transition-[width]" style={{ width: `${percent}%` }} />
              </div>
            </div>
          ) : (
            <>
              Drop an image (up to 4 MB), a video or a sound here.{" "}
              <span className="text-zinc-400">
                Video and sound go up directly and count toward the daily upload allowance.
              </span>
            </>
          )}
        </div>
        <button
          type="button"
          disabled={busy}
          onClick={() => input.current?.click()}
          className="inline-flex shrink-0 items-center gap-1.5 rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60"
        >
          Upload a file
        </button>
        <input
          ref={input}
          type="file"
          accept={accept}
          aria-label="Choose a file to upload"
          className="sr-only"
          tabIndex={-1}
          onChange={(e) => void send(e.target.files?.[0])}
        />
      </div>
      {message ? (
        <p
          role={message.tone === "error" ? "alert" : "status"}
          data-testid="upload-message"
          className={`rounded-md px-3 py-2 text-sm ${message.tone === "error" ? "bg-red-50 text-red-800 ring-1 ring-red-200" : "bg-emerald-50 text-emerald-800 ring-1 ring-emerald-200"}`}
        >
          {message.text}
        </p>
      ) : null}
    </div>
  );
}
