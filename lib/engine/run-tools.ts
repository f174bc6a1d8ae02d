// The tools a model gets for one claimed run: its workspace's files, ffmpeg, steps of other
// catalog entries (presets), the two ways a run passes its cancel point, and sharing a remote
// provider's health through the store.
import { readFile } from "node:fs/promises";
import { findCatalogEntry } from "../core/catalog";
import type { Services } from "../core/context";
import { ApiError } from "../core/errors";
import { validateModelInput } from "../core/input-validation";
import { requireInService, shareProviderHealth } from "../core/model-availability";
import { ModelError, type RunTools } from "../models/types";
import type { Db } from "../store/database";
import { storePreview } from "./store-outputs";

/** Thrown inside a run whose cancel point could not be passed: it was canceled or lost meanwhile. */
export class RunNoLongerOursError extends Error {
  constructor() {
    super("The run was canceled or taken over before it passed its cancel point.");
    this.name = "RunNoLongerOursError";
  }
}

export function createRunTools(input: {
  db: Db;
  services: Services;
  run: { id: string; workspace_id: string };
  owner: string;
  signal: AbortSignal;
  /** Told each time the run passes a cancel point, after the store says so. */
  onCancelPoint?: (reason: string) => void;
}): RunTools {
  const { db, services, run, owner, signal } = input;

  /** Sets the reason only while this worker still holds the running run; else the run stops. */
  async function passCancelPoint(reason: string, previewJson?: string): Promise<void> {
    const result = await db
      .updateTable("generations")
      .set((eb) => ({
        uncancelable_reason: eb.fn.coalesce("uncancelable_reason", eb.val(reason)),
        ...(previewJson === undefined ? {} : { preview_json: previewJson }),
      }))
      .where("id", "=", run.id)
      .where("lease_owner", "=", owner)
      .where("status", "=", "running")
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new RunNoLongerOursError();
    input.onCancelPoint?.(reason);
  }

  const tools: RunTools = {
    signal,
    ffmpegPath: services.ffmpegPath,
    async readFile(fileId) {
      const file = await db
        .selectFrom("files")
        .select(["blob", "content_type"])
        .where("workspace_id", "=", run.workspace_id)
        .where("id", "=", fileId)
        .executeTakeFirst();
      if (!file) throw new ModelError(`The input file ${fileId} no longer exists.`);
      return { data: await readFile(services.blobs.pathOf(file.blob)), contentType: file.content_type };
    },
    async runStep(modelId, stepInput, files) {
      signal.throwIfAborted();
      const { definition } = findCatalogEntry(modelId);
      // Paused (or its provider found down) after this run was claimed: stop here, charge nothing.
      await requireInService(db, definition).catch((err: unknown) => {
        throw err instanceof ApiError && err.code === "service_unavailable" ? new ModelError(`${err.message} This run was stopped at that step; nothing was charged.`) : err;
      });
      const stepTools: RunTools = files
        ? { ...tools, readFile: async (fileId) => files[fileId] ?? tools.readFile(fileId) }
        : tools;
      return definition.run(validateModelInput(definition.input_schema, stepInput, { modelId }), stepTools);
    },
    async publishPreview(preview) {
      signal.throwIfAborted();
      await passCancelPoint("preview", JSON.stringify(await storePreview(services, preview)));
    },
    async markUncancelable(reason) {
      signal.throwIfAborted();
      await passCancelPoint(reason);
    },
    async reportProviderHealth(providerId, down) {
      await shareProviderHealth(db, providerId, down);
    },
  };
  return tools;
}
