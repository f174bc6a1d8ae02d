// A stored run as the API shows it: the Generation object, with fresh signed output links.
import { blobLink } from "../../blobs/links";
import type { Db, GenerationsTable } from "../../store/database";
import type { Services, Source } from "../context";
import type { Modality } from "../catalog/model-definition";
import { formatUsd } from "../../primitives/money";
import { queuePositions } from "./queue-positions";
import type { Generation, OutputItem, PreviewItem } from "./generation-shape";

/** What a finished run keeps of each output; the bytes are in the blob store. */
export interface StoredOutput {
  type: "image" | "video" | "audio" | "3d";
  blob: string;
  content_type: string;
  bytes: number;
  width?: number;
  height?: number;
  duration?: number;
  /** 3D: the model's size in vertices and triangles, and its extent in metres. */
  vertices?: number;
  triangles?: number;
  bounding_box?: BoundingBox;
  poster?: { blob: string; content_type: string; width: number; height: number };
}

/** A 3D model's extent: the least and greatest x, y and z over its vertices, in metres. */
export interface BoundingBox {
  min: [number, number, number];
  max: [number, number, number];
}

/** A preset's first image, kept while the run goes on (then cancel answers 409: docs/api.md, "Previews and the cancel point"). */
export interface StoredPreview {
  blob: string;
  content_type: string;
  width: number;
  height: number;
}

export type { Generation, OutputItem, PreviewItem };

export { FINAL_STATUSES, isFinal, retryAfterSeconds } from "./run-states";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "audio/ogg": "ogg",
  "audio/mp4": "m4a",
  "audio/flac": "flac",
  "model/gltf-binary": "glb",
  "video/quicktime": "mov",
  "audio/x-wav": "wav",
};

/** The file name extension of an output's type: "image/jpeg" → "jpg", "model/gltf-binary" → "glb"; else its subtype's letters. */
export function fileExtensionOf(contentType: string): string {
  return EXTENSIONS[contentType] ?? (contentType.split("/")[1]?.replace(/[^a-z0-9]/g, "") || "bin");
}

/** "atelier/gradient@v2", "gen_abc", 0, "image/png" → "gradient-gen_abc-1.png" (the studio's download names). */
export function outputDownloadName(model: string, runId: string, index: number, contentType: string): string {
  const name = (model.split("/").pop() ?? model).split("@")[0] || "output";
  return `${name}-${runId}-${index + 1}.${fileExtensionOf(contentType)}`;
}

/** Where blob links point: the public base for API answers, the page's own origin in the studio. */
export function linkBase(services: Services): string {
  return services.studioLinks ? "" : services.publicBaseUrl;
}

async function presentOutput(
  services: Services,
  output: StoredOutput,
  run: { model: string; id: string; index: number },
): Promise<OutputItem> {
  const signing = { secret: services.secretKey, baseUrl: linkBase(services) };
  const link = await blobLink(services.blobs, signing, output.blob, output.content_type);
  const item: OutputItem = {
    type: output.type,
    url: link.url,
    expires_at: link.expires_at,
    content_type: output.content_type,
  };
  if (output.width !== undefined) item.width = output.width;
  if (output.height !== undefined) item.height = output.height;
  if (output.duration !== undefined) item.duration = output.duration;
  if (output.vertices !== undefined) item.vertices = output.vertices;
  if (output.triangles !== undefined) item.triangles = output.triangles;
  if (output.bounding_box !== undefined) item.bounding_box = output.bounding_box;
  if (output.poster) {
    const poster = await blobLink(services.blobs, signing, output.poster.blob, output.poster.content_type);
    item.poster = { ...poster, width: output.poster.width, height: output.poster.height };
  }
  if (services.studioLinks) {
    const filename = outputDownloadName(run.model, run.id, run.index, output.content_type);
    item.download_url = (
      await blobLink(services.blobs, { ...signing, filename }, output.blob, output.content_type)
    ).url;
  }
  return item;
}

async function presentPreview(services: Services, preview: StoredPreview): Promise<PreviewItem> {
  const link = await blobLink(
    services.blobs,
    { secret: services.secretKey, baseUrl: linkBase(services) },
    preview.blob,
    preview.content_type,
  );
  return { ...link, content_type: preview.content_type, width: preview.width, height: preview.height };
}

/**
 * A run's `queue_position`: while queued, its place in Atelier's queue (`queued`, from the
 * caller); while running at a remote provider that queues it in turn (fal), its place there, 1
 * for next (the provider counts from 0), held in memory like progress; else null.
 */
export function queuePositionOf(services: Services, row: GenerationsTable, queued: number | null): number | null {
  if (row.status === "queued") return queued;
  if (row.status !== "running") return null;
  const place = services.signals.providerQueueOf(row.id);
  return place === null ? null : place + 1;
}

/**
 * The Generation of a stored run. Progress and a provider's queue place live in memory (the run
 * signals: no store write per update); the queue position of a queued run comes from the caller
 * (`queuePositions`, one query for many runs). Async: with a bucket, each output's link is a
 * presigned URL.
 */
export async function presentGeneration(
  services: Services,
  row: GenerationsTable,
  queuePosition: number | null = null,
): Promise<Generation> {
  const outputs = row.status === "succeeded" ? (JSON.parse(row.output_json) as StoredOutput[]) : [];
  return {
    id: row.id,
    object: "generation",
    model: row.model,
    // The store keeps these as text; only the values their shapes name are ever written.
    modality: row.modality as Modality,
    status: row.status,
    provider: row.provider,
    revision: row.revision,
    input: JSON.parse(row.input_json) as Record<string, unknown>,
    output: await Promise.all(
      outputs.map((o, index) => presentOutput(services, o, { model: row.model, id: row.id, index })),
    ),
    preview:
      row.preview_json === null ? null : await presentPreview(services, JSON.parse(row.preview_json) as StoredPreview),
    error: row.error_message === null ? null : { message: row.error_message },
    progress: row.status === "running" ? services.signals.progressOf(row.id) : null,
    queue_position: queuePositionOf(services, row, queuePosition),
    usage: { cost_usd: row.charged_micros === null ? null : formatUsd(Number(row.charged_micros)) },
    source: row.source as Source,
    batch_id: row.batch_id,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    outputs_purged_at: row.outputs_purged_at ?? null,
  };
}

/** Stored runs as Generations, with the queue positions of the queued ones (one query). */
export async function presentRuns(
  db: Db,
  services: Services,
  rows: readonly GenerationsTable[],
): Promise<Generation[]> {
  const positions = await queuePositions(db, rows);
  return Promise.all(rows.map((row) => presentGeneration(services, row, positions.get(row.id) ?? null)));
}

/** One stored run as a Generation, with its queue position when queued. */
export async function presentRun(db: Db, services: Services, row: GenerationsTable): Promise<Generation> {
  return (await presentRuns(db, services, [row]))[0]!;
}
