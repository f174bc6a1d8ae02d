// A stored run as the API shows it: the Generation object, with fresh signed output links.
import { signBlobLink } from "../blobs/links";
import type { GenerationsTable } from "../store/database";
import type { Services } from "./context";
import { formatUsd } from "./money";

/** What a finished run keeps of each output; the bytes are in the blob store. */
export interface StoredOutput {
  type: "image" | "video" | "audio";
  blob: string;
  content_type: string;
  bytes: number;
  width?: number;
  height?: number;
  duration?: number;
  poster?: { blob: string; content_type: string; width: number; height: number };
}

/** A preset's first image, kept while the run goes on (SPEC.md States: then cancel answers 409). */
export interface StoredPreview {
  blob: string;
  content_type: string;
  width: number;
  height: number;
}

export interface PreviewItem {
  url: string;
  expires_at: string;
  content_type: string;
  width: number;
  height: number;
}

export interface OutputItem {
  type: string;
  url: string;
  expires_at: string;
  content_type: string;
  width?: number;
  height?: number;
  duration?: number;
  poster?: { url: string; expires_at: string; width: number; height: number };
}

export interface Generation {
  id: string;
  object: "generation";
  model: string;
  modality: string;
  status: GenerationsTable["status"];
  provider: string | null;
  revision: string;
  input: Record<string, unknown>;
  output: OutputItem[];
  /** A preset's first image while it runs (and after); null when none was shown. */
  preview: PreviewItem | null;
  error: { message: string } | null;
  usage: { cost_usd: string | null };
  source: string;
  batch_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export { FINAL_STATUSES, isFinal, retryAfterSeconds } from "./run-states";

function presentOutput(services: Services, output: StoredOutput): OutputItem {
  const link = signBlobLink({ secret: services.secretKey, baseUrl: services.publicBaseUrl }, output.blob, output.content_type);
  const item: OutputItem = { type: output.type, url: link.url, expires_at: link.expires_at, content_type: output.content_type };
  if (output.width !== undefined) item.width = output.width;
  if (output.height !== undefined) item.height = output.height;
  if (output.duration !== undefined) item.duration = output.duration;
  if (output.poster) {
    const poster = signBlobLink({ secret: services.secretKey, baseUrl: services.publicBaseUrl }, output.poster.blob, output.poster.content_type);
    item.poster = { ...poster, width: output.poster.width, height: output.poster.height };
  }
  return item;
}

function presentPreview(services: Services, preview: StoredPreview): PreviewItem {
  const link = signBlobLink({ secret: services.secretKey, baseUrl: services.publicBaseUrl }, preview.blob, preview.content_type);
  return { ...link, content_type: preview.content_type, width: preview.width, height: preview.height };
}

export function presentGeneration(services: Services, row: GenerationsTable): Generation {
  const outputs = row.status === "succeeded" ? (JSON.parse(row.output_json) as StoredOutput[]) : [];
  return {
    id: row.id,
    object: "generation",
    model: row.model,
    modality: row.modality,
    status: row.status,
    provider: row.provider,
    revision: row.revision,
    input: JSON.parse(row.input_json) as Record<string, unknown>,
    output: outputs.map((o) => presentOutput(services, o)),
    preview: row.preview_json === null ? null : presentPreview(services, JSON.parse(row.preview_json) as StoredPreview),
    error: row.error_message === null ? null : { message: row.error_message },
    usage: { cost_usd: row.charged_micros === null ? null : formatUsd(Number(row.charged_micros)) },
    source: row.source,
    batch_id: row.batch_id,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}
