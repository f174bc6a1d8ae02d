"use client";
import { createContext, useContext } from "react";
import type { File as StudioFile } from "@/lib/core/files/files";

export interface UploadResult {
  ok: boolean;
  file?: StudioFile;
  error?: { code: string; message: string; param: string | null };
}

/** What the studio gives the form beyond RJSF: server field errors and the workspace's files. */
export interface SchemaFormExtras {
  /** Field name → message, from the quote's ApiError param ("input.width" → "width"). */
  fieldErrors: Record<string, string>;
  files: StudioFile[];
  /** An image, through the studio's upload action. */
  upload: (data: FormData) => Promise<UploadResult>;
  /** A video or sound, as a direct upload: the bytes go straight to the signed URL, with progress 0..1. */
  directUpload: (file: globalThis.File, onProgress: (share: number) => void) => Promise<UploadResult>;
  onUploaded: (file: StudioFile) => void;
  /** Field → enum value (as a string) → readable label (the model module's `enumLabels`). */
  enumLabels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export const SchemaFormContext = createContext<SchemaFormExtras>({
  fieldErrors: {},
  files: [],
  upload: async () => ({ ok: false }),
  directUpload: async () => ({ ok: false }),
  onUploaded: () => {},
});

export function useSchemaFormExtras(): SchemaFormExtras {
  return useContext(SchemaFormContext);
}

/** "root_num_images" → "num_images". */
export function fieldName(id: string): string {
  return id.replace(/^root_?/, "");
}
