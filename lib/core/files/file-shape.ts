// Files and direct uploads as the API shows them, and the body that opens an upload: the one
// source of their types and of the document's components (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, pagedList, prefixedId, signedLink, timestamp } from "../../primitives/api-shape";

export const FileShape = closed({
  id: prefixedId("file"),
  object: z.literal("file"),
  content_type: z.string(),
  bytes: z.int().min(0),
  width: z.int().nullable(),
  height: z.int().nullable(),
  duration: z.number().nullable(),
  filename: z.string().nullable(),
  url: signedLink("The file"),
  expires_at: timestamp,
  created_at: timestamp,
});

export const FileListShape = pagedList(FileShape);

export const UploadShape = closed({
  id: prefixedId("upload"),
  object: z.literal("upload"),
  status: z.enum(["pending", "completed"]),
  filename: z.string(),
  content_type: z.string(),
  bytes: z.int().min(1),
  /** The API's signed URL, or the bucket's presigned one. */
  upload_url: z
    .string()
    .nullable()
    .meta({ description: "PUT the bytes here (no API key) until `expires_at`; null once completed." }),
  expires_at: timestamp,
  file: FileShape.nullable(),
  created_at: timestamp,
});

export const UploadReceiptShape = closed({
  id: prefixedId("upload"),
  received_bytes: z.int().min(0).meta({ description: "Bytes received so far; complete the upload next." }),
});

/** The body of POST /v1/uploads; the core checks it itself (uploads.ts), this never parses one. */
export const UploadRequestShape = closed({
  filename: z.string().min(1),
  content_type: z.string().meta({ examples: ["video/mp4"] }),
  bytes: z.int().min(1),
});

export type File = z.infer<typeof FileShape>;
export type FileList = z.infer<typeof FileListShape>;
export type Upload = z.infer<typeof UploadShape>;
export type UploadReceipt = z.infer<typeof UploadReceiptShape>;
export type UploadRequest = z.input<typeof UploadRequestShape>;
