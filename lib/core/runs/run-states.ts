// The states of a run and how often to read one that is not final: pure data, safe to import
// from the browser bundle as well as from the API.
import type { GenerationStatus } from "../../store/database";

export const GENERATION_STATUSES: readonly GenerationStatus[] = [
  "queued",
  "running",
  "succeeded",
  "failed",
  "canceled",
];

export const FINAL_STATUSES = ["succeeded", "failed", "canceled"] as const satisfies readonly GenerationStatus[];

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** Seconds a client should wait before reading a run again (docs/api.md, "Create, wait and idempotency"). */
export function retryAfterSeconds(modality: string): number {
  return modality === "video" || modality === "3d" ? 5 : 2;
}
