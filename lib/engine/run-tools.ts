// The tools a model gets for one claimed run: its workspace's files, ffmpeg, steps of other
// catalog entries (presets), the two ways a run passes its cancel point, sharing a remote
// provider's health through the store, and the webhook URL its provider may push news to.
import { findCatalogEntry } from "../core/catalog/catalog";
import type { Services } from "../core/context";
import { ApiError } from "../primitives/errors";
import { validateModelInput } from "../core/catalog/input-validation";
import { requireInService, shareProviderHealth } from "../core/catalog/model-availability";
import { ModelError, type RouteAttempt, type RunTools } from "../core/catalog/model-definition";
import type { Db } from "../store/database";
import { providerWebhookUrl } from "../core/runs/provider-webhooks";
import { storePreview } from "./store-outputs";

/** Thrown inside a run whose cancel point could not be passed: it was canceled or lost meanwhile. */
export class RunNoLongerOursError extends Error {
  constructor() {
    super("The run was canceled or taken over before it passed its cancel point.");
    this.name = "RunNoLongerOursError";
  }
}

/** Followers hear a run's progress at most this often; the last value is never lost. */
export const PROGRESS_EVERY_MS = 250;

/**
 * Passes progress on at most once per PROGRESS_EVERY_MS (the latest value, after the pause),
 * rounded to 0.1 %, never going down, and nothing once the run has stopped.
 */
export function throttledProgress(
  send: (fraction: number) => void,
  stopped: AbortSignal,
): { report(fraction: number): void } {
  let reported = -1;
  let sentAt = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    if (stopped.aborted) return;
    sentAt = Date.now();
    send(reported);
  };
  stopped.addEventListener("abort", () => timer && clearTimeout(timer), { once: true });
  return {
    report(fraction) {
      if (typeof fraction !== "number" || !Number.isFinite(fraction) || stopped.aborted) return;
      const value = Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000;
      if (value <= reported) return;
      reported = value;
      if (timer) return;
      const wait = sentAt + PROGRESS_EVERY_MS - Date.now();
      if (wait <= 0) flush();
      else {
        timer = setTimeout(flush, wait);
        timer.unref();
      }
    },
  };
}

export function createRunTools(input: {
  db: Db;
  services: Services;
  run: { id: string; workspace_id: string };
  owner: string;
  signal: AbortSignal;
  /** Told each time the run passes a cancel point, after the store says so. */
  onCancelPoint?: (reason: string) => void;
  /** Told the provider time a provider reported (seconds): the run's finish counts its cost on it. */
  onProviderTime?: (seconds: number) => void;
  /** Told each attempt of a routed entry: the run's finish keeps them and names its provider. */
  onAttempt?: (attempt: RouteAttempt) => void;
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
    services.signals.runChanged(run.id);
  }

  const progress = throttledProgress((fraction) => services.signals.runChanged(run.id, { progress: fraction }), signal);
  /**
   * The provider queue place last told (null: none), so that a poll repeating it sends nothing.
   * It starts from what this process holds: a run back from the queue may have left one behind,
   * which its first report then replaces or clears.
   */
  let queuePlace: number | null = services.signals.providerQueueOf(run.id);
  const pushUrl = providerWebhookUrl(services, run.id);

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
      return { data: await services.blobs.readAll(file.blob), contentType: file.content_type };
    },
    async runStep(modelId, stepInput, files) {
      signal.throwIfAborted();
      const { definition } = findCatalogEntry(modelId);
      // Paused (or its provider found down) after this run was claimed: stop here, charge nothing.
      try {
        await requireInService(db, definition);
      } catch (err) {
        throw err instanceof ApiError && err.code === "service_unavailable"
          ? new ModelError(`${err.message} This run was stopped at that step; nothing was charged.`)
          : err;
      }
      // The step gets the tools runStep was called on: a preset's stepProgress (lib/models/progress.ts)
      // hands it a reportProgress scaled into the step's share of the run.
      const parent: RunTools = this ?? tools;
      const stepTools: RunTools = files
        ? { ...parent, readFile: async (fileId) => files[fileId] ?? parent.readFile(fileId) }
        : parent;
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
    reportProgress: progress.report,
    reportQueuePosition(position) {
      const place = typeof position === "number" && Number.isSafeInteger(position) && position >= 0 ? position : null;
      // Polls repeat the same place: only a move is worth a signal. Nothing once the run stopped.
      if (signal.aborted || place === queuePlace) return;
      queuePlace = place;
      services.signals.runChanged(run.id, { queuePosition: place });
    },
    async reportProviderHealth(providerId, down) {
      await shareProviderHealth(db, providerId, down);
    },
    reportProviderTime(seconds) {
      input.onProviderTime?.(seconds);
    },
    reportAttempt(attempt) {
      input.onAttempt?.(attempt);
    },
    ...(pushUrl && {
      providerPush: {
        url: pushUrl,
        onNudge: (listener: () => void) => services.signals.onProviderEvent(run.id, listener),
      },
    }),
  };
  return tools;
}
